"""Code that ran a changed copy of a script the request named, and left the file as it was.

Asked to fix stats.py and shown it (attach.py), the 1.5B ran a corrected copy in the kernel and answered from its
output; the file stayed broken (the hard tier's fix tasks, both seeds), whether the preview said in words or showed
in a block where the corrected file goes. What it did is a fact interp can see: the code that ran resembles the
script, does not name it, and the file on disk is unchanged. So, when the request asks for a change (fix, edit,
change, ...), the user is told, by a notice: the model's answer ("the average is now correct") would have them
believe the file is fixed. The model was told too, with its code inside a block that writes the file and runs it,
to copy; it answered from the output all the same (0 of 6: fix_average and fix_types, seeds 7 and 8, the note in
two wordings), so that note is gone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

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


def _lines(text: str) -> list[str]:
    """The non-blank lines, stripped: compared line by line (by characters, a 13 KB copy took 24 s)."""
    return [line.strip() for line in text.splitlines() if line.strip()]
