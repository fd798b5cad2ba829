"""The retry and stop rules of one turn, as a small pure object: fed with the model's replies and the results of
the executions, it says what the session does next. No model, no kernel, no I/O."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from typing import Literal

from interp import answer_form
from interp.events import ExecutionDone, Notice, TurnStatus
from interp.examples import Example, checks, defined_functions, definitions
from interp.extract import CodeBlock, prose
from interp.fresh import failed_function
from interp.models.base import ALONE, Batch, GenParams, Message
from interp.values import restated
from interp.verify import checks_passed, failed_check, has_asserts, untested

STUCK_REPEATS = 3  # the same code failing the same way this many times in a turn ends the turn
RETRY_TEMPERATURE_STEP = 0.2
RESAMPLES = 2  # replies per turn that re-sent the failing code unchanged and were drawn again instead of run
RESAMPLE_TEMPERATURE = 1.0
_ONE_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_SAID = re.compile(r"(?<![\w.])(-?\d+(?:\.(\d+))?)(?![\w])")  # a number of a text, and its decimals
COPIED = 0.8  # how alike a reply's text and a note are when the reply copied it (difflib's ratio)
EXAMPLE_RUN = 4  # words in a row of a few-shot answer that a reply copied (copies_example)
_WORD = re.compile(r"[a-z0-9_]+(?:[.-][a-z0-9_]+)*|#")
_FILE_NAME = re.compile(r"[\w-]+\.[a-z]\w{0,4}")
FRESH_TEMPERATURE = 0.8  # a new version drawn after a function failed the request's example (fresh.py)
DRAW_GRACE = 5.0  # seconds past draw_seconds a version being drawn (or asserts asked for, choosing.py) may still write
TOGETHER = 4  # new versions of a function decoded together (models/together.py)
TOGETHER_SECONDS = 15.0  # with less of draw_seconds left, a new version is decoded alone


def copies_note(reply: str, notes: list[str]) -> bool:
    """Whether a reply's text is one of interp's notes, mostly word for word (its `Note:` dropped)."""
    said = " ".join(reply.split()).lower()
    return bool(said) and any(
        SequenceMatcher(None, said, " ".join(note.removeprefix("Note:").split()).lower()).ratio() >= COPIED
        for note in notes)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def copies_example(reply: str, examples: list[tuple[str, str]], shown: list[str]) -> str | None:
    """What a reply's text copied from a few-shot example the model reads before the conversation: EXAMPLE_RUN words
    in a row of its answer, among them a word of what the example showed before it (its request, code and output)
    that nothing in `shown` holds (the conversation, the turn's outputs and notes), or a file name it showed so.
    `examples`: each answer, with what its example showed. A small model may answer with its example's answer, or a
    piece of it spliced onto the request ("notes.md has 11 prime numbers below 50."): words that are no fact about
    this conversation. An answer to a request like the example's, in its words, is an answer."""
    said = f" {' '.join(_words(reply))} "
    seen = set(_words(" ".join(shown)))
    for answer, showed in examples:
        own = set(_words(showed)) - seen
        words = _words(answer)
        for i in range(len(words) - EXAMPLE_RUN + 1):
            stretch = words[i:i + EXAMPLE_RUN]
            if own & set(stretch) and f" {' '.join(stretch)} " in said:
                return " ".join(stretch)
        named = [word for word in own if _FILE_NAME.fullmatch(word) and f" {word} " in said]
        if named:
            return named[0]
    return None


def answers_read(prefix: list[Message]) -> list[tuple[str, str]]:
    """The answers of the few-shot examples in a prompt's prefix (its assistant messages with no code), each with what
    its example showed before it (copies_example)."""
    found: list[tuple[str, str]] = []
    showed: list[str] = []
    for message in prefix[1:]:
        if message["role"] == "assistant" and "```" not in message["content"]:
            found.append((message["content"], "\n".join(showed)))
            showed = []
        else:
            showed.append(message["content"])
    return found


def stale_answer(reply: str, outputs: list[str], notes: list[str]) -> str | None:
    """When the last clean run printed one number and the reply's text states none that agrees with it, but states one
    that an earlier output or note of the turn showed: that last number (the answer is stale). A model that corrects
    its code over several runs (a value unrounded, then rounded) may still answer with the value of a run before."""
    last = outputs[-1].strip() if outputs else ""
    if not _ONE_NUMBER.fullmatch(last):
        return None
    value = float(last)
    said = [(float(n), len(places)) for n, places in _SAID.findall(prose(reply).replace(",", ""))]
    earlier = {float(n) for text in [*outputs[:-1], *notes] for n, _ in _SAID.findall(text)}
    if any(math.isclose(n, value, rel_tol=1e-9) or math.isclose(n, round(value, places), rel_tol=1e-9)
           for n, places in said):
        return None
    return last if any(n in earlier for n, _ in said) else None


def retry_params(base: GenParams, failures: int) -> GenParams:
    """Each failed attempt in a row raises the temperature, so a retry is not the same sample again. Speculative
    decoding (when `base` allows it) is for retries only: a repair re-types its block and decoded 1.6x faster with
    drafts, while fresh replies, which drafts rarely match, decoded at 0.90-0.94x (scripts/bench.py --turns)."""
    if not failures:
        return replace(base, speculative=False)
    return replace(base, temperature=min(base.temperature + RETRY_TEMPERATURE_STEP * failures, 1.0))


def opened(params: GenParams, opening: str) -> GenParams:
    """The params of a reply that begins with `opening` (examples.opening): it writes only new text, which drafts copied
    from earlier text rarely match, so it decodes a token at a time (drafts that are mostly rejected cost more time
    than they save)."""
    return replace(params, opening=opening, speculative=params.speculative and not opening)


@dataclass
class End:
    """The turn ends with this status, after this notice if there is one."""

    status: TurnStatus
    notice: Notice | None = None


@dataclass
class Nudge:
    """Ask the model once more, with a note: its reply was empty ("empty"), or it answered a request about a file it
    was shown a preview of before any code ran, a guess from the preview ("unran"), or its final answer leaves out
    parts of the form the request asks for ("unformed", answer_form.py)."""

    why: Literal["empty", "unran", "unformed"] = "empty"
    missing: list[str] = field(default_factory=list)  # "unformed": the @name[...] parts the answer leaves out


Why = Literal["failed", "doubted", "copied", "example", "stale"]


@dataclass
class Resample:
    """The reply is dropped and the model asked again, at RESAMPLE_TEMPERATURE. `why`: "failed", its code is the code
    that just failed, unchanged, and running it would only fail again (small models often re-send the code that just
    failed unchanged, even told so by the stuck hint and at a raised temperature); "doubted", its code is the code that
    ran just before, unchanged, though interp's note doubted that run's output (notes.py); "copied", its text is one of
    interp's notes of this turn, or holds its preview of a file the request names, copied as if it were the answer;
    "example", its text copies the answer of a few-shot example (copies_example); "stale", its text answers with a
    number an earlier run or note showed, and not the one the last run printed (stale_answer). `unseen`: the turn's
    second "failed" or "doubted" draw, after one drawn again with the code in view sent it back once more: drawn from
    the request and what that code was told, without the code (session._redrawn)."""

    why: Why = "failed"
    unseen: bool = False


@dataclass
class Run:
    """Run these blocks of the reply, in order."""

    blocks: list[CodeBlock]
    unchanged: str | None = None  # no new code after a failure: the error it leaves standing, told to the model


@dataclass
class StepEnd:
    """What follows a reply's executions: the feedback's extras, and whether the turn stops."""

    failed: bool  # the feedback reports an error
    stuck_hint: bool = False  # the same failure came back: suggest a different way
    reflect: bool = False  # ask the model for the failure's cause first
    verify: list[str] = field(default_factory=list)  # functions that ran untested: ask the model for checks
    fresh: str | None = None  # the example the step's function failed, or its code's error: draw a new version
    fresh_on_example: bool = False  # that failure was the request's example's, not the code's own
    written: str | None = None  # the stubs are written and pass the examples: the step's imports and definitions
    stop: End | None = None


@dataclass
class TurnPolicy:
    """One turn's counts. `max_attempts`: failed executions in a row before the turn stops; `max_steps`: replies
    whose code ran, the versions drawn apart (`candidates` and `draw_seconds` bound those); 0 means no limit for
    either. `verify`: ask once for checks of each function that the code defines and never calls (verify.py).
    `examples`: the request's examples, run as checks whenever a step defines a function they call (examples.py).
    `candidates`: new versions drawn from the request alone after a function fails one of them, or its code fails
    (fresh.py); such a failure does not end the turn while versions are left. `draw_seconds`: no new version is
    drawn once the turn has run this long (0: no limit); `clock` tells how long it has run; `waiting` whether a
    version decoded beside the last one drawn is there to take (models/together.py), which is tried even then,
    until DRAW_GRACE more seconds are over.
    `opening`: how a reply the model writes from the request alone (its first, and each new version) begins.
    `stubs`: the functions the request hands over to be written (examples.stubs); once the turn's code defines them
    all and the request's examples pass (or, when no example calls them, once code that defines them ran without an
    error), the turn ends there, the function being the answer."""

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
    # How interp described each file it previewed in the request ("text, 9 lines, 58 bytes; whole below", attach.py)
    described: list[str] = field(default_factory=list)
    given: set[str] = field(default_factory=set)  # the code of the request's own blocks: the previews and hints
    shown: str = ""  # the conversation so far, the request as sent (with its previews) last
    # The few-shot examples' answers the model reads, each with what its example showed before it (copies_example)
    examples_read: list[tuple[str, str]] = field(default_factory=list)
    answer_names: list[str] = field(default_factory=list)  # the @name[...] parts the request asks for
    status: Literal["ok", "failed"] = "ok"  # how the latest execution went
    failures: int = 0  # failed steps in a row
    steps: int = 0
    nudged: bool = False
    formed: bool = False  # asked once for the answer's missing parts
    resamples: int = 0
    drawn: int = 0  # new versions drawn after a failed example or a function that did not parse
    _resampling: bool = False
    _in_view: set[str] = field(default_factory=set)  # the reasons a reply was drawn again, with the code in view
    _doubted: bool = False  # interp's notes doubted the output of the step that just ran (noted)
    _notes: list[str] = field(default_factory=list)  # interp's notes in this turn
    _outputs: list[str] = field(default_factory=list)  # what this turn's clean runs printed
    _drawing: bool = False
    _succeeded: set[tuple[str, str]] = field(default_factory=set)
    _seen_failures: dict[tuple[str, str], int] = field(default_factory=dict)
    _failure: tuple[str, str] | None = None  # the failed code and its error's last line
    _failure_key: tuple[str, str] = ("", "")  # what makes a failure the same again (STUCK_REPEATS)
    _draw_for: str | None = None  # the standing failure sets the function aside (fresh.py): the example or the error
    _draw_on_example: bool = False  # it is the request's example's
    _versions: list[tuple[int, str]] = field(default_factory=list)  # each function the examples ran on: passed, code
    _ran: list[str] = field(default_factory=list)  # the Python code that ran cleanly in this step
    _verified: set[str] = field(default_factory=set)
    _checks: str | None = None  # the latest checks (asserts) that failed: run again on the next fix
    _checked: bool = False  # this step ran checks
    _examples_passed: bool = False  # this step ran the request's examples, and they passed
    _started: float = field(init=False)

    def __post_init__(self) -> None:
        self._started = self.clock()

    def params(self, base: GenParams) -> GenParams:
        params = retry_params(base, self.failures)
        if self._drawing:
            # A version drawn again because it repeated one that ran (Resample) is drawn like any other: it takes a
            # version decoded together with the last one, which costs no time, where a hotter draw alone decodes a
            # whole new version.
            return opened(replace(params, temperature=FRESH_TEMPERATURE), self.opening)
        if self._resampling:
            return replace(params, temperature=max(params.temperature, RESAMPLE_TEMPERATURE))
        return opened(params, self.opening) if not self.steps and not self.nudged else params

    def batch(self) -> Batch:
        """The replies the next call asks to be decoded beside its own (models/together.py): while new versions are
        drawn, as many as together() allows of those that may still be drawn; else none."""
        return Batch(together=self.together(self.candidates - self.drawn + 1)) if self._drawing else ALONE

    def noted(self, notes: list[str]) -> None:
        """interp's notes on a clean run's output (notes.py): it doubted what the step's code did."""
        self._notes.extend(notes)
        self._doubted = self._doubted or bool(notes)

    def on_reply(self, reply: str, blocks: list[CodeBlock]) -> End | Nudge | Resample | Run:
        self._resampling = False
        doubted, self._doubted = self._doubted, False
        if not reply.strip() and not self.nudged:
            # An empty reply is not an answer: ask once more.
            self.nudged = True
            return Nudge()
        if not blocks and self.described and not self.steps and not self.nudged:
            # About a file the request names, an answer before any code ran is read off the preview, which may be
            # cut short: a guess. Told that and asked for code that opens the file, a model writes such code; drawn
            # again as it was, it mostly guesses again.
            self.nudged = True
            return Nudge("unran")
        if not blocks and self.steps and self.answer_names and not self.formed and (
                left := answer_form.missing("\n".join([*self._outputs, reply]), self.answer_names)):
            self.formed = True
            return Nudge("unformed", left)
        if self.status == "ok" and blocks and all(
                b.inferred and b.language == "python" and restated(b.code, self._outputs) for b in blocks):
            # An answer written as code without fences, printing only what a clean run of the turn printed (a
            # `print('HELLO WORLD')` after 'hello world'.upper() printed it): it is the answer, not code. Run, it
            # would draw the typed-text note, and the model may then change a right answer.
            return End(self.status)
        fresh = list({(b.language, b.code): b for b in blocks if (b.language, b.code) not in self._succeeded}.values())
        why = self._redraw(reply, blocks, fresh, doubted)
        if why and self.resamples < RESAMPLES:
            self.resamples += 1
            self._resampling = True
            unseen = why in ("failed", "doubted") and why in self._in_view
            self._in_view.add(why)
            self._doubted = why == "doubted"  # the note stands for the reply drawn again
            return Resample(why, unseen)
        if fresh:
            self._failure = None
            return Run(fresh)
        if blocks and self.status == "failed" and self._failure is not None:
            # Code that ran cleanly before, sent again though a run since failed (most often a check of that very
            # function): not run again, but a failed attempt, told so; attempts and stuck rules bound it.
            return Run([], unchanged=self._failure[1])
        if blocks:
            # The model stands by code that already worked: it is not run again, and the turn ends as it is.
            return End(self.status, Notice("The model repeated code that already ran; not running it again."))
        return End(self.status)

    def _redraw(self, reply: str, blocks: list[CodeBlock], fresh: list[CodeBlock], doubted: bool) -> Why | None:
        """Why the reply is dropped and drawn again instead (Resample), or None."""
        if self.status == "failed" and self._failure is not None and [b.code for b in fresh] == [self._failure[0]]:
            return "failed"
        if self._drawing and blocks and not fresh:
            return "failed"  # a new version was asked for (fresh.py) and the reply is one that ran already
        if any(what in reply for what in self.described) and all(b.code.strip() in self.given for b in blocks):
            # A reply that holds interp's preview of a file the request names is no answer (the preview's "text, 9
            # lines, 58 bytes" copied as if it were a count), nor are the request's blocks sent back as they were
            # (run, a script's block only defines its buggy function again). A pasted preview whose block the model
            # changed is its code: a script's block with its error fixed fixes the file.
            return "copied"
        if blocks:
            # Code that ran cleanly, sent back unchanged after a note that doubted its output: at the turn's own
            # temperature a small model tends to copy its last reply, and running it again changes nothing; asked
            # again hotter, it mostly changes the code.
            return "doubted" if doubted and not fresh and self.status == "ok" else None
        # Text that copies a note, or answers with a number shown before the last run, is no answer either.
        if copies_note(reply, self._notes):
            return "copied"
        if copies_example(prose(reply), self.examples_read, [self.shown, *self._outputs, *self._notes]):
            return "example"
        return "stale" if self.status == "ok" and stale_answer(reply, self._outputs, self._notes) else None

    def on_execution(self, block: CodeBlock, done: ExecutionDone) -> End | bool:
        """After one block ran: End when the turn ends now, else whether to run the reply's next block."""
        if done.status in ("declined", "skipped"):
            return End(done.status)
        if self.verify and block.language == "python" and not block.checks and has_asserts(done.code):
            self._checked = True
            self._checks = done.code if done.status != "ok" else None
        if done.status != "ok":
            self.status = "failed"
            error_lines = (done.error or "").strip().splitlines()
            self._failure = (done.code, error_lines[-1] if error_lines else "")
            # A failed example is the same failure only for the same function: its checks are the same every time.
            self._failure_key = ("\n".join([*self._ran, done.code]) if block.checks else done.code, self._failure[1])
            # A function that fails the request's example (a wrong value, or an error raised on it) and code that
            # defines it and fails (does not parse, or raises) are set aside (fresh.py); other errors are repaired in
            # view.
            self._draw_for = (failed_check(done.error or "") or self._failure[1] or done.status) if block.checks \
                else failed_function(done.code, done.error or "", self._example_calls)
            self._draw_on_example = block.checks
            if block.checks:
                self._versions.append((checks_passed(done.error or ""), "\n".join(self._ran)))
            return False
        if block.checks:
            self._versions.append((block.code.count("\n"), "\n".join(self._ran)))
            self._examples_passed = True
        self.status = "ok"
        self._outputs.append(done.output)
        self._succeeded.add((block.language, block.code))
        if block.language == "python":
            self._ran.append(done.code)
        return True

    def best_version(self) -> str | None:
        """At the end of a turn that drew new versions of a function and kept none (fresh.py): the imports and
        definitions of the version that gave the most of the request's example values, the earliest of equals, when it
        is not the one defined last; else None. Drawn at a higher temperature, a later version is not a better guess for
        failing too: the example may be what is wrong, and then the first version may be right."""
        if not self.drawn or len(self._versions) < 2:
            return None
        best = max(range(len(self._versions)), key=lambda i: (self._versions[i][0], -i))
        return None if best == len(self._versions) - 1 else definitions(self._versions[best][1])

    def elapsed(self) -> float:
        """How long the turn has run, by its clock."""
        return self.clock() - self._started

    def past(self, grace: float = 0.0) -> bool:
        """The turn has run draw_seconds and `grace` seconds more (never when draw_seconds is 0, no limit)."""
        return bool(self.draw_seconds) and self.elapsed() >= self.draw_seconds + grace

    def together(self, wanted: int) -> int:
        """How many new versions to decode together (models/together.py) when `wanted` more may be drawn: TOGETHER
        at most, and one once less than TOGETHER_SECONDS of draw_seconds are left (four decoded together took about
        three times as long as one, bench.py --together, and those not done when the version being drawn is cut are
        given up)."""
        if self.draw_seconds and self.draw_seconds - self.elapsed() < TOGETHER_SECONDS:
            return 1
        return max(min(TOGETHER, wanted), 1)

    def seconds_left(self) -> float:
        """Seconds until a version being drawn would be cut (overdue); 0 when never (no draw_seconds)."""
        return max(self.draw_seconds + DRAW_GRACE - self.elapsed(), 0.001) if self.draw_seconds else 0.0

    def overdue(self) -> bool:
        """A new version is being drawn and the turn has run DRAW_GRACE seconds past draw_seconds: the reply is cut
        (a version that enumerates cases, `if n == 2`, `if n == 3`, ..., can go on until its tokens run out)."""
        return self._drawing and self.past(DRAW_GRACE)

    @property
    def drawing(self) -> bool:
        """A new version of the turn's function is being drawn from the request alone (fresh.py)."""
        return self._drawing

    def cut(self) -> End:
        """The version being drawn was cut (overdue): the turn ends with the versions it has (best_version)."""
        self._drawing = False
        return End("attempts", Notice(f"The version of the function being drawn ({self.drawn} of {self.candidates}) "
                                      f"was still being written {DRAW_GRACE:g} s after --draw-seconds "
                                      f"{self.draw_seconds:g}: it was cut, and the turn ends with the versions it has.",
                                      "error"))

    def checks_to_rerun(self) -> CodeBlock | None:
        """After a reply's blocks all ran cleanly: the checks that failed before, when this reply changed code but
        brought no checks of its own (Reflexion keeps its tests: a fix is tested against them)."""
        if self._checks is None or self._checked or not self._ran:
            return None
        return CodeBlock("python", self._checks)

    def request_checks(self) -> CodeBlock | None:
        """After a reply's blocks all ran cleanly: asserts made from the request's examples that call a function this
        reply's code defined. Those functions need no checks from the model (verify mode): the user gave them."""
        defined = set().union(*map(defined_functions, self._ran)) if self.examples else set()
        code = checks(self.examples, defined)
        if code is None:
            return None
        self._verified |= defined & self._example_calls
        return CodeBlock("python", code, checks=True)

    @property
    def _example_calls(self) -> set[str]:
        """The functions the request's examples call."""
        return {name for example in self.examples for name in example.calls}

    def _to_verify(self, failed: bool) -> list[str]:
        """The functions this step's clean code left untested and not yet asked about in this turn."""
        code, self._ran = "\n".join(self._ran), []
        if failed or not self.verify:
            return []
        names = [name for name in untested(code) if name not in self._verified]
        self._verified.update(names)
        return names

    def _answered(self, failed: bool, ran: str) -> bool:
        """Whether the step's code (`ran`, what ran cleanly) completed the request's stubs and passed its examples, or
        defined a stub no example calls: the turn's answer is the function. Asked for a reply after that, a model
        writes prose walking through the function, or the function again, rewritten: time spent on nothing the
        examples had not shown. With no example to run, it may write a docstring's example line as code (a name the
        stub does not have), then the function again."""
        if failed or not self.stubs or not set(self.stubs) <= set().union(
                *(defined_functions(code) for language, code in self._succeeded if language == "python")):
            return False
        return self._examples_passed or (self.untried and bool(set(self.stubs) & defined_functions(ran)))

    @property
    def untried(self) -> bool:
        """No example of the request calls one of its stubs: nothing but the model's own asserts can test them."""
        return not self._example_calls & set(self.stubs)

    def end_step(self) -> StepEnd:
        """After a reply's blocks ran (up to the first failure)."""
        failed = self.status == "failed"
        self._checked = False
        ran = "\n".join(self._ran)
        answered, self._examples_passed = self._answered(failed, ran), False
        if answered:
            self._verified.update(self.stubs)  # the turn ends here: verify mode asks for no checks of them
        self.failures = self.failures + 1 if failed else 0
        self.steps += 1
        repeats = 0
        if failed and self._failure is not None:
            key = self._failure_key
            repeats = self._seen_failures[key] = self._seen_failures.get(key, 0) + 1
        # A turn that draws versions is bounded by candidates and draw_seconds: a version failing the same way again
        # is one draw spent, not a stuck turn.
        stuck = repeats >= STUCK_REPEATS and not (self._draw_for is not None and self.candidates)
        to_draw = failed and self._draw_for is not None and self.drawn < self.candidates
        # A version already decoded beside the last one costs no time to take, so it is tried even past
        # draw_seconds: a turn that ends with such versions untried gives up chances it has paid for. Not once
        # DRAW_GRACE is over too: its examples may still run for up to execution.CHECKS_SECONDS each (a version
        # that loops on them holds the turn that long).
        late = to_draw and self.past() and not (self.waiting() and not self.past(DRAW_GRACE))
        self._drawing = to_draw and not late
        self.drawn += self._drawing
        out_of_attempts = ((bool(self.max_attempts) and self.failures >= self.max_attempts and not self._drawing)
                           or (late and bool(self.drawn)))
        step = StepEnd(failed, stuck_hint=1 < repeats < STUCK_REPEATS and not self._drawing,
                       reflect=self.reflect and self.failures > 1 and not (stuck or out_of_attempts or self._drawing),
                       verify=self._to_verify(failed), fresh=self._draw_for if self._drawing else None,
                       fresh_on_example=self._drawing and self._draw_on_example)
        if stuck:
            step.stop = End("stuck", Notice(f"The model wrote the same failing code {repeats} times; stopping.",
                                            "error"))
        elif out_of_attempts and self.drawn and self._draw_for is not None:
            limit = (f"--draw-seconds {self.draw_seconds:g}: the time to draw more was up" if late
                     else f"--candidates {self.candidates}")
            step.stop = End("attempts", Notice(f"None of the {self.drawn + 1} versions of the function gave every "
                                               f"value the request's examples show ({limit}).", "error"))
        elif out_of_attempts:
            step.stop = End("attempts", Notice(f"Stopped after {self.failures} failed attempts in a row "
                                               f"(--max-attempts {self.max_attempts}).", "error"))
        elif answered:
            written = definitions(ran)
            step.written = written if written and set(self.stubs) <= defined_functions(written) else None
            names, one = ", ".join(self.stubs), len(self.stubs) == 1
            step.stop = End("ok", Notice(
                f"{names} {'is' if one else 'are'} written and {'runs' if one else 'run'} without an error; no "
                f"example in your request calls {'it' if one else 'them'}." if self.untried else
                f"Every example in your request gives the value it shows: {names} {'is' if one else 'are'} written."))
        elif self.max_steps and self.steps - self.drawn >= self.max_steps:
            step.stop = End(self.status, Notice(f"Stopped after {self.steps} code runs in this turn.", "warning"))
        return step
