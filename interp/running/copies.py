"""Code that ran a changed copy of a script the request named, and left the file as it was.

Asked to fix a script it was shown (attach.py), a model often runs a corrected copy in the kernel and answers from its
output, and the file stays broken, however the preview invites it to write the file. What it did is a fact interp
can see: the code that ran resembles the script, does not name it, and the file on disk is unchanged. So, when the
request asks for a change (fix, edit, change, ...), interp saves the change into the file and runs the file
(`save_block`), after a notice and, unless the user runs code without asking, their yes: the request asked for the
file to change. Telling the model to write the file instead (even handing it a block to copy that writes the file and
runs it) leaves the choice with a model that has already answered from the output once; acting on what interp sees
does not. The file's text before the change goes to the journal, so the save loses nothing.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from interp.common.extract import CodeBlock

SIMILAR = 0.6  # SequenceMatcher ratio of the code's lines to the script's: above it, the code is a copy
MAX_BYTES = 16 * 1024  # larger scripts are not watched
_CHANGE = re.compile(r"\b(?:fix(?:es|ed)?|edit|change|update|correct|repair|modify|rewrite|refactor|debug|bug)\b", re.I)


@dataclass(frozen=True)
class Script:
    """A script the request named, as it was when the turn began."""

    path: Path
    name: str  # as the request named it: what the model is told
    text: str


def asks_change(request: str) -> bool:
    """Whether the request's words ask for a change to something (fix, edit, change, update, ...)."""
    return _CHANGE.search(request) is not None


def watch(paths: list[tuple[Path, str]]) -> list[Script]:
    """The scripts among these (path, name as typed) pairs, with their text now; unreadable or large ones left out."""
    found = []
    for path, name in paths:
        try:
            if path.suffix.lower() == ".py" and path.stat().st_size <= MAX_BYTES:
                found.append(Script(path, name, path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return found


def copied(script: Script, code: str) -> bool:
    """Whether this code, which ran cleanly, is a changed copy of the script while the file is as it was."""
    if Path(script.name).name in code or code.strip() == script.text.strip():
        return False  # the code handles the file itself, or ran it as it is
    try:
        unchanged = script.path.read_text(encoding="utf-8") == script.text
    except (OSError, UnicodeDecodeError):
        return False
    return unchanged and SequenceMatcher(None, _lines(code), _lines(script.text)).ratio() >= SIMILAR


def save_block(script: Script, code: str) -> CodeBlock:
    """The Python block that writes this code into the script, by its full path, and runs the script."""
    text = code if code.endswith("\n") else code + "\n"
    path = str(script.path.resolve())
    return CodeBlock("python", f"from pathlib import Path\nPath({path!r}).write_text({_literal(text)}, "
                               f"encoding='utf-8')\n%run {shlex.quote(path)}")


def _literal(text: str) -> str:
    """The text as a Python string literal that reads as the code it holds (a raw triple-quoted string), where one
    can hold it; else its repr."""
    raw = f"r'''{text}'''"
    try:
        if ast.literal_eval(raw) == text:
            return raw
    except (SyntaxError, ValueError):
        pass
    return repr(text)


def _lines(text: str) -> list[str]:
    """The non-blank lines, stripped: compared line by line (by characters, a long copy took seconds)."""
    return [line.strip() for line in text.splitlines() if line.strip()]
