"""The loop: a user turn goes to the model, its code runs in the kernel, errors go back until the code works.

`Session.turn(text)` yields events and does no terminal I/O; the journal and the kernel sit behind small interfaces.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from dataclasses import asdict, dataclass, field, replace

from interp.context import Condensed, as_sent, fit, last_request, new_message
from interp.events import (
    Confirm,
    DisplayData,
    Event,
    ExecutionDone,
    ExecutionStart,
    InputRequest,
    ModelStats,
    Notice,
    OutputChunk,
    OutputFile,
    ReplyDone,
    TextDelta,
    Thinking,
    TurnEnd,
)
from interp.extract import CodeBlock, code_blocks, first_block_end
from interp.journal import Journal
from interp.kernel import Kernel, KernelError, RunResult
from interp.kernels import Kernels
from interp.models.base import GenParams, Message, Model, ModelError, complete_text, stop_early
from interp.outputs import OutputFolder
from interp.prompts import Prompts
from interp.textclean import HeadTail, for_model, loops_at_end

STUCK_REPEATS = 3  # the same code failing the same way this many times in a turn ends the turn
RETRY_TEMPERATURE_STEP = 0.2
LOOP_CHECK_CHARS = 64  # how often (in characters of a reply) to look for a loop
LOOP_CHECK_PIECES = 300  # the reply's end that is searched for one: more than loops_at_end's window
MAX_FILES_PER_RUN = 20  # rich outputs (images, HTML) saved per execution; the rest are counted


@dataclass
class Settings:
    auto_run: bool = False  # run code without asking
    interactive: bool = True  # a person is there to answer confirmations and input()
    max_attempts: int = 3  # consecutive failed executions in one turn; 0 = no limit
    max_steps: int = 10  # code-running replies in one turn; 0 = no limit
    timeout: float = 120.0  # seconds per execution; 0 = none
    max_output: int = 2000  # characters of output kept for the model, head and tail
    condense: str = "cut"  # how old turns leave a full window: 'cut' drops them, 'summary' has the model summarize
    reflect: bool = False  # after a second failure in a row, ask the model for the cause in one sentence
    gen: GenParams = field(default_factory=GenParams)


class Session:
    """One conversation with one model and one kernel."""

    def __init__(
        self, model: Model, kernels: Kernels, journal: Journal, prompts: Prompts, settings: Settings,
        outputs: OutputFolder,
    ) -> None:
        self.model = model
        self.kernels = kernels
        self.outputs = outputs
        self.journal = journal
        self.prompts = prompts
        self.settings = settings
        self.history: list[Message] = []
        self.last_status = "ok"
        self.last_stats: ModelStats | None = None

    def prefix(self) -> list[Message]:
        """What every prompt starts with: the system prompt and the few-shot examples."""
        return self.prompts.prefix()

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
        done = yield from self._run_block(CodeBlock(language, code), confirmed=True)
        if done.status not in ("declined", "skipped"):
            feedback = self.prompts.feedback(done.output, done.error, language)
            self._add("user", feedback, "feedback", error=done.status != "ok")

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
        failures = steps = 0
        succeeded: set[tuple[str, str]] = set()
        seen_failures: dict[tuple[str, str], int] = {}
        status = "ok"
        nudged = False
        while True:
            try:
                reply = yield from self._call_model(self._retry_params(failures))
            except ModelError as exc:
                yield Notice(f"The model failed: {exc}", "error")
                return "failed"
            blocks = code_blocks(reply)
            if not reply.strip() and not nudged:
                # An empty reply is not an answer: ask once more.
                nudged = True
                self._add("user", self.prompts.empty, "note")
                continue
            fresh = list({(b.language, b.code): b for b in blocks if (b.language, b.code) not in succeeded}.values())
            if not fresh:
                if blocks:
                    # The model stands by code that already worked: the turn ends well, whatever failed in between.
                    yield Notice("The model repeated code that already ran; not running it again.")
                    return "ok"
                return status
            feedback = []
            for block in fresh:
                if block.inferred:
                    yield Notice(f"Taking this part of the reply as {block.language} code:\n{block.code}")
                done = yield from self._run_block(block)
                if done.status in ("declined", "skipped"):
                    return done.status
                feedback.append(self.prompts.feedback(done.output, done.error, block.language))
                status = "ok" if done.status == "ok" else "failed"
                if done.status != "ok":
                    error_lines = (done.error or "").strip().splitlines()
                    failure = (done.code, error_lines[-1] if error_lines else "")
                    break
                succeeded.add((block.language, block.code))
            failures = failures + 1 if status == "failed" else 0
            repeats = 0
            if status == "failed":
                repeats = seen_failures[failure] = seen_failures.get(failure, 0) + 1
                if 1 < repeats < STUCK_REPEATS:
                    feedback.append(self.prompts.stuck)
            stuck = repeats >= STUCK_REPEATS
            steps += 1
            limit = self.settings.max_attempts
            out_of_attempts = bool(limit) and failures >= limit
            if self.settings.reflect and failures > 1 and not (stuck or out_of_attempts):
                cause = self._reflect("\n\n".join(feedback))
                if cause:
                    feedback.append(f"Likely cause: {cause}")
            self._add("user", "\n\n".join(feedback), "feedback", error=status == "failed")
            if stuck:
                yield Notice(f"The model wrote the same failing code {repeats} times; stopping.", "error")
                return "stuck"
            if out_of_attempts:
                yield Notice(f"Stopped after {failures} failed attempts in a row (--max-attempts {limit}).", "error")
                return "attempts"
            if self.settings.max_steps and steps >= self.settings.max_steps:
                yield Notice(f"Stopped after {steps} code runs in this turn.", "warning")
                return status

    def _retry_params(self, failures: int) -> GenParams:
        """Each failed attempt in a row raises the temperature, so a retry is not the same sample again."""
        base = self.settings.gen
        if not failures:
            return base
        return replace(base, temperature=min(base.temperature + RETRY_TEMPERATURE_STEP * failures, 1.0))

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
        stream = self.model.complete(messages, params)
        length = checked = 0
        try:
            while True:
                try:
                    piece = next(stream)
                except StopIteration as stop:
                    stats: ModelStats = stop.value or ModelStats()
                    break
                end = first_block_end("".join(pieces) + piece) if "\n" in piece else None
                if end is not None:
                    # The code is complete: anything after it would be the model imagining its output.
                    piece = piece[:end - length]
                    if piece:
                        pieces.append(piece)
                        yield TextDelta(piece)
                    stats = stop_early(stream, "code")
                    break
                pieces.append(piece)
                yield TextDelta(piece)
                length += len(piece)
                if length - checked >= LOOP_CHECK_CHARS:
                    checked = length
                    if loops_at_end("".join(pieces[-LOOP_CHECK_PIECES:])):
                        stats = stop_early(stream, "loop")
                        yield Notice("The model was repeating itself; its reply was cut.", "warning")
                        break
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            stream.close()
            self._add("assistant", "".join(pieces), "reply", interrupted=True)
            self._add("user", self.prompts.interrupted, "note")
            raise
        reply = "".join(pieces)
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
            draft_tokens=stats.draft_tokens,
            accepted_tokens=stats.accepted_tokens,
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

    def _run_block(self, block: CodeBlock, confirmed: bool = False) -> Generator[Event, None, ExecutionDone]:
        code = block.code
        if not (self.settings.auto_run or confirmed):
            if not self.settings.interactive:
                yield Notice("Code is not run without a terminal to confirm it: pass -y to run it.", "warning")
                return self._finish(block.language, code, "skipped", "", None, 0.0)
            ask = Confirm(block.language, code)
            yield ask
            if ask.answer == "a":
                self.settings.auto_run = True
            if ask.answer == "n":
                done = self._finish(block.language, code, "declined", "", None, 0.0)
                self._add("user", self.prompts.declined, "note")
                return done
            code = ask.code
        try:
            kernel = self.kernels.python if block.language == "shell" else self.kernels.get(block.language)
        except KernelError as exc:
            kernel, error = None, f"The {block.language} kernel could not start: {exc}"
        else:
            error = (f"No kernel for '{block.language}' is installed. Languages available: "
                     f"{', '.join(self.kernels.available())}.")
        if kernel is None:
            done = self._finish(block.language, code, "error", "", error, 0.0)
            yield done
            return done

        kept = HeadTail(self.settings.max_output)
        if not kernel.is_alive():
            # It died while idle (killed from outside, out of memory): the code is not to blame for that.
            try:
                kernel.restart()
            except KernelError as exc:
                done = self._finish(block.language, code, "died", "", f"The kernel died and could not be "
                                    f"restarted: {exc}", 0.0)
                yield done
                return done
            yield Notice("The kernel had died since the last run; a fresh one was started (all variables were "
                         "lost).", "error")
            kept.add("[The kernel had died since the last run; this code ran in a fresh one, so earlier variables "
                     "are gone.]\n")
        yield ExecutionStart(block.language, code)
        started = time.monotonic()
        source = Kernel.shell_source(code) if block.language == "shell" else code
        run = kernel.execute(
            source,
            allow_stdin=self.settings.interactive and not self.settings.auto_run,
            timeout=self.settings.timeout,
        )
        files = unsaved = 0
        try:
            while True:
                try:
                    item = next(run)
                except StopIteration as stop:
                    result: RunResult = stop.value
                    break
                if isinstance(item, DisplayData):
                    if files >= MAX_FILES_PER_RUN:
                        unsaved += 1
                    else:
                        for mime, path in self.outputs.save(item.data):
                            files += 1
                            kept.add(f"[{mime} saved to {path}]\n")
                            yield OutputFile(str(path), mime)
                    text = item.data.get("text/plain")
                    if not isinstance(text, str):
                        continue
                    item = OutputChunk("result", text + "\n")
                if isinstance(item, OutputChunk):
                    kept.add(item.text)
                elif isinstance(item, InputRequest):
                    kept.add(item.prompt)
                yield item
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            run.close()
            self._finish(block.language, code, "interrupted", kept.text(), None, time.monotonic() - started)
            self._add("user", self.prompts.interrupted, "note")
            raise
        if unsaved:
            kept.add(f"[{unsaved} more rich outputs not saved: at most {MAX_FILES_PER_RUN} files per run]\n")
            yield Notice(f"{unsaved} more rich outputs were not saved (at most {MAX_FILES_PER_RUN} files per run).",
                         "warning")
        error = result.error
        if block.language == "shell" and result.ename == "ShellError":
            error = f"The command failed with {result.evalue}."
        elif error:
            # A deep recursion's traceback runs to megabytes; its head and its last frames are what explain it.
            bounded = HeadTail(self.settings.max_output)
            bounded.add(error)
            error = bounded.text()
        if result.status == "died" or result.wedged:
            what = "died" if result.status == "died" else "did not stop its code when interrupted"
            try:
                kernel.restart()
                yield Notice(f"The kernel {what}; a fresh one was started (all variables were lost).", "error")
            except KernelError as exc:
                yield Notice(f"The kernel {what} and could not be restarted: {exc}", "error")
        done = self._finish(block.language, code, result.status, kept.text(), error, time.monotonic() - started)
        yield done
        return done

    def _finish(
        self, language: str, code: str, status: str, output: str, error: str | None, duration: float
    ) -> ExecutionDone:
        output = for_model(output)
        self.journal.record(
            "execution", language=language, code=code, output=output, error=error, status=status,
            duration_s=round(duration, 3),
        )
        return ExecutionDone(language, code, status, output, error, duration)
