"""Files named in a request: each becomes a short preview for the model (text head and tail, a table's columns and
first rows, a binary file's name, type and size) that tells it where the file is, so that its code reads the file from
disk rather than from the prompt. `@path` attaches a file; an @word that names nothing and is not shaped like a file's
name (`@mean_fare[value]`, an answer format; `@bob`) is left as typed, silently. A plain name of an existing file
(`orders.json`) gets a shorter preview, so that the model writes code for the file's real layout instead of guessing
it, and a folder named by a path (`media/`) the names it holds."""

from __future__ import annotations

import csv
import itertools
import json
import mimetypes
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from string import Template

from interp.textclean import HeadTail, for_model

TEXT_CHARS = 3000  # of a text file shown, head and tail
NAMED_CHARS = 1200  # the same for a file named without @: the user did not ask for it to be read into the prompt
NAMED_FILES = 3  # files and folders named without @ that are previewed, the first ones in the request
FOLDER_NAMES = 30  # names of a folder's entries shown
FOLDER_ENTRIES = 10_000  # a folder's entries read, at most
SNIFF_BYTES = 64 * 1024  # read to tell text from binary and to preview a table
TABLE_ROWS = 3  # a table's first rows shown, for its layout: each costs the model about 50 tokens to read
LINE_CHARS = 300  # of one row of a table shown
TYPE_ROWS = 200  # rows a column's type is judged from
JSON_BYTES = 2 * 2**20  # a larger JSON file is previewed as text
JSON_CHARS = 1200
# `@path`, or `@"a path"` with spaces; the @ must start a word, so e-mail addresses are left alone.
_MENTION = re.compile(r"""(?<!\S)@(?:"(?P<quoted>[^"]+)"|'(?P<single>[^']+)'|(?P<bare>[^\s"']+))""")
_TRAILING = ".,;:!?)]}"
# A word that may name a file: a path with an extension or a slash; quotes, backticks and brackets are not part of it.
_WORD = re.compile(r"""[^\s"'`()\[\]{}<>,;]+""")
_PATHLIKE = re.compile(r"[^/]\.\w{1,10}$|/")
_ANSWER_FORM = re.compile(r"\w+\[")  # `@mean_fare[value]`: how an answer is asked to be written, not a file
_NEW_FILE = re.compile(r"(?:^|/)[\w-]*[\w-]{2}\.[A-Za-z][A-Za-z0-9]{0,5}$")  # expenses_clean.csv; not e.g or 2.5
_SHELL = re.compile(r"\b(?:shell|bash|terminal|pipeline|command)\b", re.I)


@dataclass
class Attachment:
    path: Path
    what: str  # "CSV, 3 columns, 100 rows", "text, 12 lines", "image/png, 2.1 MB"
    preview: str
    kind: str = "text"  # text, python, csv, json or binary: picks the hint after it (prompts/attach_hints.json)
    named: str = ""  # for a file named without @, the name as typed: what the model is told (its code runs there)
    delimiter: str = ""  # a CSV file's field separator, as the sniffer found it


def mentions(text: str, cwd: Path) -> list[tuple[re.Match[str], Path | None, str]]:
    """Each @mention with the file it names (None when there is none) and the name as typed."""
    found = []
    for match in _MENTION.finditer(text):
        name = match["quoted"] or match["single"] or match["bare"]
        path = _existing(cwd, name)
        if path is None and match["bare"]:
            stripped = name.rstrip(_TRAILING)  # "@data.csv?" names data.csv
            path, name = _existing(cwd, stripped), stripped if stripped else name
        found.append((match, path, name))
    return found


def _existing(cwd: Path, name: str) -> Path | None:
    if not name:
        return None
    try:
        path = (cwd / Path(name).expanduser()).resolve()
        return path if path.exists() else None
    except (OSError, RuntimeError):  # a name too long for the system, no permission, a loop of links
        return None


def _path_words(text: str) -> Iterator[str]:
    """The words shaped like a path (an extension or a slash), trailing punctuation dropped, @mentions left out, and
    slashes alone too: in a request they are usually division (`n // 3`), and taken as a path they would show the
    model the root folder."""
    for match in _WORD.finditer(text):
        word = match[0].rstrip(_TRAILING)
        if not word.startswith("@") and _PATHLIKE.search(word) and word.strip("/"):
            yield word


def file_words(text: str, cwd: Path) -> tuple[list[str], list[str]]:
    """The words of a request that name existing files, and those shaped like a file's name (a stem of two characters
    or more, an extension that starts with a letter) that name nothing yet, each as typed; @ dropped."""
    existing, missing = [], []
    for word in [*_path_words(text), *(name for _, path, name in mentions(text, cwd) if path is not None)]:
        path = _existing(cwd, word)
        if path is not None and path.is_file():
            existing.append(word)
        elif path is None and _NEW_FILE.search(word):
            missing.append(word)
    return list(dict.fromkeys(existing)), list(dict.fromkeys(missing))


def asks_for_shell(text: str) -> bool:
    """Whether the request asks for a shell command ("Use a shell pipeline to ...")."""
    return _SHELL.search(text) is not None


def may_name_files(text: str) -> bool:
    """Whether the request has an @mention or a word shaped like a path: else no file needs looking up."""
    return "@" in text or next(_path_words(text), None) is not None


def named(text: str, cwd: Path, skip: list[Path]) -> dict[Path, str]:
    """Existing files and folders that the request's words name by path, without @ (the first NAMED_FILES), each
    with the name as typed."""
    found: dict[Path, str] = {}
    for word in _path_words(text):
        path = _existing(cwd, word)
        if path is not None and (path.is_file() or path.is_dir()) and path not in skip and path not in found:
            found[path] = word
            if len(found) == NAMED_FILES:
                break
    return found


def expand(text: str, template: Template, cwd: Path, hints: dict[str, str] | None = None,
           named_template: Template | None = None, tables: Callable[[list[Attachment]], list[Attachment]] | None = None
           ) -> tuple[str, list[Attachment], list[str]]:
    """The request as the model should read it (previews first, then the words with each @ dropped), what was
    attached, and a line for each mention that names no file. With `named_template`, existing files the words name
    without @ are previewed too, shorter; `tables` may rewrite the previews before they are shown (frames.py: how the
    kernel's pandas reads a CSV file)."""
    attached: list[Attachment] = []
    problems: list[str] = []
    pieces, pos = [], 0
    for match, path, name in mentions(text, cwd):
        if path is None or not path.is_file():
            if path is not None or _meant_as_file(match, name):
                problems.append(f"@{name}: {'not a file' if path else 'no such file'}; sent as typed.")
            continue
        if all(a.path != path for a in attached):
            try:
                attached.append(describe(path))
            except (OSError, ValueError, csv.Error) as exc:
                problems.append(f"@{name}: cannot read it ({getattr(exc, 'strerror', None) or exc}); sent as typed.")
                continue
        pieces += [text[pos:match.start()], name]
        pos = match.start() + 1 + len(name) if match["bare"] else match.end()
    words = "".join([*pieces, text[pos:]])
    if named_template is not None:
        for path, word in named(words, cwd, [a.path for a in attached]).items():
            try:
                attached.append(describe(path, NAMED_CHARS, named=word))
            except (OSError, ValueError, csv.Error):
                continue  # unreadable: the model meets the error when its code opens it
    if not attached:
        return text, [], problems
    if tables is not None:
        attached = tables(attached)
    blocks = [(named_template if a.named and named_template else template).safe_substitute(
        path=a.named or str(a.path), what=a.what, preview=a.preview, kind="folder" if a.kind == "folder" else "file",
        hint=Template((hints or {}).get(a.kind, "")).safe_substitute(path=a.named or str(a.path))).rstrip()
        for a in attached]
    return "\n\n".join([*blocks, words]), attached, problems


def _meant_as_file(match: re.Match[str], name: str) -> bool:
    """Whether an @mention that names nothing was meant as a file: quoted, or shaped like one (an extension or a
    slash) and not an answer format such as `@mean_fare[value]`. Other @words (`@bob`) are plain words."""
    if not match["bare"]:
        return True
    return _ANSWER_FORM.match(name) is None and _PATHLIKE.search(name) is not None


def describe(path: Path, chars: int = TEXT_CHARS, named: str = "") -> Attachment:
    """A preview of one file, bounded whatever its size; a text file shows at most `chars` of it. A folder's is
    what it holds at its top level (_folder)."""
    if path.is_dir():
        made = _folder(path)
        made.named = named
        return made
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(SNIFF_BYTES)
    text = _as_text(head)
    suffix = path.suffix.lower()
    if text is None:
        mime = mimetypes.guess_type(path.name)[0] or "binary data"
        made = Attachment(path, f"{mime}, {_size(size)}", "(binary: not shown)", "binary")
    elif suffix in (".csv", ".tsv"):
        made = _table(path, text, size, head_only=size > SNIFF_BYTES)
    elif suffix == ".json" and size <= JSON_BYTES:
        try:
            made = _json(path, json.loads(path.read_text(encoding="utf-8")), size)
        except (ValueError, UnicodeDecodeError):  # not valid JSON after all: shown as text
            made = _text(path, size, chars)
    else:
        made = _text(path, size, chars, "python" if suffix == ".py" else "text")
    made.named = named
    return made


def _folder(path: Path) -> Attachment:
    """The names a folder holds at its top level, folders marked with a slash, sorted, at most FOLDER_NAMES of them
    (of the first FOLDER_ENTRIES read): a model that has not seen a folder's names guesses them (asked to count files
    by extension, it greps for extensions the folder does not hold)."""
    files = folders = 0
    names: list[str] = []
    with os.scandir(path) as entries:
        for entry in itertools.islice(entries, FOLDER_ENTRIES):
            folder = entry.is_dir()
            files, folders = files + (not folder), folders + folder
            names.append(entry.name + "/" if folder else entry.name)
    names.sort()
    shown = ", ".join(names[:FOLDER_NAMES]) + (f", ... {len(names) - FOLDER_NAMES} more" if len(names) >
                                                  FOLDER_NAMES else "")
    count = f"{files} file{'s' * (files != 1)}" + (f", {folders} folder{'s' * (folders != 1)}" if folders else "")
    whole = "at its top level" if len(names) < FOLDER_ENTRIES else f"among the first {FOLDER_ENTRIES} entries"
    return Attachment(path, f"{count} {whole}", shown or "(empty)", "folder")


def _as_text(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return data[:exc.start].decode("utf-8") if exc.start >= len(data) - 3 else None  # a character cut in two


def _size(size: int) -> str:
    amount = float(size)
    for unit in ("KB", "MB", "GB"):
        amount /= 1024
        if amount < 1024 or unit == "GB":
            return f"{size} bytes" if size < 1024 else f"{amount:.1f} {unit}"
    return f"{size} bytes"


def _text(path: Path, size: int, chars: int = TEXT_CHARS, kind: str = "text") -> Attachment:
    kept, lines = HeadTail(chars), 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            kept.add(line)
            lines += 1
    whole = "whole" if kept.total <= chars else "first and last lines"
    return Attachment(path, f"text, {lines} lines, {_size(size)}; {whole} below", for_model(kept.text()), kind)


def _table(path: Path, head: str, size: int, head_only: bool) -> Attachment:
    """A table's preview: header, columns, first rows, as written. A column's name that begins or ends with spaces is
    quoted, as a reader gives it. Lines may end in \n, \r\n or a lone \r (old Mac files); a file the csv module
    cannot read is shown as text."""
    head = head.removeprefix("\ufeff")  # a byte-order mark is no part of the first column's name
    newline = "\n" if "\n" in head or "\r" not in head else "\r"
    sample = head.rsplit(newline, 1)[0] if head_only else head  # no partial last row
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    try:
        rows = list(csv.reader(sample.splitlines(), dialect))
        # The names as pandas and csv.DictReader give them: spaces after a delimiter kept (the sniffer may skip them).
        names = next(csv.reader(sample.splitlines()[:1], dialect, skipinitialspace=False), [])
    except csv.Error:
        return _text(path, size)
    if not rows:
        return _text(path, size)
    header, body = rows[0], rows[1:]
    header = names if len(names) == len(header) else header
    lines, last, end = 0, b"", newline.encode()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            lines, last = lines + chunk.count(end), chunk
    total = max(lines - 1 + (not last.endswith(end)), len(body))  # rows below the header
    shown_columns = "columns: " + ", ".join(
        f"{name if name == name.strip() else repr(name)} "
        f"({_column_type([r[i] for r in body[:TYPE_ROWS] if i < len(r)])})" for i, name in enumerate(header))
    # As written, quotes and blank lines kept: rejoined fields showed "$1,200.00" as two columns.
    shown = "\n".join(line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " ..."
                      for line in sample.splitlines()[1:TABLE_ROWS + 1])
    separator = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}.get(dialect.delimiter, "other")
    preview = (f"header: {dialect.delimiter.join(header)}\n{shown_columns}\n"
               f"the first lines after the header, as written:\n{shown}")
    return Attachment(path, f"CSV, {separator}-separated, {len(header)} columns, {'about ' * head_only}{total} rows, "
                      f"{_size(size)}", for_model(preview), "csv", delimiter=dialect.delimiter)


def _column_type(values: list[str]) -> str:
    filled = [v.strip() for v in values if v.strip()]
    for kind, convert in (("int", int), ("float", float)):
        try:
            for value in filled:
                convert(value)
        except ValueError:
            continue
        return kind if filled else "empty"
    return "text"


def _json(path: Path, data: object, size: int) -> Attachment:
    sample: object = data
    if isinstance(data, list):
        first = data[0] if data else None
        shape = f"a list of {len(data)} items" + (f", each like {_shape(first)}" if data else "")
        sample = data[:3]
    elif isinstance(data, dict):
        shape = f"an object: {_shape(data)}"
    else:
        shape = f"a {type(data).__name__}"
    text = json.dumps(sample, ensure_ascii=False)
    if len(text) > JSON_CHARS:
        text = text[:JSON_CHARS] + " ..."
    return Attachment(path, f"JSON, {_size(size)}", f"{shape}\nstart: {text}", "json")


def _shape(value: object) -> str:
    if isinstance(value, dict):
        keys = list(value.items())[:20]
        more = f", ... {len(value) - 20} more keys" if len(value) > 20 else ""
        return "{" + ", ".join(f"{k}: {type(v).__name__}" for k, v in keys) + more + "}"
    return type(value).__name__
