"""The facts rules read: given by the loop, or computed once, lazily, when a rule first asks (a parse of the code, a
round trip to the kernel)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

Evaluate = Callable[[dict[str, str]], dict[str, str]]  # expressions -> their reprs, in the kernel (KernelLike.evaluate)


def _nothing(expressions: dict[str, str]) -> dict[str, str]:
    return {}


@dataclass
class Facts:
    """One moment of a turn, as rules see it. `code`, `language`, `output` and `error`: the execution the phase follows
    (before_run: the code about to run); `reply`: the model's reply (on_reply); `typed` and `sent`: the turn's request
    as the user typed it and as the model got it (with previews); `files`: the files the request named, each as the
    model was told it and its kind (attach.py); `defined`: the names the session's clean code defined; `clean`: this
    turn's code that ran cleanly, in this language, this run's last; `shown`: what this turn's earlier clean runs
    printed, in order; `evaluate`: expressions evaluated in the kernel, running nothing the user sees; `where`: the
    kernel's working directory; `importable`: whether the kernel can import a module.

    `reads` and `writes`: the files the request reads and those it asks to be written (before_run; see
    running/safekeep.sources).

    `failed`: the execution failed (after_run follows a clean run, or a shell command that failed: its traps are said
    even so, since a grep that matched nothing ends with exit status 1)."""

    code: str = ""
    language: str = "python"
    output: str = ""
    error: str = ""
    failed: bool = False
    reply: str = ""
    typed: str = ""
    sent: str = ""
    files: Sequence[tuple[str, str]] = ()
    reads: Sequence[str] = ()
    writes: Sequence[str] = ()
    defined: Callable[[], Sequence[str]] = tuple
    clean: Sequence[str] = ()
    shown: Sequence[str] = ()
    evaluate: Evaluate = _nothing
    where: Callable[[], Path] = Path.cwd
    importable: Callable[[str], bool] = lambda module: False

    @functools.cached_property
    def tree(self) -> ast.Module | None:
        """The code's syntax tree; None for code that is not Python or does not parse."""
        if self.language != "python":
            return None
        try:
            return ast.parse(self.code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None

    @functools.cached_property
    def cwd(self) -> Path:
        """The kernel's working directory, asked once."""
        return self.where()

    @functools.cached_property
    def error_line(self) -> str:
        """The error's last line (`KeyError: 'x'`), or empty."""
        lines = self.error.strip().splitlines()
        return lines[-1] if lines else ""
