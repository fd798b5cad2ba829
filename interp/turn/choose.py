"""A turn's versions of a function drawn and chosen: asserts asked for and versions drawn out of view, each scored
unseen in the kernel, the one kept defined (choosing.py); the best version defined again when the turn fails; the
replies decoded together with the one asked for (models/together.py).

The model, the kernel and the journal are the turn's session's (session_api.SessionLike); the prompt's prefix is the
turn's (turn.Turn.prefix: in a turn that writes a function stub, the function-writing prompt).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import asdict, dataclass, replace

from interp.common.events import Event, ExecutionDone, Notice, OutputChunk, Thinking
from interp.common.extract import CodeBlock, whole
from interp.common.messages import last_request
from interp.common.returning import Returning
from interp.models.base import Ahead, GenParams, Message, ahead_at, complete_beside, waiting
from interp.running import unimported
from interp.runtime.kernel_api import KernelError
from interp.stores.window import as_sent
from interp.turn.blocks import imported, unimported_lines
from interp.turn.policy import DRAW_GRACE, FRESH_TEMPERATURE, TurnPolicy, opened
from interp.turn.reply import stream_reply
from interp.turn.session_api import SessionLike
from interp.versions import choosing, examples

SCORE_TIMEOUT = 3 * choosing.CHECK_SECONDS + choosing.SCORE_SECONDS  # the kernel's bound on scoring one version


@dataclass
class Chooser:
    """Choosing among versions of the turn's function, once its stubs are written and pass the request's examples:
    the model writes asserts on other inputs, more versions are drawn from the request alone, and the one that passes
    the most asserts, weighed by the versions that agree with it, is kept (choosing.py). Only where code runs without
    asking: the versions and the asserts run unseen. One call, `choose`; `ask` and `score` are what choosing.py asks
    of the turn (choosing.Aside)."""

    session: SessionLike
    prefix: list[Message]
    policy: TurnPolicy
    given: str = ""  # the request's examples as asserts, for the functions the written code defines

    def choose(self, written: str) -> Generator[Event, None, None]:
        session = self.session
        start = last_request(session.history)
        if start is None:
            return
        self.given = examples.checks(self.policy.examples, examples.defined_functions(written)) or ""
        yield Notice(f"{'Your examples pass' if self.given else 'Nothing in your request tests it'}. Asking the model "
                     f"for asserts on other inputs and drawing up to {session.config.choose} more versions of the "
                     "function, to keep the one that passes the most of them, weighed by the versions that agree "
                     "with it (--choose 0: off).")
        request: Message = {"role": "user", "content": session.history[start]["content"]}
        other = session.prompts.choose_other.safe_substitute(given=self.given.strip()) if self.given else ""
        asked = choosing.Asking(
            [*self.prefix, {"role": "user", "content": f"{request['content']}\n\n{session.prompts.choose}"}],
            [*self.prefix, request], written, session.config.choose, self.given, other)
        choice = yield from choosing.choose(asked, self)
        if choice is None:
            return
        session.journal.record("choose", **asdict(choice))
        yield from _chosen(choice, bool(self.given))
        if not choice.kept:
            return
        version = choice.versions[choice.kept]
        block = yield from imported(session, CodeBlock("python", version))  # as it was scored
        done: ExecutionDone = yield from session.executor.run(block, confirmed=True)
        if done.status == "ok":
            session.conversation.add("user", session.prompts.chosen.safe_substitute(code=version), "note")

    def ask_asserts(self, messages: list[Message],
                    temperatures: tuple[float, ...]) -> Generator[Event, None, str | None]:
        errand = _Errand("asserts", temperatures, ends=choosing.whole, runs_away=choosing.runaway,
                         stopped=choosing.whole_lines)
        return (yield from _aside(self.session, self.policy, messages, errand))

    def draw_version(self, messages: list[Message], left: int) -> Generator[Event, None, str | None]:
        errand = _Errand("version", (FRESH_TEMPERATURE,) * left, self.policy.opening, takes_waiting=True)
        return (yield from _aside(self.session, self.policy, messages, errand))

    def score(self, version: str, tests: list[str]) -> choosing.Scored | None:
        return _score(self.session, version, self.given, tests)


def _chosen(choice: choosing.Choice, given: bool) -> Generator[Event, None, None]:
    """Says which version is kept, and why."""
    asked = len(choice.asserts)
    passed, agreeing = choice.scores[choice.kept][1], choice.groups[choice.kept] - 1
    if not choice.kept:
        yield Notice(f"The function passes {passed} of the {asked} asserts the model wrote for inputs your "
                     f"examples do not show; none of {choice.drawn} other versions drawn passes more, counted "
                     "with the versions that agree with it.")
        return
    also = f", and {agreeing} other {'draw gives' if agreeing == 1 else 'draws give'} the same values" \
        if agreeing else ""
    if choice.outscored:
        yield Notice(f"Another version of the function passes {'your examples and ' if given else ''}{passed} of "
                     f"the {asked} asserts the model wrote for other inputs, the one written "
                     f"{choice.scores[0][1]}{also}: defining it instead.")
    else:
        wide, wide_written = choice.everywhere[choice.kept] - 1, choice.everywhere[0] - 1
        yield Notice(f"Another version of the function does as well as the one written on the {asked} "
                     f"{'assert' if asked == 1 else 'asserts'} the model wrote for other inputs ({passed} "
                     f"passed{also}), and {wide} other "
                     f"{'version gives' if wide == 1 else 'versions give'} its values for the same calls with an "
                     f"argument changed, against {wide_written} for the one written: defining it instead.")


@dataclass(frozen=True)
class _Errand:
    """What a reply drawn out of view is for, and so how it is drawn and what is kept of it."""

    purpose: str  # as journaled: "version" or "asserts"
    temperatures: tuple[float, ...]  # the reply's, then those of the replies that may be asked for after it
    opening: str = ""  # how the reply begins (a version: as the turn's replies do)
    takes_waiting: bool = False  # one decoded already is taken past draw_seconds too, within DRAW_GRACE
    ends: Callable[[str], str | None] = whole  # why a reply decoded beside it is whole
    runs_away: Callable[[str], bool] = lambda _text: False  # where it is stopped early, its text so far
    stopped: Callable[[str], str] = lambda _text: ""  # what is kept of one stopped early or repeating itself


def _aside(session: SessionLike, policy: TurnPolicy, messages: list[Message],
           errand: _Errand) -> Generator[Event, None, str | None]:
    """A model call whose reply stays out of the conversation (it is journaled), stopped where a reply shown would
    be (stream_reply: where its first code block ends, or where it starts repeating itself) and unseen. None when
    the turn has run draw_seconds before it begins (unless the errand takes one decoded beside an earlier one, whole
    at once, within DRAW_GRACE), or when it is still writing DRAW_GRACE seconds after. A reply that runs away or
    repeats itself gives what the errand keeps of it (asserts: its lines written whole; a version: no code). The
    reply is sampled at the first of the errand's temperatures; those that may be asked for after it are decoded
    beside it (models/together.py) while the schedule's together() allows: versions as many as TOGETHER, the reply
    for asserts at 0.8 beside the one at 0.2."""
    temperatures = errand.temperatures
    params = opened(GenParams(max_tokens=session.config.max_tokens, temperature=temperatures[0],
                              speculative=session.config.speculative), errand.opening)
    # A version decoded already is taken whole, uncut, past draw_seconds too, until the grace is over (turn/policy/);
    # before draw_seconds nothing is asked: a kept one is taken at once anyway, long before the grace ends.
    taken = (errand.takes_waiting and policy.schedule.past() and not policy.schedule.past(DRAW_GRACE)
             and waiting(session.model, as_sent(messages), params))
    if policy.schedule.past() and not taken:
        return None
    yield Thinking()
    ahead = drawing_together(ahead_at(temperatures[:policy.schedule.together(len(temperatures))]), policy, errand.ends)
    pieces: list[str] = []
    runaway = False

    def late() -> bool:
        nonlocal runaway
        runaway = errand.runs_away("".join(pieces))
        return runaway or (policy.schedule.past(DRAW_GRACE) and not taken)

    run = Returning(stream_reply(complete_beside(session.model, as_sent(messages), params, ahead), pieces, late))
    for _unseen in run:
        pass
    reply, stopped = "".join(pieces), run.value.stop_reason
    cut = stopped == "time" and not runaway
    looped = stopped == "loop"
    marks = {"cut": cut, "runaway": runaway, "loop": looped}
    session.journal.record("aside", purpose=errand.purpose, reply=reply,
                           **{mark: True for mark, on in marks.items() if on})
    if cut:
        return None
    if runaway or looped:
        return errand.stopped(reply)
    return reply


def _score(session: SessionLike, version: str, given: str, tests: list[str]) -> choosing.Scored | None:
    """Whether a version passes the request's examples, how many of the model's asserts, and what it gives for
    each, run unseen in a copy of the kernel's namespace (choosing.scoring); None when the kernel could not
    tell."""
    python = session.kernels.python
    if not python.is_alive():
        return None
    version = unimported.with_imports(version, unimported_lines(session, version))
    run = Returning(python.execute(choosing.scoring(version, given, tests), timeout=SCORE_TIMEOUT))
    try:
        printed = "".join(item.text for item in run if isinstance(item, OutputChunk) and item.stream == "stdout")
    except KernelError:
        return None
    finally:
        run.gen.close()
    return choosing.score(printed)


def keep(session: SessionLike, code: str) -> Generator[Event, None, None]:
    """No version of the function gave every value of the request's examples: the one that gave the most is
    defined again, so that it, not the last drawn, is the one the kernel holds (policy.schedule.best_version)."""
    yield Notice("No version of the function gave every value your examples show; defining again the one that "
                 "gave the most of them.", "warning")
    session.journal.record("keep_version", code=code)
    done: ExecutionDone = yield from session.executor.run(CodeBlock("python", code), confirmed=True)
    if done.status == "ok":
        session.conversation.add("user", session.prompts.kept.safe_substitute(code=code), "note")


def version_waiting(session: SessionLike, prefix: list[Message], opening: str) -> bool:
    """Whether a version of the turn's function drawn from the request alone, as the next one would be (the
    attempts after the request set aside, fresh.py), is decoded and waiting (models/together.py)."""
    start = last_request(session.history)
    if start is None:
        return False
    params = opened(GenParams(max_tokens=session.config.max_tokens, temperature=FRESH_TEMPERATURE), opening)
    return waiting(session.model, as_sent([*prefix, *session.history[:start + 1]]), params)


def drawing_together(ahead: Ahead, policy: TurnPolicy, ends: Callable[[str], str | None]) -> Ahead:
    """Replies decoded together (models/together.py) stop where a reply shown would be stopped (`ends`: reply.whole,
    or choosing.whole for asserts), and those beside the one shown are given up when it would be cut
    (policy.schedule.overdue)."""
    if ahead.together <= 1 and not ahead.beside:
        return ahead
    left = policy.schedule.seconds_left()
    return replace(ahead, whole=ends, deadline=time.monotonic() + left if left else 0.0)
