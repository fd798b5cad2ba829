"""Programs that interp runs on its model and kernel: CoRE (natural-language steps) and PDL (YAML prompt programs).

`load(path)` parses and checks a program (raising ProgramError with one line naming the file and line); the
executor in run.py runs the resulting graph on a session.
"""

from __future__ import annotations

from pathlib import Path

from interp.programs import core, pdl
from interp.programs.graph import Graph, ProgramError, describe
from interp.programs.limits import MAX_PROGRAM_BYTES, read_text

__all__ = ["Graph", "ProgramError", "describe", "language_of", "load"]

EXTENSIONS = {".core": "core", ".pdl": "pdl", ".yaml": "pdl", ".yml": "pdl"}


def language_of(path: Path, text: str) -> str:
    """By extension; otherwise a file with a ':::' step line is CoRE, anything else PDL."""
    if path.suffix.lower() in EXTENSIONS:
        return EXTENSIONS[path.suffix.lower()]
    steps = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return "core" if steps and ":::" in steps[0] else "pdl"


def load(path: Path | str) -> Graph:
    """The checked program in a file; ProgramError (one line naming the file and the line) for anything wrong,
    including a program over the limits in limits.py."""
    path = Path(path)
    try:
        text = read_text(path, MAX_PROGRAM_BYTES)
    except UnicodeDecodeError:
        raise ProgramError(path, 0, "not a program (not UTF-8 text)") from None
    except OSError as exc:
        raise ProgramError(path, 0, f"cannot read it: {exc.strerror}") from None
    front = core if language_of(path, text) == "core" else pdl
    try:
        return front.parse(path, text)
    except RecursionError:  # what the limits on nesting did not foresee, such as deep files within includes
        raise ProgramError(path, 0, "nested too deeply (lists and mappings, with its includes)") from None
