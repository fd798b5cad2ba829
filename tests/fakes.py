"""Kernels that misbehave on purpose, in-process (after jupyter_client's test kernels), and a session built on them
with a scripted model: the loop's tests run in milliseconds, with no ipykernel and no real model.

Each fake implements interp.runtime.kernel_api.KernelLike: `execute` yields outputs and returns a RunResult, as a real
kernel does, including the timeout and the interrupt (closing the run, or throwing Ctrl-C into it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path
from typing import Any

from interp.common.events import Confirm, Event, InputRequest, ModelStats, OutputChunk, TurnEnd
from interp.config import Config
from interp.models.base import NOTHING_AHEAD, Ahead, GenParams, Message, StopReply, Together
from interp.models.script import ScriptModel
from interp.prompts import Prompts
from interp.runtime.kernel_api import KernelError, KernelLike, Output, RunResult
from interp.runtime.outputs import OutputFolder
from interp.runtime.sandbox import Sandbox
from interp.session import Session
from interp.stores.journal import Journal

Item = Output | RunResult
Handler = Callable[[str], Iterable[Item]]
SAFETY_S = 10.0  # a fake that hangs gives up after this long, so a broken test fails instead of hanging the suite


def out(text: str, stream: str = "stdout") -> OutputChunk:
    return OutputChunk(stream, text)


def raised(ename: str, evalue: str) -> RunResult:
    """A run that ended in an exception, with the short traceback a real kernel would clean to."""
    return RunResult("error", f"Traceback (most recent call last):\n  ...\n{ename}: {evalue}", ename, evalue)


class FakeKernel:
    """A kernel whose runs are decided by `handler(code)`: the outputs to yield, and optionally a RunResult to end
    with (else the run is 'ok'). Records what it was asked to do."""

    def __init__(self, handler: Handler | None = None) -> None:
        self.handler = handler or (lambda code: [])
        self.executed: list[str] = []
        self.answers: list[str | None] = []
        self.interrupts = self.restarts = self.shutdowns = 0
        self.alive = True
        self.restart_error: str | None = None  # restart() raises KernelError with this (an attached kernel)
        self.cwd: str | None = None  # working_directory(): None, as a kernel that cannot tell
        self.values: dict[str, str] = {}  # evaluate(): the text of each expression, by expression

    def execute(
        self, code: str, *, allow_stdin: bool = False, timeout: float = 0
    ) -> Generator[Output, None, RunResult]:
        self.executed.append(code)
        self.allow_stdin = allow_stdin
        try:
            for item in self.handler(code):
                if isinstance(item, RunResult):
                    if item.status == "died":
                        self.alive = False
                    return item
                yield item
                if isinstance(item, InputRequest):
                    self.answers.append(item.answer)
        except (KeyboardInterrupt, GeneratorExit):
            self.interrupt()
            raise
        return RunResult("ok")

    def interrupt(self) -> None:
        self.interrupts += 1

    def restart(self) -> None:
        if self.restart_error is not None:
            raise KernelError(self.restart_error)
        self.restarts += 1
        self.alive = True

    def shutdown(self) -> None:
        self.shutdowns += 1
        self.alive = False

    def is_alive(self) -> bool:
        return self.alive

    def working_directory(self) -> str | None:
        return self.cwd

    def evaluate(self, expressions: dict[str, str]) -> dict[str, str]:
        return {key: self.values[expr] for key, expr in expressions.items() if expr in self.values}


class ScriptedKernel(FakeKernel):
    """Replays one scripted run per execute(), in order; when the script is used up, runs print nothing."""

    def __init__(self, *runs: list[Item]) -> None:
        self.runs = list(runs)
        super().__init__(lambda code: self.runs.pop(0) if self.runs else [])


class DyingKernel(FakeKernel):
    """Dies during its `dies_on`-th run (1-based) after printing a line; restarts into a working kernel."""

    def __init__(self, dies_on: int = 1) -> None:
        super().__init__(self._run)
        self.dies_on = dies_on

    def _run(self, code: str) -> Iterator[Item]:
        yield out("about to die\n")
        if len(self.executed) == self.dies_on:
            yield RunResult("died", "The kernel died while running this code; its state was lost.")

    def die_while_idle(self) -> None:
        """As when the OOM killer or `kill -9` ends it between runs."""
        self.alive = False


class HangingKernel(FakeKernel):
    """Runs forever. At the timeout it interrupts itself, as the real kernel does: when it honours the interrupt the
    run ends 'timeout', state kept; when it does not, the run ends wedged, for the session to replace it."""

    def __init__(self, honours_interrupt: bool = True) -> None:
        super().__init__()
        self.honours_interrupt = honours_interrupt

    def execute(
        self, code: str, *, allow_stdin: bool = False, timeout: float = 0
    ) -> Generator[Output, None, RunResult]:
        self.executed.append(code)
        started = time.monotonic()
        try:
            while time.monotonic() - started < SAFETY_S:
                if timeout and time.monotonic() - started > timeout:
                    self.interrupt()
                    if self.honours_interrupt:
                        return RunResult("timeout", f"Timed out after {timeout:g} seconds; the run was interrupted.")
                    return RunResult("timeout", f"Timed out after {timeout:g} seconds; the code did not stop when "
                                     "interrupted, so the kernel was restarted and its state was lost.", wedged=True)
                time.sleep(0.001)
                yield from ()
        except (KeyboardInterrupt, GeneratorExit):
            self.interrupt()
            raise
        raise AssertionError(f"HangingKernel ran {SAFETY_S} s: nothing stopped it")


class FloodingKernel(FakeKernel):
    """Prints `lines` numbered lines as fast as it can, in one run."""

    def __init__(self, lines: int = 100_000) -> None:
        super().__init__(lambda code: (out(f"line {i}\n") for i in range(lines)))


class FakeKernels:
    """A KernelPool of fakes: Python, which also runs shell blocks, and any others given by language. Its sandbox is
    off; `confine` answers `confining` (allowed, notes) and counts its calls in `confined`."""

    def __init__(self, python: KernelLike, others: dict[str, KernelLike] | None = None) -> None:
        self.python = python
        self.others = others or {}
        self.sandbox = Sandbox.off()
        self.confining: tuple[bool, list[str]] = (True, [])
        self.confined = 0

    def confine(self) -> tuple[bool, list[str]]:
        self.confined += 1
        return self.confining

    def get(self, language: str) -> KernelLike | None:
        return self.python if language == "python" else self.others.get(language)

    def available(self) -> list[str]:
        return sorted({"python", "shell", *self.others})

    def restart(self) -> None:
        self.python.restart()

    def shutdown(self) -> None:
        for kernel in [self.python, *self.others.values()]:
            kernel.shutdown()


class TickingModel(ScriptModel):
    """A scripted model whose every piece of a reply takes `seconds` of a clock the test reads (`now[0]`, patched
    into time.monotonic): a slow model, with no waiting."""

    def __init__(self, replies: list[str], now: list[float], seconds: float = 1.0) -> None:
        super().__init__(replies)
        self.now, self.seconds = now, seconds

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        stream = super().complete(messages, params)
        try:
            piece = next(stream)
            while True:
                self.now[0] += self.seconds
                try:
                    yield piece
                except StopReply:
                    piece = stream.throw(StopReply)
                else:
                    piece = next(stream)
        except StopIteration as stop:
            return stop.value


class BatchingModel(ScriptModel):
    """A scripted model that offers the service of replies decoded together (models/base.Together) and records what
    each call asks for ahead (`batches`, one for each of `params`); it decodes none together: each reply is the
    script's next, and none is ever waiting."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies)
        self.batches: list[Ahead] = []

    def together(self) -> Together:
        return self

    def waiting(self, messages: list[Message], params: GenParams) -> bool:
        return False

    def complete(self, messages: list[Message], params: GenParams,
                 ahead: Ahead = NOTHING_AHEAD) -> Generator[str, None, ModelStats]:
        self.batches.append(ahead)
        return (yield from super().complete(messages, params))


class KeepingModel(TickingModel):
    """A ticking scripted model that decodes replies together as the llama.cpp one does (models/together.py): a call
    that asks ahead for n together takes n replies of its script, streams the first (ticking) and keeps the others
    whole; a later call with the same messages, temperature and opening takes one of those at once (waiting says
    so). It records what each call asks for ahead (`batches`)."""

    def __init__(self, replies: list[str], now: list[float], seconds: float = 1.0) -> None:
        super().__init__(replies, now, seconds)
        self.kept: list[tuple[tuple[str, float, str], str]] = []
        self.batches: list[Ahead] = []

    def together(self) -> Together:
        return self

    def waiting(self, messages: list[Message], params: GenParams) -> bool:
        return any(key == _key(messages, params) for key, _ in self.kept)

    def complete(self, messages: list[Message], params: GenParams,
                 ahead: Ahead = NOTHING_AHEAD) -> Generator[str, None, ModelStats]:
        self.batches.append(ahead)
        key = _key(messages, params)
        for i, (its, reply) in enumerate(self.kept):
            if its == key:
                del self.kept[i]
                self._replies.insert(0, reply)
                stats = yield from ScriptModel.complete(self, messages, params)
                stats.kept = True
                return stats
        for _ in range(ahead.together - 1):
            if len(self._replies) > 1:
                self.kept.append((key, self._replies.pop(1)))
        return (yield from super().complete(messages, params))


def _key(messages: list[Message], params: GenParams) -> tuple[str, float, str]:
    return "\n".join(f"{m['role']}: {m['content']}" for m in messages), params.temperature, params.opening


def make_session(tmp_path: Path, replies: list[str], kernel: KernelLike | None = None, interactive: bool = True,
                 **config: Any) -> Session:
    """A session on a scripted model and a fake kernel (a ScriptedKernel that prints nothing, by default), with its
    journal at tmp_path/j.jsonl. `config` are Config fields; `yes` (auto-run) is on unless given, and `choose` off
    (the calls it makes after a stub's examples pass are scripted only where it is tested, test_choosing.py)."""
    config.setdefault("yes", True)
    config.setdefault("choose", 0)
    return Session(ScriptModel(replies), FakeKernels(kernel or ScriptedKernel()), Journal(tmp_path / "j.jsonl"),
                   Prompts.load(cwd=str(tmp_path)), Config(**config), OutputFolder(tmp_path / "outputs"),
                   interactive=interactive)


def drive(events: Iterator[Event], confirm: str = "y", answer: str | None = None) -> list[Event]:
    """Runs a turn to its end as a person would: every confirmation answered `confirm`, every input() `answer`."""
    seen = []
    for event in events:
        seen.append(event)
        if isinstance(event, Confirm):
            event.answer = confirm
        elif isinstance(event, InputRequest):
            event.answer = answer
    return seen


def turn(session: Session, text: str = "do it", **how: str | None) -> tuple[list[Event], str]:
    """The events of one turn and its status."""
    events = drive(session.turn(text), **how)
    end = events[-1]
    assert isinstance(end, TurnEnd)
    return events, end.status
