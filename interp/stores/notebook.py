"""A session as a Jupyter notebook or a plain script, built from its journal (`%save FILE.ipynb`, `--export`)."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from interp.common.extract import prose
from interp.common.screentext import complain
from interp.stores.conversations import find, sessions_dir
from interp.stores.journal import Damage, describe_damage, read

SUFFIXES = (".ipynb", ".py")
_SAVED = re.compile(r"^\[(?P<mime>[\w.+-]+/[\w.+-]+) saved to (?P<path>.+)\]$")
_BINARY = {"image/png", "image/jpeg", "image/gif", "application/pdf"}
_NOT_RUN = {"declined": "Not run: the user declined it.", "skipped": "Not run: there was no terminal to confirm it."}


class ExportError(Exception):
    """A session cannot be exported as asked; the message is one line naming the fix."""


def notebook(records: list[dict[str, Any]]) -> nbformat.NotebookNode:
    """The notebook of a journal: requests and the model's prose as Markdown, each executed block as a code cell
    with its outputs, in order; blocks that did not run as cells without outputs, and a note."""
    try:  # nbformat checks each cell and output as it is made, and the whole at the end
        return _notebook(records)
    except nbformat.ValidationError as exc:  # a value journal.record_problem let through and the schema rejects
        raise ExportError(f"the journal holds a value a notebook cannot: {str(exc).splitlines()[0][:120]}") from None


def _notebook(records: list[dict[str, Any]]) -> nbformat.NotebookNode:
    cells: list[nbformat.NotebookNode] = []
    count = sessions = 0
    session = next((r for r in records if r["type"] == "session"), {})
    base = Path(session.get("cwd") or ".")  # output files named relative to where the session ran
    for record in records:
        kind = record["type"]
        if kind == "session":
            sessions += 1
            if sessions > 1:
                cells.append(new_markdown_cell("*The session was resumed here in a new kernel.*"))
        elif kind == "reset":
            cells.append(new_markdown_cell("*The kernel was reset here: the cells below ran in a fresh one.*"))
        elif kind == "user" and record.get("kind") == "request":
            cells.append(new_markdown_cell(f"**Request:** {record.get('typed', record['content'])}"))
        elif kind == "assistant" and record.get("kind") == "reply" and (text := prose(record["content"])):
            cells.append(new_markdown_cell(text))
        elif kind == "execution":
            ran = record.get("status") not in _NOT_RUN
            count += ran
            cells.extend(_code_cells(record, count if ran else None, base))
    book = new_notebook(cells=cells, metadata=_metadata(session))
    nbformat.validate(book)
    return book


def _metadata(session: dict[str, Any]) -> dict[str, Any]:
    name = session.get("kernel") or "python3"
    try:
        display = KernelSpecManager().get_kernel_spec(name).display_name
    except NoSuchKernel:  # exported on a machine without that kernel
        display = name
    info = session.get("language_info") or {}
    if not isinstance(info.get("name"), str):  # the one field the schema requires
        info = {"name": "python"}
    return {"kernelspec": {"name": name, "display_name": display, "language": "python"}, "language_info": info,
            "interp": {"model": session.get("model", "?")}}


def _code_cells(record: dict[str, Any], count: int | None, base: Path) -> list[nbformat.NotebookNode]:
    language, status, code = record.get("language", "python"), record.get("status", "ok"), record["code"]
    if language not in ("python", "shell"):
        note = f"*Ran in the {language} kernel ({status}):*\n\n```{language}\n{code}\n```"
        output = record.get("output") or record.get("error") or ""
        return [new_markdown_cell(note + (f"\n\n```text\n{output.rstrip()}\n```" if output.strip() else ""))]
    source = f"%%bash\n{code}" if language == "shell" else code
    cell = new_code_cell(source, execution_count=count, metadata={"interp": {"status": status}})
    if status in _NOT_RUN:
        return [cell, new_markdown_cell(f"*{_NOT_RUN[status]}*")]
    items = record["outputs"] if "outputs" in record else _parse_output(record.get("output", ""))
    cell.outputs = [out for item in items if (out := _output(item, count, base)) is not None]
    if record.get("error"):
        cell.outputs.append(_error(record["error"], record.get("ename")))
    return [cell]


def _parse_output(text: str) -> list[dict[str, Any]]:
    """Outputs of a journal written before they were kept apart: one stream, images where they were saved."""
    items: list[dict[str, Any]] = []
    for line in text.splitlines(keepends=True):
        saved = _SAVED.match(line.strip())
        if saved:
            items.append({"files": {saved["mime"]: saved["path"]}})
        elif items and "stream" in items[-1]:
            items[-1]["text"] += line
        else:
            items.append({"stream": "stdout", "text": line})
    return items


def _output(item: dict[str, Any], count: int | None, base: Path) -> nbformat.NotebookNode | None:
    if "stream" in item:
        if item["stream"] == "result":
            text = item["text"].removesuffix("\n")
            return new_output("execute_result", data={"text/plain": text}, execution_count=count)
        return new_output("stream", name=item["stream"], text=item["text"])
    data: dict[str, Any] = {}
    for mime, path in item.get("files", {}).items():
        try:
            raw = (base / path).read_bytes()
        except OSError:
            continue  # the output folder was moved or cleaned: the text form, if any, stays
        if mime in _BINARY:
            data[mime] = base64.b64encode(raw).decode("ascii")
        elif mime == "application/json" or mime.endswith("+json"):
            try:
                data[mime] = json.loads(raw)
            except ValueError:  # the saved file was changed since: its text form, if any, stays
                continue
        else:
            data[mime] = raw.decode("utf-8", "replace")
    if "text" in item:
        data["text/plain"] = item["text"]
    return new_output("display_data", data=data) if data else None


def _error(error: str, ename: str | None) -> nbformat.NotebookNode:
    last = error.strip().splitlines()[-1] if error.strip() else ""
    name, _, value = last.partition(": ")
    if not ename:
        ename = name if name.isidentifier() else "Error"
    return new_output("error", ename=ename, evalue=value if name == ename else last, traceback=error.splitlines())


def script(records: list[dict[str, Any]]) -> str:
    """The code that succeeded, in order, as a plain Python script: what a user reruns."""
    parts = ["# Exported by interp: the code that ran without error, in order.\n"]
    for record in succeeded(records):
        language, code = record.get("language", "python"), record["code"]
        if language == "python":
            # IPython's %magics and !commands are not Python: kept visible, as comments.
            parts.append("\n".join(f"# {line}" if line.lstrip().startswith(("%", "!")) else line
                                   for line in code.splitlines()))
        elif language == "shell":
            parts.append(f"import subprocess\n\nsubprocess.run({code!r}, shell=True, check=True)")
        else:
            parts.append("\n".join(f"# ({language}) {line}" for line in code.splitlines()))
    return "\n\n".join(parts) + "\n"


def succeeded(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The executions that ran without error, in order; not one that changed a file the request reads, which interp
    put back (safekeep.py journals that right after the run): rerun, it would change the file again."""
    after = [*records[1:], {"type": "end"}]
    return [record for record, then in zip(records, after, strict=True)
            if record["type"] == "execution" and record.get("status") == "ok" and then["type"] != "restored"]


def write(records: list[dict[str, Any]], path: Path, overwrite: bool = True) -> int:
    """Writes the notebook or the script (by the file's suffix); returns how many code cells or blocks it has."""
    if path.suffix not in SUFFIXES:
        raise ExportError(f"{path}: export to a .ipynb notebook or a .py script")
    if path.suffix == ".ipynb":
        book = notebook(records)
        text, cells = nbformat.writes(book), sum(c.cell_type == "code" for c in book.cells)
    else:
        text = script(records)
        cells = len(succeeded(records))
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    try:
        with os.fdopen(os.open(path, flags, 0o600), "w", encoding="utf-8") as f:  # private, like the journal
            f.write(text)
    except FileExistsError:  # %save without -f: the caller says how to overwrite
        raise
    except OSError as exc:
        raise ExportError(f"cannot write {path}: {exc.strerror}") from None
    return cells


def journal_for(source: str | None) -> Path:
    """The journal named by an id (or a unique prefix of one), a path to a .jsonl file, or None for the latest."""
    if source is not None and (source.endswith(".jsonl") or Path(source).is_file()):
        if not Path(source).is_file():
            raise ExportError(f"no journal {source}")
        return Path(source)
    path = find(source)
    if path is None:
        what = f"conversation '{source}'" if source else "conversation yet"
        raise ExportError(f"no {what} in {sessions_dir()} (see interp --conversations)")
    return path


def export_main(args: list[str]) -> int:
    """`interp --export [ID|JOURNAL.jsonl] FILE.ipynb|FILE.py`: exit 0 when written, 2 on a usage error."""
    if len(args) not in (1, 2):
        complain("use --export [ID|JOURNAL.jsonl] FILE.ipynb|FILE.py")
        return 2
    source, target = (None, args[0]) if len(args) == 1 else args
    damage: list[Damage] = []
    try:
        journal = journal_for(source)
        records = read(journal, damage)
        for line in describe_damage(damage):
            complain(line)
        cells = write(records, Path(target))
    except ExportError as exc:
        complain(str(exc))
        return 2
    except OSError as exc:
        complain(f"cannot read {exc.filename}: {exc.strerror}")
        return 2
    complain(f"wrote {target} ({cells} code {'cells' if target.endswith('.ipynb') else 'blocks'}) from {journal}")
    return 0
