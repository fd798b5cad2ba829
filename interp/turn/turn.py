"""One turn: a request goes to the model, its code runs in the kernel, what it did goes back until the code works.

A `Turn` holds one request's state (the attempts set aside, the files the request reads and asks for, the scripts it
asks to change, whether it writes a function stub, the message a reply is drawn again from) and runs its loop:
reply -> the policy's action (turn/policy/) -> the blocks run (blocks.py) -> feedback -> the rules that fired. A new
turn starts with none of the last one's state. It yields events and does no terminal I/O; what it says to the model
goes into the session's Conversation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import asdict

from interp.common.events import Event, ModelStats, Notice, ReplyDone, Thinking, TurnEnd, TurnStatus
from interp.common.extract import code_blocks, fenced_texts, whole
from interp.common.messages import last_request, unpreviewed
from interp.models.base import (
    NOTHING_AHEAD,
    Ahead,
    GenParams,
    Message,
    ModelError,
    complete_beside,
    complete_text,
    waiting,
)
from interp.reading.attach import Attachment
from interp.reading.helping import helped
from interp.rules import Finding, answer_form
from interp.running import safekeep
from interp.turn import request
from interp.turn.blocks import RequestFiles, run_blocks
from interp.turn.choose import Chooser, drawing_together, keep, version_waiting
from interp.turn.policy import Asked, End, Nudge, Resample, Run, TurnPolicy, answers_read
from interp.turn.reply import stream_reply
from interp.turn.session_api import SessionLike
from interp.versions import examples
from interp.versions.examples import Example
from interp.versions.fresh import FreshStart, unparsed


def _never() -> bool:
    """A reply's time is never up."""
    return False


class Turn:
    """One request of `session`, run to its end by `run()`."""

    def __init__(self, session: SessionLike, text: str) -> None:
        self.session = session
        self.text = text  # the request as typed
        self.fresh: FreshStart | None = None  # the attempts set aside after a failed example (fresh.py)
        self.files = RequestFiles(safekeep.Safekeeping(session.outputs))  # what it reads and writes
        self.function = False  # the request asks for a function stub to be written (prompts/function.md)
        self.redraw: Message | None = None  # the next call's last message, in place of the turn so far (_redrawn)
        self.held: list[tuple[str, str, str]] = []  # what the kernel held when the request came (state_view.py)

    def prefix(self) -> list[Message]:
        """What every prompt of the turn starts with (Session.prefix)."""
        return self.session.prefix(function=self.function)

    def context(self) -> list[Message]:
        """What the model is sent (Conversation.sent), less what the turn set aside or draws again from."""
        return self.session.conversation.sent(self.prefix(), self.fresh, self.redraw)

    def run(self) -> Generator[Event, None, None]:
        """Runs the request to its end; `@path` mentions attach files, and existing files it names by path are
        previewed (attach.py)."""
        session = self.session
        sent, attached, stubs = yield from self._begin()
        try:
            opening = examples.opening(self.text) if self.function and session.config.open_stub else ""
            status = yield from self._loop(sent, stubs, opening, attached)
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            session.last_status = "interrupted"
            for fired in session.rules.drain():
                session.journal.record(fired.kind, **fired.record())
            session.journal.record("turn_end", status="interrupted")
            raise
        finally:
            self.files.keeping.end()
        yield from session.fired()  # rules that fired in a step the turn ended in (a block declined after it)
        session.last_status = status
        session.journal.record("turn_end", status=status)
        failure = session.journal.take_failure()
        if failure:
            yield Notice(f"{failure}. The session goes on; what follows may be missing from the journal.", "error")
        yield TurnEnd(status)

    def _begin(self) -> Generator[Event, None, tuple[str, list[Attachment], list[str]]]:
        """The request read (request.py) and added to the conversation. The request as sent, its attachments, its
        stubs."""
        session, text = self.session, self.text
        read = request.read(session, text, self.files)
        self.held = read.held
        for problem in read.problems:
            yield Notice(problem, "warning")
        for item in read.attached:
            yield Notice(f"Showed the model a preview of {item.path} ({item.what}), which the request names." if
                         item.named else f"Attached {item.path} ({item.what}).")
        yield from session.conversation.recall(text)
        session.conversation.add("user", read.sent, "request", **({"typed": text} if read.sent != text else {}))
        session.notes.start(text, read.sent)
        session.rules.start_turn()
        session.feedback.start([(item.named or str(item.path), item.kind) for item in read.attached])
        if session.config.function_prompt and read.stubs:
            self.function = True
            session.journal.record("function_prompt", functions=read.stubs)
        return read.sent, read.attached, read.stubs

    def _policy(self, request: str, stubs: list[str], opening: str, attached: list[Attachment]) -> TurnPolicy:
        """The turn's retry and stop rules (turn/policy/), built once from the settings and from what they read of the
        request and the session."""
        config, journal, history = self.session.config, self.session.journal, self.session.history
        asked = Asked(typed=self.text, files=[(item.named or str(item.path), item.kind) for item in attached],
                      described=[item.what for item in attached], given=fenced_texts(request),
                      shown="\n".join(m["content"] for m in history), examples_read=answers_read(self.prefix()),
                      answer_parts=helped(journal, "answer_parts", [], lambda: answer_form.parts(request)),
                      held=self.held, printed=[m["content"] for m in history if m.get("kind") == "feedback"])
        examples_given: list[Example] = helped(journal, "examples", [],
                                lambda: examples.parse(request) if config.check_examples else [])
        return TurnPolicy(max_attempts=config.max_attempts, max_steps=config.max_steps, reflect=config.reflect,
                          verify=config.verify, examples=examples_given, candidates=config.candidates,
                          draw_seconds=config.draw_seconds, clock=self._working_time, stubs=stubs, opening=opening,
                          waiting=lambda: version_waiting(self.session, self.prefix(), opening), asked=asked,
                          rules=self.session.rules)

    def _loop(self, request: str, stubs: list[str], opening: str,
              attached: list[Attachment]) -> Generator[Event, None, TurnStatus]:
        """Asks the model, acts on its reply (turn/policy/) and runs its code, until the policy ends the turn."""
        session = self.session
        policy = self._policy(request, stubs, opening, attached)
        gen = GenParams(max_tokens=session.config.max_tokens, temperature=session.config.temperature,
                        speculative=session.config.speculative)
        while True:
            try:
                reply, stats = yield from self.call_model(policy.params(gen), policy.schedule.overdue,
                                                          drawing_together(policy.ahead(), policy, whole))
            except ModelError as exc:
                yield Notice(f"The model failed: {exc}", "error")
                return "failed"
            finally:
                self.redraw = None
            if stats.stop_reason == "time":
                session.conversation.add("user", session.prompts.cut, "note")
                action: End | Nudge | Resample | Run = policy.schedule.cut()
            else:
                action = policy.on_reply(reply, code_blocks(reply))
                yield from session.fired()
            if isinstance(action, (Nudge, Resample)):
                yield from self._again(action, policy, attached)
                continue
            end = action if isinstance(action, End) else (yield from self._step(policy, action))
            if end is not None:
                if end.notice:
                    yield end.notice
                if end.status in ("failed", "attempts", "stuck") and (best := policy.schedule.best_version()):
                    yield from keep(self.session, best)
                return end.status

    def _again(self, action: Nudge | Resample, policy: TurnPolicy,
               attached: list[Attachment]) -> Generator[Event, None, None]:
        """The model is asked again: told why (Nudge), or its reply dropped and drawn again (Resample)."""
        session = self.session
        if isinstance(action, Resample):
            kept = session.history[:-1]  # the conversation once the reply is dropped
            self.redraw = self._redrawn(kept) if action.unseen and not policy.schedule.active else None
            session.conversation.drop_last(action.why, **({"redrawn": True} if self.redraw else {}))
            yield Notice(session.rules.render(action.why, Finding()), "warning")
            return
        if action.act.unpreviews and self._unpreviewed(attached):
            yield Notice(session.rules.render(action.why, Finding(action.values, "unpreviewed")), "warning")
            return
        if action.variant in action.act.drops:  # the guess goes: asked for code with it in view, a model confirms it
            session.conversation.drop_last(action.why)
        note = session.rules.render(action.why, Finding(action.values, action.variant))
        session.conversation.add("user", note, "note")
        if f"{action.why}.notice" in session.rules.templates:
            yield Notice(session.rules.render(action.why, Finding(action.values, "notice")), "warning")

    def _unpreviewed(self, attached: list[Attachment]) -> bool:
        """Under the small prompts, an answer read off the preview of a plain text file the request names (no @, not
        a script, a CSV or JSON) is dropped and the request sent again as typed: told only that its answer was a
        guess, a small model tends to write code that copies its few-shot example's shape instead of what the request
        asks (counting a log's lines for its top IP). Whether it was done."""
        session = self.session
        if not (session.prompts.small and attached and all(item.named and item.kind == "text" for item in attached)):
            return False
        if not unpreviewed(session.history, self.text):
            return False
        session.journal.record("unpreviewed", content=self.text)
        return True

    def _redrawn(self, history: list[Message]) -> Message | None:
        """The message a reply is drawn from when it sent back code that failed, or that ran before a note doubted it,
        a second time (the first is drawn again hotter, with the code in view): the request, and what the earlier
        code was told, without the code. In view, even at RESAMPLE_TEMPERATURE, a small model often sends the same
        code back again, and it cannot copy code it is not shown. Only the second time: the first draw, with the code
        in view, can still repair the code, which a draw without it must write anew."""
        start = last_request(history)
        said = history[-1] if history else None
        if start is None or said is None or said.get("kind") != "feedback":
            return None
        text = self.session.prompts.redrawn.safe_substitute(request=history[start]["content"], said=said["content"])
        return {"role": "user", "content": text}

    def _working_time(self) -> float:
        """A clock that stands still while the person decides whether a block runs: a turn's draw_seconds count the
        model's and the kernel's time, not the person's."""
        return time.monotonic() - self.session.executor.waited

    def _step(self, policy: TurnPolicy, run: Run) -> Generator[Event, None, End | None]:
        """Runs a reply's blocks up to the first failure and tells the model what they did; End when the turn ends."""
        session = self.session
        feedback: list[str] = []
        if run.unchanged is not None:
            yield Notice("The model sent code that already ran; the failure stands.", "warning")
            feedback.append(session.prompts.unchanged.safe_substitute(failure=run.unchanged))
        end = yield from run_blocks(session, self.files, policy, run.blocks, feedback)
        if end is None and (checks := policy.checks.checks_to_rerun()):
            yield Notice("Running the checks that failed before on the new code.")
            end = yield from run_blocks(session, self.files, policy, [checks], feedback)
        if end is None and (checks := policy.checks.request_checks()):
            yield Notice("Running the examples in your request as checks.")
            end = yield from run_blocks(session, self.files, policy, [checks], feedback)
        if end is not None:
            return end
        step = policy.end_step()
        if step.verify:
            feedback.append(session.feedback.ask_for_checks(step.verify))
        if step.stuck_hint:
            feedback.append(session.prompts.stuck)
        if step.reflect and (cause := self._reflect("\n\n".join(feedback))):
            feedback.append(session.prompts.cause.safe_substitute(cause=cause))
        session.conversation.add("user", "\n\n".join(feedback), "feedback", error=step.failed)
        yield from session.fired()
        if step.fresh is not None and step.stop is None:
            yield from self._set_aside(step.fresh, step.fresh_on_example, policy.schedule.drawn)
        if step.written is not None and session.config.choose and session.state.auto_run:
            yield from Chooser(session, self.prefix(), policy).choose(step.written)
        return step.stop

    def _set_aside(self, failure: str, on_example: bool, drawn: int) -> Generator[Event, None, None]:
        """The turn's function failed the request's example, or its code failed: its attempts so far are set aside
        and a new version is drawn from the request alone (fresh.py); `drawn`: which one."""
        if self.fresh is None:
            self.fresh = FreshStart()
        on = "example" if on_example else "unparsed" if unparsed(failure) else "error"
        why = {"example": " failed an example of your request", "unparsed": "'s code does not parse",
               "error": f"'s code failed ({failure.rstrip(':')})"}[on]
        yield Notice(f"The function{why}; the failed version is set aside and a new one drawn from the request alone "
                     f"({drawn} of {self.session.config.candidates}).")
        history = self.session.history
        start = last_request(history)
        self.fresh.set_aside(history[(start or 0) + 1:], failure)
        self.session.journal.record("fresh", failures=self.fresh.failures, set_aside=len(self.fresh.hidden),
                                    drawn=drawn, on=on)

    def _reflect(self, feedback: str) -> str:
        """One short model call that names the cause of a repeated failure in a sentence (as in Reflexion); the
        next attempt sees it. It is sent the whole conversation, so it reuses the cached prompt and the next call
        re-evaluates only the feedback message; it does not enter the history."""
        question = self.session.prompts.reflect.safe_substitute(feedback=feedback)
        messages: list[Message] = [*self.context(), {"role": "user", "content": question}]
        reply, _ = complete_text(self.session.model, messages, GenParams(max_tokens=60, temperature=0.0))
        cause = " ".join(reply.split())
        cause = cause.split(". ")[0].strip()[:300]
        self.session.journal.record("reflection", cause=cause)
        return cause

    def call_model(self, params: GenParams, late: Callable[[], bool] = _never,
                   ahead: Ahead = NOTHING_AHEAD) -> Generator[Event, None, tuple[str, ModelStats]]:
        """One call in view: the reply streams, enters the history and the journal; returns it with the call's figures.
        `late()`: its time is up, it is cut there (stream_reply). `ahead`: the replies decoded beside it where the
        model can (models/together.py)."""
        session = self.session
        yield from session.conversation.fit_window(session.model, self.prefix(), session.config,
                                                   session.prompts.summarize)
        messages = self.context()
        if late() and waiting(session.model, messages, params):
            late = _never  # a reply decoded beside an earlier one is taken whole, at once: nothing to cut
        yield Thinking()
        pieces: list[str] = []
        started = time.monotonic()
        stream = complete_beside(session.model, messages, params, ahead)
        try:
            stats = yield from stream_reply(stream, pieces, late)
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            stream.close()
            session.conversation.add("assistant", "".join(pieces), "reply", interrupted=True)
            session.conversation.add("user", session.prompts.interrupted, "note")
            raise
        reply = "".join(pieces)
        session.last_stats = stats
        figures = asdict(stats) | {"ttft_s": round(stats.ttft_s, 4), "decode_tps": round(stats.decode_tps, 2)}
        session.journal.record("model_call", **figures, duration_s=round(time.monotonic() - started, 3),
                               input_tail=messages[-1], **({"opening": True} if params.opening else {}))
        session.conversation.add("assistant", reply, "reply", **({"cut": True} if stats.stop_reason == "time" else {}))
        yield ReplyDone(reply, stats)
        return reply, stats
