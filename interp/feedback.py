"""What the model is told about its code's executions: the output or the error, and what helps it repair.

Beyond the plain output and error (prompts/output.md, error.md): a hint for a misnamed variable or file, a module
never imported or its short name, data the request named in a file and the code never read, or a value that is not a
number (hints.py); what the failing line's parts held when it failed (probe.py); what the names a run that printed
nothing set hold (values.py); verify mode's messages (verify.py): the request for checks of untested functions, a
failed check told by its values alone, and checks that passed said in words rather than as an empty output; and the
same for the request's own examples run as checks (examples.py), which are right by definition.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from interp import hints, library_help, probe, textclean
from interp.events import ExecutionDone
from interp.packages import importable
from interp.prompts import Prompts
from interp.values import Seen
from interp.verify import failed_check, has_asserts


class Feedback:
    """Composes feedback messages for one session; it remembers the names the session's clean code defined."""

    def __init__(self, prompts: Prompts, verify: bool, cwd: Callable[[], Path] = Path.cwd,
                 evaluate: Callable[[dict[str, str]], dict[str, str]] = lambda expressions: {}) -> None:
        self.prompts = prompts
        self.verify = verify
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
            extra = [self._hint(done.error, done.code), self._probe(done.error) if python else
                     hints.grep_none(done.code, done.output, done.error, self.prompts.hints)]
            error = textclean.for_repair(done.error) if python else done.error
            return self.prompts.feedback(done.output, error, done.language,
                                         "\n\n".join(filter(None, extra)) or None)
        if python and done.status == "ok":
            self._names |= hints.defined_names(done.code)
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

    def _hint(self, error: str, code: str) -> str | None:
        text = self.prompts.hints
        cwd = functools.cache(self._cwd)  # a round trip to the kernel: asked once, and only by the hints that read it
        return (self._library(error) or hints.unimported_module(error, cwd, text)
                or hints.alias(error, self._importable, self._files, text)
                or hints.file_as_name(error, cwd, text)
                or hints.data_in_file(error, code, sorted(self._names), self._files, text)
                or hints.missing_name(error, lambda: sorted(self._names), text)
                or hints.missing_file(error, cwd(), text) or hints.unreadable_number(error, text)
                or hints.one_pass(error, text) or hints.missing_key(error, text)
                or hints.load_of_name(error, text) or hints.string_expected(error, text)
                or hints.time_format(error, text) or hints.strptime_regex(error, code, text)
                or hints.misplaced_attribute(error, code, text) or hints.writer_columns(error, code, text)
                or hints.closed_file(error, code, self._files, text)
                or hints.data_as_code(error, code, self._files, cwd, text))

    def _library(self, error: str) -> str | None:
        """Help read from the kernel about a library call that failed (library_help.py); before the others, which
        speak of the standard library's ways."""
        text = self.prompts.hints
        return (library_help.call_help(error, self._evaluate, text["library_call"])
                or library_help.attribute_help(error, self._evaluate, text["library_attribute"])
                or library_help.frame_help(error, self._evaluate, text["library_key"], text["library_dtypes"]))

    def _importable(self, module: str) -> bool:
        return bool(importable(self._evaluate, [module]))

    def _probe(self, error: str) -> str | None:
        line = probe.failing_line(error)
        codes = probe.parts(line) if line else []
        held = probe.described(self._evaluate(probe.expressions(codes)), codes) if codes else ""
        return self.prompts.probe.safe_substitute(values=held) if held else None
