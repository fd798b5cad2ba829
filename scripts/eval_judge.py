"""What an eval task is, and how a system's run of it is judged: on executions that succeeded, and on the final reply.

A task passes when its last turn has a successful execution, its check passes on the answering execution (the last
successful one of the last turn that printed something, or the last successful one when none printed) and the folder
as the run left it, and the final reply does not contradict the answer (for a task with a single expected value).
It passes on the first attempt when the first execution of every turn succeeded and the check passes on the first
execution of the last turn, with the folder as it was right after that execution.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from eval_checks import Check, Evidence, answer_number, contradicts


@dataclass(frozen=True)
class Example:
    """An output (and the files written) that a task's check is tested against: tests/eval/test_eval_checks.py.
    In the output, {folder} stands for the task's folder and {today} for today's date (ISO)."""

    output: str = ""
    files: Mapping[str, str | bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    name: str
    kind: str
    turns: tuple[str, ...]
    check: Check
    good: Example  # passes
    bad: tuple[Example, ...]  # each fails: the wrong answers a system is likely to give
    setup: Mapping[str, str | bytes] = field(default_factory=dict)  # files made before the first turn
    value: float | None = None  # the single expected value, which the final reply must not contradict
    tol: float = 1e-9

    @property
    def asked(self) -> str:
        return "\n".join(self.turns)

    def passes(self, output: str, folder: Path) -> bool:
        """The check alone, with files the code left unreadable or malformed counted as a failure."""
        try:
            return self.check(Evidence(output, folder, self.asked))
        except (OSError, ValueError):
            return False

    def contradicted(self, reply: str) -> bool:
        return self.value is not None and contradicts(reply, self.value, self.tol, self.asked)


def number_task(name: str, kind: str, turns: tuple[str, ...], value: float, *, bad: tuple[Example, ...],
                tol: float = 1e-9, good: Example | None = None, setup: Mapping[str, str | bytes] | None = None,
                check: Check | None = None) -> Task:
    """A task whose answer is one number: checked by answer_number unless `check` says more."""
    return Task(name, kind, turns, check or answer_number(value, tol), good or Example(f"{value:.10g}\n"), bad,
                setup or {}, value, tol)


def write_files(folder: Path, files: Mapping[str, str | bytes]) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@dataclass
class Execution:
    turn: int
    status: str  # 'ok', 'error', 'timeout', ...
    output: str
    language: str = "python"
    code: str = ""


@dataclass
class Trace:
    """What one system did on one task of `turns` requests, recorded as it happens. `first_check`, given the output
    of the last turn's first execution, judges the first attempts when that execution ends, before later executions
    change the folder."""

    turns: int
    deadline: float
    first_check: Callable[[str], bool] | None = None
    executions: list[Execution] = field(default_factory=list)
    turn_status: list[str] = field(default_factory=list)
    last_reply: str = ""
    timed_out: bool = False
    checked_first: bool = False

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def expired(self) -> bool:
        self.timed_out = self.timed_out or self.left() <= 0
        return self.timed_out

    def executed(self, execution: Execution) -> None:
        first = all(e.turn != execution.turn for e in self.executions)
        self.executions.append(execution)
        if first and execution.turn == self.turns - 1 and self.first_check is not None:
            firsts = self.first_executions()
            self.checked_first = (len(firsts) == self.turns and all(e.status == "ok" for e in firsts)
                                  and self.first_check(execution.output))

    def first_executions(self) -> list[Execution]:
        seen: dict[int, Execution] = {}
        for e in self.executions:
            seen.setdefault(e.turn, e)
        return list(seen.values())

    def first_failed(self) -> bool:
        """Whether the first execution of some turn failed: what the loop may repair."""
        return any(e.status != "ok" for e in self.first_executions())

    def answering(self) -> Execution | None:
        last = [e for e in self.executions if e.turn == self.turns - 1 and e.status == "ok"]
        printed = [e for e in last if e.output.strip()]
        return (printed or last or [None])[-1]


@contextlib.contextmanager
def ctrl_c_at_deadline(trace: Trace) -> Iterator[None]:
    """Presses Ctrl-C (SIGINT to this process) when the task's time runs out, as a person would, and counts the
    interruption as the task's timeout. The clock read between a session's events is not enough: a model call shows
    no event while it reads its prompt, so a call begun just before the cap ran on past it. A Ctrl-C that is not
    this one (the person running the eval) propagates."""
    pressed = threading.Event()

    def press() -> None:
        pressed.set()
        os.kill(os.getpid(), signal.SIGINT)

    # A shell starts a command sent to the background (`eval.py ... &`, nohup) with SIGINT ignored, and Python keeps
    # it so: the press would do nothing outside a model call (llama.cpp's calls set a handler of their own).
    ignored = threading.current_thread() is threading.main_thread() \
        and signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(max(trace.left(), 0.0), press)
    timer.daemon = True
    timer.start()
    try:
        try:
            yield
        finally:
            timer.cancel()
            timer.join()
            if pressed.is_set():
                time.sleep(0.05)  # a Ctrl-C pressed as the work ended lands here, not in the caller
            if ignored:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:
        if not pressed.is_set():
            raise
        trace.timed_out = True
        if len(trace.turn_status) < trace.turns:
            trace.turn_status.append("timeout")


def start_trace(task: Task, folder: Path, deadline: float) -> Trace:
    return Trace(len(task.turns), deadline, lambda output: task.passes(output, folder))


def answered(task: Task, trace: Trace, folder: Path) -> bool:
    """The check alone, on the answering execution: whether the output and the folder hold the answer."""
    answer = trace.answering()
    return not trace.timed_out and answer is not None and task.passes(answer.output, folder)


def contradicted(task: Task, trace: Trace, folder: Path) -> bool:
    """Whether the final reply states another value than the answer that the output holds."""
    return answered(task, trace, folder) and task.contradicted(trace.last_reply)


def passed(task: Task, trace: Trace, folder: Path) -> bool:
    return answered(task, trace, folder) and not task.contradicted(trace.last_reply)


def passed_first(task: Task, trace: Trace) -> bool:
    return trace.checked_first and not task.contradicted(trace.last_reply)
