"""The screen never lies, through the real CLI in a pseudo-terminal: output, a reply's code, a notebook's cells, code
in tags and the notice after `a` cannot move the cursor, erase lines, set the title or write the clipboard, and the
code shown before "Run this code?" is the code that runs (REPORT.md of the third probing round, 4.1 to 4.5, 2.5)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pexpect
from conftest import finish, records, run_interp, spawn, write_script

ESC = "\x1b"
_RICH_STYLE = re.compile(r"\x1b\[[0-9;]*m")
# Sequences that no content may bring to the terminal: OSC (title, clipboard, links), a C0 control right after ESC
# or CSI (which a terminal acts on before carrying on with the sequence), a full reset, cursor save and restore.
_FORBIDDEN = re.compile(r"\x1b\]|\x1b[\x00-\x1f]|\x1b\[[\x00-\x1f]|\x1bc|\x1b7|\x1b8|\x1b\[2J|[\x80-\x9f]")


def _logged(child: pexpect.spawn) -> io.StringIO:
    """Everything the terminal receives from now on."""
    child.logfile_read = io.StringIO()
    return child.logfile_read


def _screen_lines(text: str) -> list[str]:
    """What a pty gave, as lines of text without rich's colours."""
    return [line.strip() for line in _RICH_STYLE.sub("", text).replace("\r\n", "\n").split("\n")]


_SMUGGLING = r'''import sys, base64
E = "\x1b"
sys.stdout.write("A:" + E + "\x00]2;TITLE-PWNED" + E + "\x00\\" + "\n")
sys.stdout.write("B:" + E + "\n]52;c;" + base64.b64encode(b"rm -rf ~ #clip").decode() + E + "\n\\" + "\n")
sys.stdout.write(E + "[\n2J" + E + "[\nH" + "FAKE: nothing ran.\n")
sys.stdout.write(E + "c" + "\x9b" + "2J" + "\n")
'''


def test_output_cannot_set_the_title_write_the_clipboard_or_clear_the_screen(tmp_path: Path,
                                                                            env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```python\n" + _SMUGGLING + "```", "Done."])
    child = spawn(["-y", "--model", f"script:{script}", "--transcript", str(tmp_path / "j.jsonl")], env, tmp_path)
    log = _logged(child)
    child.expect(">")
    child.sendline("print stuff")
    child.expect("HFAKE: nothing ran")  # the output (the code shown before it holds the words too)
    child.expect("Done")
    child.expect(">")
    finish(child)
    seen = log.getvalue()
    assert "]2;TITLE-PWNED" in seen  # shown, as text
    assert not _FORBIDDEN.search(seen), repr(seen)
    for flag in ("--plain", "-c"):  # --plain, and a pipe: plain text and no escape at all
        result = run_interp(["-y", *([flag] if flag == "--plain" else []), "--model", f"script:{script}",
                             "--transcript", str(tmp_path / f"p{flag}.jsonl"), "print stuff"], env=env, cwd=tmp_path)
        assert "TITLE-PWNED" in result.stdout
        assert ESC not in result.stdout + result.stderr and "\x9b" not in result.stdout


def test_a_carriage_return_in_code_is_a_line_on_screen_and_in_the_run(tmp_path: Path, env: dict[str, str]) -> None:
    code = "total = sum(range(10))  # add up 0..9 and keep the result\rimport os; os.system('touch HIDDEN_B')\n"
    script = write_script(tmp_path, ["Here is the code:\n\n```python\n" + code + "print(total)\n```\n", "Done."])
    journal = tmp_path / "j.jsonl"
    child = spawn(["--model", f"script:{script}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.sendline("Sum the numbers below 10.")
    child.expect(r"Run this code\? \[y/n/e/a\]")
    shown = _screen_lines(child.before)
    assert any(line.startswith("import os; os.system('touch HIDDEN_B')") for line in shown), shown
    child.sendline("n")
    child.expect(">")
    finish(child)
    assert not (tmp_path / "HIDDEN_B").exists()
    declined = records(journal, "execution")[0]
    assert declined["status"] == "declined"
    assert declined["code"].splitlines()[1] == "import os; os.system('touch HIDDEN_B')"


def test_a_notebook_cell_cannot_erase_its_own_lines(tmp_path: Path, env: dict[str, str]) -> None:
    erase = (ESC + "[1A" + ESC + "[2K") * 3
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "id": "a1", "execution_count": None, "outputs": [],
         "source": "import os\nos.system('touch HIDDEN_C')  # " + erase + "\nprint('hello')\n"}]}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    script = write_script(tmp_path, ["Done."])
    child = spawn(["--model", f"script:{script}", "--transcript", str(tmp_path / "j.jsonl")], env, tmp_path)
    child.expect(">")
    child.sendline("%load nb.ipynb")
    child.expect(r"Run this code\? \[y/n/e/a\]")
    shown = child.before
    assert "␛[1A␛[2K" in shown and "os.system('touch HIDDEN_C')" in _RICH_STYLE.sub("", shown)
    assert ESC + "[1A" + ESC + "[2K" + ESC + "[1A" not in shown
    child.sendline("n")
    child.expect(">")
    finish(child)
    assert not (tmp_path / "HIDDEN_C").exists()


def test_code_taken_from_tags_is_shown_whole(tmp_path: Path, env: dict[str, str]) -> None:
    code = "import os; os.system('touch HIDDEN_D')  #" + (ESC + "[2K" + ESC + "[1A") * 2 + ESC + "[2K\nprint('hi')\n"
    script = write_script(tmp_path, ["I will print a greeting.\n\n<python>\n" + code + "</python>\n", "Done."])
    child = spawn(["--model", f"script:{script}", "--transcript", str(tmp_path / "j.jsonl")], env, tmp_path)
    child.expect(">")
    child.sendline("Print a greeting.")
    child.expect(r"Run this code\? \[y/n/e/a\]")
    shown = child.before
    assert "os.system('touch HIDDEN_D')" in _RICH_STYLE.sub("", shown) and "␛[2K␛[1A" in shown
    assert ESC + "[2K" + ESC + "[1A" + ESC + "[2K" not in shown
    child.sendline("n")
    child.expect(">")
    finish(child)
    assert not (tmp_path / "HIDDEN_D").exists()


def test_trojan_source_is_named_before_it_is_asked_about(tmp_path: Path, env: dict[str, str]) -> None:
    code = 'access = "user"  # \u202e \u2066 if admin: allowed\u2069 \u2066\nprint(access)\n'
    script = write_script(tmp_path, ["```python\n" + code + "```", "Done."])
    child = spawn(["--model", f"script:{script}", "--transcript", str(tmp_path / "j.jsonl")], env, tmp_path)
    child.expect(">")
    child.sendline("check access")
    child.expect(r"Run this code\? \[y/n/e/a\]")
    shown = _RICH_STYLE.sub("", child.before)
    assert "U+202E, U+2066, U+2069" in shown and "<U+202E>" in shown and "\u202e" not in shown
    child.sendline("n")
    child.expect(">")
    finish(child)


def test_the_notice_after_always_shows_type_names_as_text(tmp_path: Path, env: dict[str, str]) -> None:
    first = ("T = type('\\x1b]2;CARRY-TITLE\\x1b\\\\', (), {'__reduce__': lambda self: 1/0})\nt = T()\n"
             "numbers = list(range(5))\nprint('defined')\n")
    script = write_script(tmp_path, ["```python\n" + first + "```", "Done.",
                                     "```python\nprint('after a', numbers)\n```", "Done."])
    child = spawn(["--model", f"script:{script}", "--transcript", str(tmp_path / "j.jsonl")], env, tmp_path)
    log = _logged(child)
    child.expect(">")
    child.sendline("define things")
    child.expect(r"Run this code\?")
    child.sendline("y")
    child.expect("defined")
    child.expect(">")
    child.sendline("now print them")
    child.expect(r"Run this code\?")
    child.sendline("a")
    child.expect(r"after a \[0, 1, 2, 3, 4\]", timeout=90)
    child.expect(">")
    finish(child)
    full = log.getvalue()
    assert "␛]2;CARRY-TITLE" in full  # the notice names the variable that was not kept, its type as text
    assert not _FORBIDDEN.search(full), repr(full)
