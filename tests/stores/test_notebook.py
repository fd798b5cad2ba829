"""Sessions leave interp as notebooks and scripts (--export, %save FILE.ipynb), built from the journal."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import finish, records, run_interp, spawn, write_script
from fakes import drive, make_session
from nbclient import NotebookClient
from rich.console import Console

from interp.common.events import CodeShown, Confirm, ExecutionDone, ExecutionStart
from interp.common.extract import CodeBlock
from interp.prompts import Prompts
from interp.stores.nbimport import NotebookError, code_cells, names_defined, summary
from interp.stores.notebook import notebook, script
from interp.ui.plain import PlainView
from interp.ui.render import RichView

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
THREE_TURNS = [
    "Printing.\n```python\nprint('hello notebook')\n```", "It printed hello notebook.",
    "```python\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.savefig('plot.png')\n"
    "plt.show()\n```", "Saved the plot.",
    "Let me compute it.\n```python\nprint(total_sum)\n```",
    "Fixed:\n```python\ntotal_sum = sum(range(1, 101))\nprint(total_sum)\n```", "The sum is 5050.",
]


def _three_turn_session(tmp_path: Path, env: dict[str, str]) -> Path:
    script_file = write_script(tmp_path, THREE_TURNS)
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script_file}", "--transcript", str(journal)], env=env,
                        cwd=tmp_path, stdin="say hello\nplot squares\nsum 1..100\n")
    assert result.returncode == 0, result.stderr
    return journal


def _stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(o["text"] for o in cell.outputs if o["output_type"] == "stream" and o["name"] == "stdout")


def _kinds(cell: nbformat.NotebookNode) -> list[str]:
    """The kinds of a cell's outputs, stderr left out: warnings depend on the machine (matplotlib's when it builds its
    font cache: in the first sandboxed session, and again when the notebook is re-run outside it), not on the code."""
    return [o["output_type"] for o in cell.outputs if o.get("name") != "stderr"]


def test_three_turn_session_exports_a_valid_notebook_that_nbclient_reproduces(
        tmp_path: Path, env: dict[str, str]) -> None:
    journal = _three_turn_session(tmp_path, env)
    target = tmp_path / "out.ipynb"
    result = run_interp(["--export", str(journal), str(target)], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    book = nbformat.read(target, as_version=4)
    nbformat.validate(book)
    assert book.metadata.kernelspec.name == "python3"
    assert book.metadata.language_info.name == "python"
    code = [c for c in book.cells if c.cell_type == "code"]
    assert [c.source for c in code] == [
        "print('hello notebook')",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [1, 4, 9])\nplt.savefig('plot.png')\nplt.show()",
        "print(total_sum)",
        "total_sum = sum(range(1, 101))\nprint(total_sum)",
    ]
    assert [c.execution_count for c in code] == [1, 2, 3, 4]
    markdown = [c.source for c in book.cells if c.cell_type == "markdown"]
    assert markdown[0] == "**Request:** say hello" and "**Request:** sum 1..100" in markdown
    assert "The sum is 5050." in markdown
    assert _stdout(code[0]) == "hello notebook\n"
    image = next(o for o in code[1].outputs if o["output_type"] == "display_data")
    png = base64.b64decode(image["data"]["image/png"])
    # The image's output, whatever came before it (matplotlib may say on stderr that it is building its font cache).
    saved = next(o["files"]["image/png"] for o in records(journal, "execution")[1]["outputs"] if "files" in o)
    assert png.startswith(PNG_MAGIC) and png == Path(saved).read_bytes()
    error = code[2].outputs[-1]
    assert error["output_type"] == "error" and error["ename"] == "NameError" and "total_sum" in error["evalue"]
    assert _stdout(code[3]) == "5050\n"

    (tmp_path / "plot.png").unlink()
    rerun = tmp_path / "rerun"
    rerun.mkdir()
    executed = NotebookClient(nbformat.read(target, as_version=4), timeout=120, allow_errors=True,
                              resources={"metadata": {"path": str(rerun)}}).execute()
    again = [c for c in executed.cells if c.cell_type == "code"]
    assert [_stdout(c) for c in again] == [_stdout(c) for c in code]
    assert [_kinds(c) for c in again] == [_kinds(c) for c in code]
    assert base64.b64decode(again[1].outputs[-1]["data"]["image/png"]).startswith(PNG_MAGIC)
    assert (rerun / "plot.png").read_bytes().startswith(PNG_MAGIC)
    assert again[2].outputs[-1]["ename"] == "NameError"


def test_script_export_keeps_only_code_that_succeeded_and_runs(tmp_path: Path, env: dict[str, str]) -> None:
    journal = _three_turn_session(tmp_path, env)
    target = tmp_path / "out.py"
    assert run_interp(["--export", str(journal), str(target)], env=env, cwd=tmp_path).returncode == 0
    text = target.read_text()
    assert "print(total_sum)\n\ntotal_sum" not in text and text.count("print(total_sum)") == 1
    ran = subprocess.run([sys.executable, str(target)], capture_output=True, text=True, cwd=tmp_path,
                         env={**env, "MPLBACKEND": "Agg"}, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "hello notebook\n5050\n"


def test_export_picks_the_latest_session_by_default_and_names_bad_targets(
        tmp_path: Path, env: dict[str, str]) -> None:
    script_file = write_script(tmp_path, ["```python\nprint('in the data dir')\n```", "Done."])
    assert run_interp(["-y", "--model", f"script:{script_file}", "-c", "go"], env=env, cwd=tmp_path).returncode == 0
    result = run_interp(["--export", "latest.ipynb"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    cells = nbformat.read(tmp_path / "latest.ipynb", as_version=4).cells
    assert _stdout(next(c for c in cells if c.cell_type == "code")) == "in the data dir\n"
    bad = run_interp(["--export", "out.txt"], env=env, cwd=tmp_path)
    assert bad.returncode == 2 and ".ipynb notebook or a .py script" in bad.stderr
    assert "Traceback" not in bad.stderr
    missing = run_interp(["--export", "nosuchid", "x.ipynb"], env=env, cwd=tmp_path)
    assert missing.returncode == 2 and "no conversation 'nosuchid'" in missing.stderr


def test_declined_blocks_and_old_journals_export_without_outputs_or_with_parsed_ones(tmp_path: Path) -> None:
    image = tmp_path / "out-1.png"
    image.write_bytes(PNG_MAGIC + b"rest")
    journal = [
        {"type": "session", "ts": 1, "cwd": str(tmp_path), "model": "m"},
        {"type": "user", "ts": 2, "kind": "request", "content": "go"},
        {"type": "execution", "ts": 3, "language": "python", "code": "open('x', 'w')", "status": "declined",
         "output": "", "error": None},
        # A journal from before outputs were kept apart: the text and the saved file's line only.
        {"type": "execution", "ts": 4, "language": "python", "code": "show()", "status": "ok",
         "output": f"before\n[image/png saved to {image.name}]\nafter\n", "error": None},
        {"type": "execution", "ts": 5, "language": "shell", "code": "echo hi", "status": "ok", "output": "hi\n",
         "error": None},
    ]
    book = notebook(journal)
    declined, old, shell = [c for c in book.cells if c.cell_type == "code"]
    assert declined.outputs == [] and declined.execution_count is None
    assert declined.metadata["interp"]["status"] == "declined"
    assert "declined" in book.cells[book.cells.index(declined) + 1].source
    assert [o["output_type"] for o in old.outputs] == ["stream", "display_data", "stream"]
    assert base64.b64decode(old.outputs[1]["data"]["image/png"]) == image.read_bytes()
    assert shell.source == "%%bash\necho hi" and shell.execution_count == 2
    assert json.loads(json.dumps(book))  # plain JSON throughout
    assert script(journal).endswith("subprocess.run('echo hi', shell=True, check=True)\n")


def test_a_saved_json_output_that_is_no_longer_json_keeps_its_text_form(tmp_path: Path) -> None:
    (tmp_path / "out-1.json").write_text("{cut sho")
    journal = [{"type": "session", "ts": 1, "cwd": str(tmp_path), "model": "m"},
               {"type": "execution", "ts": 2, "language": "python", "code": "show()", "status": "ok", "output": "",
                "error": None, "outputs": [{"files": {"application/json": "out-1.json"}, "text": "{...}"}]}]
    (cell,) = [c for c in notebook(journal).cells if c.cell_type == "code"]
    assert [o["data"] for o in cell.outputs] == [{"text/plain": "{...}"}]


def test_load_runs_a_notebooks_cells_asking_and_save_writes_the_session(tmp_path: Path, env: dict[str, str]) -> None:
    book = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# A notebook"),
        nbformat.v4.new_code_cell("base = 21\ndef double(v):\n    return 2 * v"),
        nbformat.v4.new_code_cell("print(double(base))"),
    ])
    nbformat.write(book, tmp_path / "nb.ipynb")
    script_file = write_script(tmp_path, ["```python\nprint(double(base) + 1)\n```", "It is 43."])
    journal = tmp_path / "j.jsonl"
    child = spawn(["--model", f"script:{script_file}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.sendline("%load nb.ipynb")
    for _ in range(2):
        child.expect(r"Run this code\?")
        child.sendline("y")
    child.expect("42")
    child.expect(r"Loaded nb.ipynb \(2 code cells\)")
    child.expect(">")
    child.sendline("add one to it")
    child.expect(r"Run this code\?")
    child.sendline("y")
    child.expect("43")
    child.expect(">")
    child.sendline("%save out.ipynb")
    child.expect("Saved the session to out.ipynb")
    child.expect(">")
    child.sendline("%save out.ipynb")
    child.expect("exists; %save -f out.ipynb overwrites it")
    child.expect(">")
    finish(child)
    note = next(r["content"] for r in records(journal, "user") if r.get("kind") == "note")
    assert "2 of its 2 code cells ran without error" in note
    assert "base, double" in note and "42" in note
    saved = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    nbformat.validate(saved)
    code = [c for c in saved.cells if c.cell_type == "code"]
    assert [c.source for c in code] == ["base = 21\ndef double(v):\n    return 2 * v", "print(double(base))",
                                        "print(double(base) + 1)"]
    assert [_stdout(c) for c in code] == ["", "42\n", "43\n"]
    assert (tmp_path / "out.ipynb").stat().st_mode & 0o777 == 0o600


def test_load_shows_each_cell_before_asking_to_run_it(tmp_path: Path, env: dict[str, str]) -> None:
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("first_cell = 'one'"),
                                           nbformat.v4.new_code_cell("print(first_cell + ' and two')")])
    nbformat.write(book, tmp_path / "nb.ipynb")
    child = spawn(["--model", f"script:{write_script(tmp_path, ['Unused.'])}"], env, tmp_path)
    child.expect(">")
    child.sendline("%load nb.ipynb")
    for title, code in [("code cell 1 of 2 from nb.ipynb", "first_cell = 'one'"),
                        ("code cell 2 of 2 from nb.ipynb", "print(first_cell + ' and two')")]:
        child.expect(re.escape(title))
        child.expect(r"Run this code\?")
        screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", child.before)  # the code is highlighted: escapes between words
        assert code in screen, screen
        child.sendline("y")
    child.expect("one and two")
    child.expect(r"Loaded nb.ipynb \(2 code cells\)")
    child.expect(">")
    finish(child)


def test_run_cells_shows_each_cell_before_its_confirmation(tmp_path: Path) -> None:
    session = make_session(tmp_path, [], yes=False)
    cells = [CodeBlock("python", "a = 1"), CodeBlock("python", "print(a)")]
    events = drive(session.run_cells(cells, lambda done: "ran", "nb.ipynb"))
    kinds = [type(e) for e in events if isinstance(e, (CodeShown, Confirm, ExecutionStart))]
    assert kinds == [CodeShown, Confirm, ExecutionStart] * 2
    shown = [e for e in events if isinstance(e, CodeShown)]
    assert [(e.code, e.title) for e in shown] == [("a = 1", "code cell 1 of 2 from nb.ipynb"),
                                                  ("print(a)", "code cell 2 of 2 from nb.ipynb")]


def test_both_views_show_code_from_a_notebook() -> None:
    event = CodeShown("python", "total = sum(range(10))\n", "code cell 1 of 1 from nb.ipynb")
    out = io.StringIO()
    PlainView(out=out, err=io.StringIO()).show(event)
    assert out.getvalue() == "--- code cell 1 of 1 from nb.ipynb:\ntotal = sum(range(10))\n"
    console = Console(file=io.StringIO(), width=80, color_system=None)
    RichView(console).show(event)
    text = console.file.getvalue()
    assert "code cell 1 of 1 from nb.ipynb" in text and "total = sum(range(10))" in text


def test_load_names_defined_and_summary() -> None:
    sources = ["import numpy as np, os.path\nfrom math import pi as PI\n%matplotlib inline\nx, (y, z) = 1, (2, 3)",
               "for i in range(3):\n    total = i\ndef f():\n    inner = 1\nclass K: pass\n_private = 1",
               "!ls\nwith open('f') as handle: pass"]
    assert names_defined(sources) == ["np", "os", "PI", "x", "y", "z", "i", "total", "f", "K", "handle"]
    cells = [CodeBlock("python", s) for s in ("a = 1", "print(a)", "raise ValueError('no')", "b = 2")]
    done = [ExecutionDone("python", "a = 1", "ok", "", None, 0), ExecutionDone("python", "print(a)", "ok", "1\n",
            None, 0), ExecutionDone("python", "raise", "error", "", "ValueError: no", 0)]
    text = summary(Prompts.load().notebook_loaded, Path("nb.ipynb"), cells, done)
    assert "2 of its 4 code cells ran without error; cell 3 ended: error" in text
    assert "Names it defined (they are in the kernel now, use them directly): a" in text
    assert "ValueError: no" in text


def test_load_refuses_what_is_not_a_python_notebook(tmp_path: Path) -> None:
    (tmp_path / "bad.ipynb").write_text("{not json")
    with pytest.raises(NotebookError, match="is not a valid notebook"):
        code_cells(tmp_path / "bad.ipynb")
    book = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "ir", "display_name": "R", "language": "R"}})
    nbformat.write(book, tmp_path / "r.ipynb")
    with pytest.raises(NotebookError, match="is a notebook for R"):
        code_cells(tmp_path / "r.ipynb")
    with pytest.raises(NotebookError, match="cannot read"):
        code_cells(tmp_path / "missing.ipynb")


_CELL = {"cell_type": "code", "id": "a", "metadata": {}, "source": "x = 1", "outputs": [], "execution_count": None}
_BOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [_CELL]}
WRONG_TYPES = {
    "a-list": ([1, 2, 3], "a JSON list, not a notebook object"),
    "a-number": (5, "a JSON int, not a notebook object"),
    "no-version": ({"cells": []}, "no nbformat version number"),
    "minor-not-a-number": ({**_BOOK, "nbformat_minor": "x"}, "no nbformat version number"),
    "cells-not-a-list": ({**_BOOK, "cells": 5}, "its cells are not a list"),
    "cell-not-an-object": ({**_BOOK, "cells": [5]}, "cell 1 is not a cell object"),
    "source-a-number": ({**_BOOK, "cells": [{**_CELL, "source": 5}]}, "cell 1 has no text source"),
    "source-lines-not-text": ({**_BOOK, "cells": [{**_CELL, "source": ["a", 2]}]}, "cell 1 has no text source"),
    "outputs-not-a-list": ({**_BOOK, "cells": [{**_CELL, "outputs": 5}]}, "is not a valid notebook"),
    "metadata-not-an-object": ({**_BOOK, "metadata": 5}, "its metadata is not an object"),
    "kernelspec-not-an-object": ({**_BOOK, "metadata": {"kernelspec": "py"}}, "its kernelspec language is not text"),
    "language-a-number": ({**_BOOK, "metadata": {"kernelspec": {"name": "x", "display_name": "x", "language": 5}}},
                          "its kernelspec language is not text"),
    "language-info-name-a-list": ({**_BOOK, "metadata": {"language_info": {"name": ["python"]}}},
                                  "its language_info name is not text"),
    "old-worksheets-not-a-list": ({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": 5},
                                  "is not a valid notebook"),
}


@pytest.mark.parametrize(("data", "message"), list(WRONG_TYPES.values()), ids=list(WRONG_TYPES))
def test_load_refuses_wrong_typed_notebooks_in_one_line(tmp_path: Path, data: object, message: str) -> None:
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(data))
    with pytest.raises(NotebookError) as refused:
        code_cells(path)
    assert str(refused.value).startswith(f"{path} is not a valid notebook: ")
    assert message in str(refused.value) and "\n" not in str(refused.value)
    path.write_text(json.dumps({**_BOOK, "cells": [{**_CELL, "source": ["x = 1\n", "y = 2"]}]}))
    assert [c.code for c in code_cells(path)] == ["x = 1\ny = 2"]  # lines of text are a source
