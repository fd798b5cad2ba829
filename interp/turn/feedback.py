"""What the model is told about its code's executions: the output or the error, and what helps it repair.

Beyond the plain output and error (prompts/output.md, error.md): the help the session's on_error rules give a failed
execution (interp/rules/errors/: the first that fires, and what the failing line's parts held); what the names a run
that printed nothing set hold (values.py); verify mode's messages (verify.py): the request for checks of untested
functions, a failed check told by its values alone, and checks that passed said in words rather than as an empty
output; and the same for the request's own examples run as checks (examples.py), which are right by definition.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from interp.common import textclean
from interp.common.events import ExecutionDone
from interp.prompts import Prompts
from interp.rules import Engine, Facts
from interp.rules.errors.undefined import defined_names
from interp.rules.values import Seen
from interp.running.packages import can_import
from interp.versions.verify import failed_check, has_asserts


class Feedback:
    """Composes feedback messages for one session; it remembers the names the session's clean code defined. `rules`:
    the session's rules, whose on_error ones help with a failed execution."""

    def __init__(self, prompts: Prompts, verify: bool, rules: Engine, cwd: Callable[[], Path] = Path.cwd,
                 evaluate: Callable[[dict[str, str]], dict[str, str]] = lambda expressions: {}) -> None:
        self.prompts = prompts
        self.verify = verify
        self.rules = rules
        self._cwd = cwd
        self._evaluate = evaluate  # the kernel's user_expressions (KernelLike.evaluate)
        self._names: set[str] = set()
        self._files: list[tuple[str, str]] = []  # the files this turn's request named, and their kinds (attach.py)

    def start(self, files: list[tuple[str, str]]) -> None:
        """A new request, which named these files (each as the model was told it, with its kind)."""
        self._files = files

    def execution(self, done: ExecutionDone, request_checks: bool = False, values: Seen | None = None) -> str:
        """The message for one finished execution; `request_checks`: it ran the request's examples (examples.py);
        `values`: what the names a silent run set hold (values.py)."""
        python = done.language == "python"
        if done.error:
            check = failed_check(done.error) if python and (self.verify or request_checks) else None
            if check and request_checks:
                return self.prompts.request_check_failed.safe_substitute(failure=check)
            if check:
                return self.prompts.check_failed.safe_substitute(failure=check)
            error = textclean.for_repair(done.error) if python else done.error
            return self.prompts.feedback(done.output, error, done.language, self._help(done))
        if python and done.status == "ok":
            self._names |= defined_names(done.code)
            if request_checks:
                return self.prompts.request_checks_passed
            if self.verify and not done.output.strip() and has_asserts(done.code):
                return self.prompts.checks_passed
            if values and not done.output.strip():
                names = " and ".join(values.empty)
                empty = self.prompts.silent_empty.safe_substitute(names=names) if names else ""
                return self.prompts.silent.safe_substitute(values=values.text, empty=empty).rstrip()
        return self.prompts.feedback(done.output, done.error, done.language)

    def ask_for_checks(self, names: list[str]) -> str:
        """Verify mode's request for asserts that test these functions."""
        return self.prompts.verify.safe_substitute(names=", ".join(f"`{name}`" for name in names))

    def _help(self, done: ExecutionDone) -> str | None:
        """What the on_error rules say about a failed execution: the first that fires, and the extra ones."""
        facts = Facts(code=done.code, language=done.language, output=done.output, error=done.error or "",
                      files=self._files, defined=lambda: sorted(self._names), evaluate=self._evaluate,
                      where=self._cwd, importable=can_import(self._evaluate))
        return "\n\n".join(fired.text for fired in self.rules.run("on_error", facts, first=True)) or None
