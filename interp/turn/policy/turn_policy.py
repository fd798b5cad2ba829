"""The retry and stop rules of one turn, as a small pure object: fed with the model's replies and the results of
the executions, it says what the session does next. No model, no kernel, no I/O. It composes the turn's parts: its
budget (attempts.py), its schedule for drawing new versions of a function (drawing.py), the screening of replies
(the on_reply rules of interp/rules/replies/, run by the rule engine) and the checks its code is run against
(checking.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from interp.common.events import ExecutionDone, Notice
from interp.common.extract import CodeBlock
from interp.models.base import NOTHING_AHEAD, Ahead, GenParams
from interp.rules import Engine, answer_form, replies
from interp.rules.answer_form import Part
from interp.rules.notes.output import places_asked
from interp.rules.replies import ReplyFacts, answers_read
from interp.turn.policy.actions import End, Nudge, Resample, Run, StepEnd
from interp.turn.policy.attempts import STUCK_REPEATS, Attempts, retry_params
from interp.turn.policy.checking import Checking
from interp.turn.policy.drawing import DRAW_GRACE, Drawing, opened
from interp.turn.policy.screening import RESAMPLES, Screening
from interp.versions.examples import Example
from interp.versions.fresh import FRESH_TEMPERATURE, failed_function
from interp.versions.verify import checks_in, checks_passed, failed_check

__all__ = ["DRAW_GRACE", "FRESH_TEMPERATURE", "RESAMPLES", "RESAMPLE_TEMPERATURE", "STUCK_REPEATS", "Asked", "End",
           "Nudge", "Resample", "Run", "StepEnd", "TurnPolicy", "answers_read", "opened", "retry_params"]

RESAMPLE_TEMPERATURE = 1.0


@dataclass(frozen=True)
class Asked:
    """What the on_reply rules read of the request, read once as the turn begins. `typed`: the request as typed;
    `files`: the files it names, as named, with their kinds; `described`: how interp described each file it previewed
    ("text, 9 lines, 58 bytes; whole below", attach.py); `given`: the code of the request's own blocks (the previews
    and hints); `shown`: the conversation so far, the request as sent (with its previews) last; `examples_read`: the
    few-shot examples' answers the model reads, each with what its example showed before it; `answer_parts`: the
    @name[...] parts it asks for, with what it says of their values (answer_form.parts); `held`: what the kernel held
    (state_view.py); `printed`: what earlier code printed, as the model was told it."""

    typed: str = ""
    files: list[tuple[str, str]] = field(default_factory=list)
    described: list[str] = field(default_factory=list)
    given: set[str] = field(default_factory=set)
    shown: str = ""
    examples_read: list[tuple[str, str]] = field(default_factory=list)
    answer_parts: list[Part] = field(default_factory=list)
    held: list[tuple[str, str, str]] = field(default_factory=list)
    printed: list[str] = field(default_factory=list)


@dataclass
class TurnPolicy:
    """One turn's rules. `max_attempts` and `max_steps`: its budget (attempts.py); `candidates`, `draw_seconds`,
    `clock` and `waiting`: its schedule for new versions of a function (drawing.py); `verify`, `examples` and `stubs`:
    what its code is checked against (checking.py). `reflect`: ask for the cause of a failure from the second in a
    row. `opening`: how a reply the model writes from the request alone (its first, and each new version) begins.
    `rules`: the engine that screens each reply with the on_reply rules (interp/rules/replies/; a session gives its
    own, which journals what fired); `asked`: what those rules read of the request; `screening`: what they asked of
    the turn so far (screening.py)."""

    max_attempts: int = 3
    max_steps: int = 10
    reflect: bool = False
    verify: bool = False
    examples: list[Example] = field(default_factory=list)
    candidates: int = 0
    draw_seconds: float = 0
    clock: Callable[[], float] = time.monotonic
    stubs: list[str] = field(default_factory=list)
    opening: str = ""  # how a reply written from the request alone begins (examples.opening)
    waiting: Callable[[], bool] = lambda: False
    asked: Asked = field(default_factory=Asked)
    rules: Engine = field(default_factory=replies.engine)
    status: Literal["ok", "failed"] = "ok"  # how the latest execution went
    screening: Screening = field(default_factory=Screening)
    _notes: list[str] = field(default_factory=list)  # interp's notes in this turn
    _outputs: list[str] = field(default_factory=list)  # what this turn's clean runs printed
    _succeeded: set[tuple[str, str]] = field(default_factory=set)
    _failure: tuple[str, str] | None = None  # the failed code and its error's last line
    _failure_key: tuple[str, str] = ("", "")  # what makes a failure the same again (STUCK_REPEATS)
    attempts: Attempts = field(init=False)
    schedule: Drawing = field(init=False)
    checks: Checking = field(init=False)

    def __post_init__(self) -> None:
        self.attempts = Attempts(self.max_attempts, self.max_steps)
        self.schedule = Drawing(self.candidates, self.draw_seconds, self.clock, self.waiting)
        self.checks = Checking(self.verify, self.examples, self.stubs)

    def params(self, base: GenParams) -> GenParams:
        params = retry_params(base, self.attempts.failures)
        if self.screening.answer_opening:
            return opened(params, self.screening.answer_opening)
        if self.schedule.active:
            # A version drawn again because it repeated one that ran (Resample) is drawn like any other: it takes a
            # version decoded together with the last one, which costs no time, where a hotter draw alone decodes a
            # whole new version.
            return opened(replace(params, temperature=FRESH_TEMPERATURE), self.opening)
        if self.screening.resampling:
            return replace(params, temperature=max(params.temperature, RESAMPLE_TEMPERATURE))
        return opened(params, self.opening) if not self.attempts.steps and not self.screening.nudged else params

    def ahead(self) -> Ahead:
        """The replies the next call asks to be decoded beside its own (models/together.py): while new versions are
        drawn, as many as together() allows of those that may still be drawn; else none."""
        draws = self.schedule
        return Ahead(together=draws.together(self.candidates - draws.drawn + 1)) if draws.active else NOTHING_AHEAD

    def noted(self, notes: list[str]) -> None:
        """interp's notes on a clean run's output (notes.py): it doubted what the step's code did."""
        self._notes.extend(notes)
        self.screening.doubted = self.screening.doubted or bool(notes)

    def on_reply(self, reply: str, blocks: list[CodeBlock]) -> End | Nudge | Resample | Run:
        """What a reply leads to: the first on_reply rule that fires on it (interp/rules/replies/) says it is no
        answer and no new code; else its new code runs, or the turn ends on it."""
        doubted = self.screening.next_reply()
        asked, screening = self.asked, self.screening
        facts = ReplyFacts(reply=reply, files=asked.files, blocks=blocks, status=self.status,
                           failing=self._failure[0] if self._failure is not None else None, succeeded=self._succeeded,
                           outputs=self._outputs, notes=self._notes, described=asked.described, given=asked.given,
                           shown=asked.shown, examples_read=asked.examples_read, answer_parts=asked.answer_parts,
                           drawing=self.schedule.active, doubted=doubted, steps=self.attempts.steps,
                           nudged=screening.nudged, formed=screening.formed, opened=screening.opened,
                           redraws=screening.redraws, typed=asked.typed, held=asked.held, printed=asked.printed)
        fired = self.rules.run("on_reply", facts, first=True)
        return self.screening.act(fired[0], self.status) if fired else self._settled(facts)

    def _settled(self, facts: ReplyFacts) -> End | Run:
        """A reply no rule screened out: its new code runs; code that all ran cleanly before is not run again."""
        if facts.fresh:
            self._failure = None
            return Run(facts.fresh)
        if facts.blocks and self.status == "failed" and self._failure is not None:
            # Code that ran cleanly before, sent again though a run since failed (most often a check of that very
            # function): not run again, but a failed attempt, told so; attempts and stuck rules bound it.
            return Run([], unchanged=self._failure[1])
        if facts.blocks:
            # The model stands by code that already worked: it is not run again, and the turn ends as it is.
            return End(self.status, Notice("The model repeated code that already ran; not running it again."))
        return End(self.status)

    def on_execution(self, block: CodeBlock, done: ExecutionDone) -> End | bool:
        """After one block ran: End when the turn ends now, else whether to run the reply's next block."""
        if done.status in ("declined", "skipped"):
            return End(done.status)
        if done.status != "ok":
            self.checks.executed(block, done)
            self._failed(block, done)
            return False
        if block.checks:
            self.schedule.scored(checks_in(block.code), "\n".join(self.checks.ran))
        self.checks.executed(block, done)
        self.status = "ok"
        self._outputs.append(done.output)
        self._succeeded.add((block.language, block.code))
        return True

    def _failed(self, block: CodeBlock, done: ExecutionDone) -> None:
        """A block failed: the failure stands (what makes it the same again, and what a new version is drawn for)."""
        self.status = "failed"
        error_lines = (done.error or "").strip().splitlines()
        self._failure = (done.code, error_lines[-1] if error_lines else "")
        # A failed example is the same failure only for the same function: its checks are the same every time.
        self._failure_key = ("\n".join([*self.checks.ran, done.code]) if block.checks else done.code, self._failure[1])
        # A function that fails the request's example (a wrong value, or an error raised on it) and code that
        # defines it and fails (does not parse, or raises) are set aside (fresh.py); other errors are repaired in
        # view.
        error = done.error or ""
        self.schedule.set_aside((failed_check(error) or self._failure[1] or done.status) if block.checks
                                else failed_function(done.code, error, self.checks.example_calls), block.checks)
        if block.checks:
            self.schedule.scored(checks_passed(done.error or "", block.code), "\n".join(self.checks.ran))

    def end_step(self) -> StepEnd:
        """After a reply's blocks ran (up to the first failure): the feedback's extras, and whether the turn stops."""
        failed = self.status == "failed"
        ran, answered = self.checks.end_step(failed, self._succeeded)
        repeats = self.attempts.count(failed, self._failure_key if self._failure is not None else None)
        draws = self.schedule
        # A turn that draws versions is bounded by candidates and draw_seconds: a version failing the same way again
        # is one draw spent, not a stuck turn.
        stuck = repeats >= STUCK_REPEATS and not draws.sets_aside
        late = draws.next(failed)
        out_of_attempts = (self.attempts.spent and not draws.active) or (late and bool(draws.drawn))
        step = StepEnd(failed, stuck_hint=1 < repeats < STUCK_REPEATS and not draws.active,
                       reflect=self.reflect and self.attempts.failures > 1
                       and not (stuck or out_of_attempts or draws.active),
                       verify=self.checks.to_verify(failed), fresh=draws.failure if draws.active else None,
                       fresh_on_example=draws.active and draws.on_example)
        if stuck:
            step.stop = self.attempts.stuck(repeats)
        elif out_of_attempts and draws.drawn and draws.failure is not None:
            step.stop = draws.spent(late)
        elif out_of_attempts:
            step.stop = self.attempts.exhausted()
        elif answered:
            step.written, step.stop = self.checks.written(ran)
        elif not failed and not self.screening.doubted and answer_form.answered(
                self.asked.answer_parts, self._outputs, places_asked(self.asked.typed)):
            step.stop = End("ok", Notice("The output gives every part of the answer in the form the request asks "
                                         "for; the turn ends there."))
        else:
            step.stop = self.attempts.bounded(draws.drawn, self.status)
        return step
