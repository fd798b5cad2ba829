"""What a turn's code is checked against: the model's own asserts (verify mode asks for them, and runs those that
failed again on the next fix), the request's examples (run as asserts), and whether the request's stubs are written."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from interp.common.events import ExecutionDone, Notice
from interp.common.extract import CodeBlock
from interp.turn.policy.actions import End
from interp.versions.examples import Example, checks, defined_functions, definitions
from interp.versions.verify import has_asserts, untested


@dataclass
class Checking:
    """One turn's checks. `verify`: ask once for checks of each function that the code defines and never calls
    (verify.py). `examples`: the request's examples, run as checks whenever a step defines a function they call
    (examples.py). `stubs`: the functions the request hands over to be written (examples.stubs); once the turn's code
    defines them all and the request's examples pass (or, when no example calls them, once code that defines them ran
    without an error), the turn ends there, the function being the answer."""

    verify: bool = False
    examples: list[Example] = field(default_factory=list)
    stubs: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)  # the Python code that ran cleanly in this step
    _verified: set[str] = field(default_factory=set)
    _checks: str | None = None  # the latest checks (asserts) that failed: run again on the next fix
    _checked: bool = False  # this step ran checks
    _examples_passed: bool = False  # this step ran the request's examples, and they passed

    def executed(self, block: CodeBlock, done: ExecutionDone) -> None:
        """A block ran (or failed): the model's asserts it held, the request's examples it passed, its clean code."""
        if self.verify and block.language == "python" and not block.checks and has_asserts(done.code):
            self._checked = True
            self._checks = done.code if done.status != "ok" else None
        if done.status != "ok":
            return
        self._examples_passed = self._examples_passed or block.checks
        if block.language == "python":
            self.ran.append(done.code)

    def checks_to_rerun(self) -> CodeBlock | None:
        """After a reply's blocks all ran cleanly: the checks that failed before, when this reply changed code but
        brought no checks of its own (Reflexion keeps its tests: a fix is tested against them)."""
        if self._checks is None or self._checked or not self.ran:
            return None
        return CodeBlock("python", self._checks)

    def request_checks(self) -> CodeBlock | None:
        """After a reply's blocks all ran cleanly: asserts made from the request's examples that call a function this
        reply's code defined. Those functions need no checks from the model (verify mode): the user gave them."""
        defined = set().union(*map(defined_functions, self.ran)) if self.examples else set()
        code = checks(self.examples, defined)
        if code is None:
            return None
        self._verified |= defined & self.example_calls
        return CodeBlock("python", code, checks=True)

    @property
    def example_calls(self) -> set[str]:
        """The functions the request's examples call."""
        return {name for example in self.examples for name in example.calls}

    @property
    def untried(self) -> bool:
        """No example of the request calls one of its stubs: nothing but the model's own asserts can test them."""
        return not self.example_calls & set(self.stubs)

    def end_step(self, failed: bool, succeeded: Collection[tuple[str, str]]) -> tuple[str, bool]:
        """A step ends: its clean Python code, and whether it answered the request (answered). `succeeded`: each
        (language, code) that ran cleanly in the turn."""
        ran = "\n".join(self.ran)
        answered = self._answered(failed, ran, succeeded)
        self._checked = self._examples_passed = False
        if answered:
            self._verified.update(self.stubs)  # the turn ends here: verify mode asks for no checks of them
        return ran, answered

    def _answered(self, failed: bool, ran: str, succeeded: Collection[tuple[str, str]]) -> bool:
        """Whether the step's code (`ran`, what ran cleanly) completed the request's stubs and passed its examples, or
        defined a stub no example calls: the turn's answer is the function. Asked for a reply after that, a model
        writes prose walking through the function, or the function again, rewritten: time spent on nothing the
        examples had not shown. With no example to run, it may write a docstring's example line as code (a name the
        stub does not have), then the function again."""
        if failed or not self.stubs or not set(self.stubs) <= set().union(
                *(defined_functions(code) for language, code in succeeded if language == "python")):
            return False
        return self._examples_passed or (self.untried and bool(set(self.stubs) & defined_functions(ran)))

    def to_verify(self, failed: bool) -> list[str]:
        """The functions this step's clean code left untested and not yet asked about in this turn; the step's code
        is done with."""
        code, self.ran = "\n".join(self.ran), []
        if failed or not self.verify:
            return []
        names = [name for name in untested(code) if name not in self._verified]
        self._verified.update(names)
        return names

    def written(self, ran: str) -> tuple[str | None, End]:
        """The turn's stubs are written (`ran`, the step's clean code): their imports and definitions, to keep, and
        the end of the turn."""
        written = definitions(ran)
        names, one = ", ".join(self.stubs), len(self.stubs) == 1
        return written if written and set(self.stubs) <= defined_functions(written) else None, End("ok", Notice(
            f"{names} {'is' if one else 'are'} written and {'runs' if one else 'run'} without an error; no "
            f"example in your request calls {'it' if one else 'them'}." if self.untried else
            f"Every example in your request gives the value it shows: {names} {'is' if one else 'are'} written."))
