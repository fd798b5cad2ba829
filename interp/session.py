"""The loop: a user turn goes to the model, its code runs in the kernel, errors go back until the code works.

`Session.turn(text)` yields events and does no terminal I/O; the journal and the kernel sit behind small interfaces.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from dataclasses import asdict

from interp.context import Condensed, as_sent, fit, last_request, new_message
from interp.events import Event, ExecutionDone, ModelStats, Notice, ReplyDone, TextDelta, Thinking, TurnEnd
from interp.execution import Executor
from interp.extract import CodeBlock, code_blocks, first_block_end
from interp.feedback import Feedback
from interp.journal import Journal
from interp.kernel_api import KernelPool
from interp.models.base import GenParams, Message, Model, ModelError, complete_text, stop_early
from interp.outputs import OutputFolder
from interp.policy import End, Nudge, TurnPolicy
from interp.prompts import Prompts
from interp.returning import Returning
from interp.settings import Settings
from interp.textclean import loops_at_end

LOOP_CHECK_CHARS = 64  # how often (in characters of a reply) to look for a loop
LOOP_CHECK_PIECES = 300  # the reply's end that is searched for one: more than loops_at_end's window


class Session:
    """One conversation with one model and one kernel."""

    def __init__(
        self, model: Model, kernels: KernelPool, journal: Journal, prompts: Prompts, settings: Settings,
        outputs: OutputFolder,
    ) -> None:
        self.model = model
        self.kernels = kernels
        self.journal = journal
        self.prompts = prompts
        self.settings = settings
        self.history: list[Message] = []
        self.last_status = "ok"
        self.last_stats: ModelStats | None = None
        self.feedback = Feedback(prompts, settings.verify)
        self.executor = Executor(kernels, outputs, journal, settings, lambda text: self._add("user", text, "note"),
                                 prompts.declined, prompts.interrupted)

    def prefix(self) -> list[Message]:
        """What every prompt starts with: the system prompt and the few-shot examples."""
        return [{"role": "system", "content": self.prompts.system}, *self.prompts.examples]

    def context(self) -> list[Message]:
        """What the model is sent: the prefix, then the conversation."""
        return as_sent([*self.prefix(), *self.history])

    def _add(self, role: str, content: str, kind: str, **extra: object) -> None:
        """Appends to the history and the journal. `kind`: request, reply, feedback or note (see context.py)."""
        self.history.append(new_message(role, content, kind, bool(extra.get("error"))))
        self.journal.record(role, content=content, kind=kind, **extra)

    def reset(self) -> None:
        """Empties the history and starts fresh kernels."""
        self.history.clear()
        self.kernels.restart()
        self.journal.record("reset")

    def undo(self) -> int:
        """Drops the last turn (the latest request and everything after it); returns how many messages went."""
        last = last_request(self.history)
        if last is None:
            return 0
        dropped = len(self.history) - last
        del self.history[last:]
        self.journal.record("undo", messages=dropped)
        return dropped

    def replace_history(self, messages: list[Message], source: str) -> None:
        """Continues from another conversation's history (%load, --resume)."""
        self.history[:] = messages
        self.journal.record("load", source=source, history=messages)

    def last_code(self) -> tuple[str, str] | None:
        """The language and code of the latest code block the model wrote."""
        for message in reversed(self.history):
            if message["kind"] == "reply" and (blocks := code_blocks(message["content"])):
                return blocks[-1].language, blocks[-1].code
        return None

    def run_code(self, language: str, code: str) -> Iterator[Event]:
        """Runs code the user wrote or edited (%edit) as part of the conversation, so the model sees it."""
        self._add("user", f"I ran this code:\n```{language}\n{code}\n```", "note")
        done = yield from self.executor.run(CodeBlock(language, code), confirmed=True)
        if done.status not in ("declined", "skipped"):
            self._add("user", self.feedback.execution(done), "feedback", error=done.status != "ok")

    def turn(self, text: str) -> Iterator[Event]:
        """Runs one user request to its end."""
        self._add("user", text, "request")
        try:
            status = yield from self._turn()
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            self.last_status = "interrupted"
            self.journal.record("turn_end", status="interrupted")
            raise
        self.last_status = status
        self.journal.record("turn_end", status=status)
        failure = self.journal.take_failure()
        if failure:
            yield Notice(f"{failure}. The session goes on; what follows may be missing from the journal.", "error")
        yield TurnEnd(status)

    def _turn(self) -> Generator[Event, None, str]:
        policy = TurnPolicy(self.settings.max_attempts, self.settings.max_steps, self.settings.reflect,
                            self.settings.verify)
        while True:
            try:
                reply = yield from self._call_model(policy.params(self.settings.gen))
            except ModelError as exc:
                yield Notice(f"The model failed: {exc}", "error")
                return "failed"
            action = policy.on_reply(reply, code_blocks(reply))
            if isinstance(action, Nudge):
                self._add("user", self.prompts.empty, "note")
                continue
            if isinstance(action, End):
                if action.notice:
                    yield action.notice
                return action.status
            feedback = []
            for block in action.blocks:
                if block.inferred:
                    yield Notice(f"Taking this part of the reply as {block.language} code:\n{block.code}")
                done: ExecutionDone = yield from self.executor.run(block)
                verdict = policy.on_execution(block, done)
                if isinstance(verdict, End):
                    return verdict.status
                feedback.append(self.feedback.execution(done))
                if not verdict:
                    break
            step = policy.end_step()
            if step.verify:
                feedback.append(self.feedback.ask_for_checks(step.verify))
            if step.stuck_hint:
                feedback.append(self.prompts.stuck)
            if step.reflect and (cause := self._reflect("\n\n".join(feedback))):
                feedback.append(f"Likely cause: {cause}")
            self._add("user", "\n\n".join(feedback), "feedback", error=step.failed)
            if step.stop:
                if step.stop.notice:
                    yield step.stop.notice
                return step.stop.status

    def _reflect(self, feedback: str) -> str:
        """One short model call that names the cause of a repeated failure in a sentence (as in Reflexion); the
        next attempt sees it. It is sent the whole conversation, so it reuses the cached prompt and the next call
        re-evaluates only the feedback message; it does not enter the history."""
        question = self.prompts.reflect.safe_substitute(feedback=feedback)
        messages = [*self.context(), {"role": "user", "content": question}]
        reply, _ = complete_text(self.model, messages, GenParams(max_tokens=60, temperature=0.0))
        cause = " ".join(reply.split())
        cause = cause.split(". ")[0].strip()[:300]
        self.journal.record("reflection", cause=cause)
        return cause

    def _call_model(self, params: GenParams) -> Generator[Event, None, str]:
        condensed = self._fit_window()
        if condensed:
            self.journal.record("condense", **asdict(condensed))
            yield Notice(condensed.describe())
        messages = self.context()
        yield Thinking()
        pieces: list[str] = []
        started = time.monotonic()
        stream = Returning(self.model.complete(messages, params))
        length = checked = 0
        stats: ModelStats | None = None
        try:
            for piece in stream:
                end = first_block_end("".join(pieces) + piece) if "\n" in piece else None
                if end is not None:
                    # The code is complete: anything after it would be the model imagining its output.
                    piece = piece[:end - length]
                    if piece:
                        pieces.append(piece)
                        yield TextDelta(piece)
                    stats = stop_early(stream.gen, "code")
                    break
                pieces.append(piece)
                yield TextDelta(piece)
                length += len(piece)
                if length - checked >= LOOP_CHECK_CHARS:
                    checked = length
                    if loops_at_end("".join(pieces[-LOOP_CHECK_PIECES:])):
                        stats = stop_early(stream.gen, "loop")
                        yield Notice("The model was repeating itself; its reply was cut.", "warning")
                        break
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            stream.gen.close()
            self._add("assistant", "".join(pieces), "reply", interrupted=True)
            self._add("user", self.prompts.interrupted, "note")
            raise
        reply = "".join(pieces)
        if stats is None:
            stats = stream.value or ModelStats()
        self.last_stats = stats
        self.journal.record(
            "model_call",
            prompt_tokens=stats.prompt_tokens,
            cached_tokens=stats.cached_tokens,
            completion_tokens=stats.completion_tokens,
            ttft_s=round(stats.ttft_s, 4),
            decode_tps=round(stats.decode_tps, 2),
            duration_s=round(time.monotonic() - started, 3),
            stop_reason=stats.stop_reason,
            input_tail=messages[-1],
        )
        self._add("assistant", reply, "reply")
        yield ReplyDone(reply, stats)
        return reply

    def _fit_window(self) -> Condensed | None:
        """Condenses the history when the next prompt and a reply would not fit the model's window."""
        reply_room = min(self.settings.gen.max_tokens or self.model.n_ctx, self.model.n_ctx // 2)
        return fit(
            self.prefix(), self.history, self.model.n_ctx - reply_room,
            lambda messages: self.model.count_tokens(as_sent(messages)),
            self.settings.condense, self._summarize,
        )

    def _summarize(self, dropped: list[Message]) -> str:
        """One short model call that summarizes messages about to leave the window (--condense summary)."""
        transcript = "\n".join(f"{m['role']}: {m['content']}" for m in dropped)[-self.model.n_ctx * 2:]
        messages = [{"role": "system", "content": self.prompts.summarize}, {"role": "user", "content": transcript}]
        return complete_text(self.model, messages, GenParams(max_tokens=128, temperature=0.0))[0]
