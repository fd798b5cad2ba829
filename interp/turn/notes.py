"""The notes after a run: the facts of a clean run, or of a shell command that failed, for the session's rules of
phase "after_run" (interp/rules/notes/), and the texts of those that fire, in order.

What the rules need beyond the run is kept here across runs: the turn's request as typed and as sent, and this turn's
clean code by language (a rule of the request's words is met by any clean step of the turn).
"""

from __future__ import annotations

from interp.common.events import ExecutionDone
from interp.rules import Engine, Facts
from interp.rules.facts import Evaluate
from interp.running.packages import can_import


class Notes:
    """The notes of one session, said by its rules (`engine`, Session.rules); `evaluate` is the kernel's
    user_expressions (Session.evaluate)."""

    def __init__(self, engine: Engine, evaluate: Evaluate) -> None:
        self.engine = engine
        self._evaluate = evaluate
        self._typed = self._sent = ""
        self._clean: dict[str, list[str]] = {}  # the code of this turn's clean runs, by language
        self._shown: list[str] = []  # what this turn's clean runs printed

    def start(self, typed: str, sent: str) -> None:
        """A new turn: its request as typed and as sent (with the previews of the files it names)."""
        self._typed, self._sent, self._clean, self._shown = typed, sent, {}, []

    def after(self, done: ExecutionDone) -> list[str]:
        """The notes for a run: a clean one, or a shell command that failed, whose traps are said too (a grep that
        matched nothing ends with exit status 1)."""
        clean = done.status == "ok"
        if not clean and not (done.status == "error" and done.language == "shell"):
            return []
        if clean:
            self._clean.setdefault(done.language, []).append(done.code)
        facts = Facts(code=done.code, language=done.language, output=done.output, error=done.error or "",
                      failed=not clean, typed=self._typed, sent=self._sent,
                      clean=tuple(self._clean.get(done.language, ())), shown=tuple(self._shown),
                      evaluate=self._evaluate, importable=can_import(self._evaluate))
        if clean:
            self._shown.append(done.output)
        return [fired.text for fired in self.engine.run("after_run", facts)]
