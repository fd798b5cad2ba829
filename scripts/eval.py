"""Evaluation: interp's loop against a naive baseline, on the tasks of scripts/eval_tasks.py and one loaded model.

    .venv/bin/python scripts/eval.py [--model PATH] [--system both|interp|naive] [--tasks NAME,NAME] [--limit N]
                                     [--json OUT] [--threads N] [--temperature T] [--max-tokens N]
                                     [--task-seconds S] [--timeout S] [--seed N] [--dir PARENT]

interp: the real session, as `interp -y` runs it from a pipe: the system prompt, the few-shot examples, the feedback
templates, the attempts bound. naive: one short system prompt, the first fenced block of each reply run as Python,
the bare error text sent back, at most three attempts per turn. Both get a fresh kernel per task, started in the task's
scratch folder, and the same model, sampling settings and wall-clock cap.

Per task: passed (its check, over the outputs of all executions and the files in the folder), passed on the first
attempt (the same check over only the first execution of each turn, with the folder as it was right after the first
execution of the last turn), model calls, executions and seconds (from the first turn on; the kernel's start is left
out). Journals and scratch folders stay under a new folder in PARENT (default: the system's temporary folder).

Runs vary by several tasks from sampling alone. With --seed, each model call's sampling seed comes from N, the task's
name and the call's number, and the run's folder is PARENT/interp-eval-seedN (the working directory is part of the
prompt), so two runs with the same seed differ only where their prompts or policies do: a paired comparison.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Generator, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from eval_tasks import TASKS, Task

import interp
from interp.events import DisplayData, Event, ExecutionDone, ModelStats, OutputChunk, TurnEnd
from interp.journal import Journal
from interp.kernel import Kernel, KernelError, RunResult
from interp.kernels import Kernels
from interp.models import model_path
from interp.models.base import GenParams, Message, Model, ModelError
from interp.models.llama import LlamaModel
from interp.outputs import OutputFolder
from interp.prompts import Prompts
from interp.session import Session, Settings

SYSTEMS = ("naive", "interp")
NAIVE_PROMPT = "You are a helpful assistant. Answer with Python code in a ```python block."
NAIVE_ATTEMPTS = 3
_FIRST_BLOCK = re.compile(r"```[^\n]*\n(.*?)```", re.S)
# The CLI's defaults for what the flags here do not set.
MAX_ATTEMPTS = 3
MAX_OUTPUT = 2000


class CountedModel:
    """The model, counting its calls: interp makes some (a reflection on a failure) that yield no event."""

    def __init__(self, model: Model, seed: int | None = None) -> None:
        self.model = model
        self.name = model.name
        self.n_ctx = model.n_ctx
        self.calls = 0
        self.seed = seed

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        self.calls += 1
        if self.seed is not None:
            params = replace(params, seed=(self.seed + self.calls) % 2**31)
        return self.model.complete(messages, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)


@dataclass(frozen=True)
class Config:
    gen: GenParams
    task_s: float  # wall-clock cap per task
    exec_timeout_s: float  # cap per execution
    seed: int | None = None  # with a task's name, fixes the sampling seed of each of its model calls


@dataclass
class Trace:
    """What one system did on one task, recorded as it happens."""

    task: Task
    folder: Path
    deadline: float
    outputs: list[tuple[int, str]] = field(default_factory=list)  # (turn, output) per execution
    turn_status: list[str] = field(default_factory=list)
    timed_out: bool = False
    passed_first: bool = False

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def expired(self) -> bool:
        self.timed_out = self.timed_out or self.left() <= 0
        return self.timed_out

    def executed(self, turn: int, output: str) -> None:
        """Records an execution; after the first one of the last turn, judges the first attempts on the folder as
        it is now, before later executions change it."""
        first = all(t != turn for t, _ in self.outputs)
        self.outputs.append((turn, output))
        if first and turn == len(self.task.turns) - 1:
            firsts = dict(reversed(self.outputs))  # the first output of each turn
            self.passed_first = len(firsts) == len(self.task.turns) and self.task.passes(
                "\n".join(firsts[t] for t in range(len(self.task.turns))), self.folder
            )

    def passed(self) -> bool:
        return not self.timed_out and self.task.passes("\n".join(out for _, out in self.outputs), self.folder)


@dataclass
class TaskResult:
    system: str
    task: str
    kind: str
    passed: bool
    passed_first: bool
    attempts: int
    executions: int
    seconds: float
    timed_out: bool
    turn_status: list[str]
    error: str | None
    folder: str


# --- interp ---------------------------------------------------------------------------------------------------------


def run_interp(task: Task, model: Model, kernels: Kernels, base: Path, cfg: Config, trace: Trace) -> None:
    """The session `interp -y` assembles when it reads requests from a pipe, with the kernel in the task's folder."""
    settings = Settings(auto_run=True, interactive=False, max_attempts=MAX_ATTEMPTS, timeout=cfg.exec_timeout_s,
                        max_output=MAX_OUTPUT, gen=cfg.gen)
    journal = Journal(base / "journal.jsonl")
    journal.record("session", model=model.name, cwd=str(trace.folder), task=task.name)
    session = Session(model, kernels, journal, Prompts.load(cwd=str(trace.folder)), settings,
                      OutputFolder(base / "outputs"))
    try:
        for turn, text in enumerate(task.turns):
            events = cast(Generator[Event, None, None], session.turn(text))  # a generator, annotated Iterator
            trace.turn_status.append(_interp_turn(events, settings, turn, cfg, trace))
            if trace.timed_out:
                return
    finally:
        journal.close()


def _interp_turn(events: Generator[Event, None, None], settings: Settings, turn: int, cfg: Config,
                 trace: Trace) -> str:
    status = "none"
    output: list[str] = []
    for event in events:
        if isinstance(event, OutputChunk):
            output.append(event.text)
        elif isinstance(event, ExecutionDone):
            trace.executed(turn, "".join(output))
            output = []
        elif isinstance(event, TurnEnd):
            status = event.status
        if trace.expired():
            events.close()  # the session's own Ctrl-C path: generation stopped, a running execution interrupted
            return "timeout"
        # An execution may not outlast the task: the per-execution cap shrinks as the task's time runs out.
        settings.timeout = min(cfg.exec_timeout_s, trace.left())
    return status


# --- naive ----------------------------------------------------------------------------------------------------------


def run_naive(task: Task, model: Model, kernels: Kernels, base: Path, cfg: Config, trace: Trace) -> None:
    """The conversation and the outputs are saved to messages.json in the task's folder."""
    messages: list[Message] = [{"role": "system", "content": NAIVE_PROMPT}]
    try:
        for turn, text in enumerate(task.turns):
            messages.append({"role": "user", "content": text})
            trace.turn_status.append(_naive_turn(model, kernels.python, messages, turn, cfg, trace))
            if trace.timed_out:
                return
    finally:
        record = {"messages": messages, "outputs": trace.outputs}
        (base / "messages.json").write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")


def _naive_turn(model: Model, kernel: Kernel, messages: list[Message], turn: int, cfg: Config, trace: Trace) -> str:
    """Ends when code runs without an error, when a reply has no code block, or after NAIVE_ATTEMPTS runs."""
    for attempt in range(1, NAIVE_ATTEMPTS + 1):
        reply = _generate(model, messages, cfg.gen, trace)
        if reply is None:
            return "timeout"
        messages.append({"role": "assistant", "content": reply})
        block = _FIRST_BLOCK.search(reply)
        if block is None:
            return "no code"
        result = _execute(kernel, block[1], turn, cfg, trace)
        if result is None:
            return "timeout"
        if result.status == "ok":
            return "ok"
        if attempt < NAIVE_ATTEMPTS:
            head = f"{result.ename}: {result.evalue}\n" if result.ename else ""
            messages.append({"role": "user", "content": head + (result.error or "")})
    return "attempts"


def _generate(model: Model, messages: list[Message], gen: GenParams, trace: Trace) -> str | None:
    """The reply, or None when the task's time ran out first."""
    if trace.expired():
        return None
    stream = model.complete(messages, gen)
    pieces = []
    try:
        for piece in stream:
            pieces.append(piece)
            if trace.expired():
                return None
    finally:
        stream.close()
    return "".join(pieces)


def _execute(kernel: Kernel, code: str, turn: int, cfg: Config, trace: Trace) -> RunResult | None:
    """Runs code and records its output, or returns None when the task's time ran out first."""
    run = kernel.execute(code, timeout=min(cfg.exec_timeout_s, trace.left()))
    output: list[str] = []
    try:
        while True:
            try:
                item = next(run)
            except StopIteration as stop:
                trace.executed(turn, "".join(output))
                return stop.value
            if isinstance(item, OutputChunk):
                output.append(item.text)
            elif isinstance(item, DisplayData) and isinstance(text := item.data.get("text/plain"), str):
                output.append(text + "\n")
            if trace.expired():
                return None
    finally:
        run.close()


# --- the runs -------------------------------------------------------------------------------------------------------


def run_task(system: str, task: Task, llm: Model, cfg: Config, root: Path) -> TaskResult:
    base = root / system / task.name
    folder = base / "work"
    folder.mkdir(parents=True)
    for name, text in task.setup.items():
        (folder / name).write_text(text, encoding="utf-8")
    kernels = Kernels(Kernel(cwd=str(folder)))
    model = CountedModel(llm, None if cfg.seed is None else cfg.seed + zlib.crc32(task.name.encode()))
    trace = Trace(task, folder, deadline=float("inf"))
    started = time.monotonic()
    error = None
    try:
        kernels.python.start()
        kernels.python.wait_ready()
        started = time.monotonic()
        trace.deadline = started + cfg.task_s
        if system == "interp":
            run_interp(task, model, kernels, base, cfg, trace)
        else:
            run_naive(task, model, kernels, base, cfg, trace)
    except (KernelError, ModelError) as exc:
        error = str(exc)
    finally:
        seconds = time.monotonic() - started
        kernels.shutdown()
    return TaskResult(
        system=system, task=task.name, kind=task.kind, passed=error is None and trace.passed(),
        passed_first=error is None and trace.passed_first, attempts=model.calls, executions=len(trace.outputs),
        seconds=round(seconds, 2), timed_out=trace.timed_out, turn_status=trace.turn_status, error=error,
        folder=str(base),
    )


def interp_version() -> str:
    """interp's version and, in a git checkout, its commit ('+dirty' when interp/ or prompts/ has changes)."""
    root = Path(interp.__file__).resolve().parent.parent
    try:
        def git(*argv: str) -> str:
            return subprocess.run(["git", "-C", str(root), *argv], capture_output=True, text=True,
                                  check=True).stdout.strip()

        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "interp", "prompts")
    except (OSError, subprocess.CalledProcessError):
        return interp.__version__
    return f"{interp.__version__} {commit}{'+dirty' if dirty else ''}"


def select(names: str | None, limit: int) -> list[Task]:
    tasks = TASKS
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        known = {t.name: t for t in TASKS}
        unknown = [n for n in wanted if n not in known]
        if unknown:
            raise SystemExit(f"eval: unknown task(s): {', '.join(unknown)}")
        tasks = [known[n] for n in wanted]
    return tasks[:limit] if limit else tasks


def _line(r: TaskResult) -> str:
    verdict = "PASS" if r.passed else "fail"
    first = "first" if r.passed_first else "     "
    notes = ",".join(r.turn_status) + (" TIMEOUT" if r.timed_out else "") + (f" ERROR {r.error}" if r.error else "")
    return (f"{r.system:6} {r.task:20} {r.kind:6} {verdict} {first} attempts {r.attempts:2} "
            f"executions {r.executions:2} {r.seconds:6.1f}s  {notes}")


def summarize(results: list[TaskResult], systems: list[str]) -> Iterator[str]:
    """The comparison table, then passes per kind of task."""
    yield f"{'system':8}{'tasks':>6}{'pass@first':>14}{'pass (loop)':>14}{'median s':>10}{'max s':>8}{'timeouts':>10}"
    for system in systems:
        rows = [r for r in results if r.system == system]
        if not rows:
            continue
        n = len(rows)
        first = sum(r.passed_first for r in rows)
        loop = sum(r.passed for r in rows)
        seconds = [r.seconds for r in rows]
        yield (f"{system:8}{n:6}{f'{first} ({first / n:.0%})':>14}{f'{loop} ({loop / n:.0%})':>14}"
               f"{statistics.median(seconds):10.1f}{max(seconds):8.1f}{sum(r.timed_out for r in rows):10}")
    kinds = list(dict.fromkeys(r.kind for r in results))
    yield ""
    yield "passed with the loop, per kind (first attempt in brackets):"
    yield f"{'system':8}" + "".join(f"{k:>12}" for k in kinds)
    for system in systems:
        cells = []
        for kind in kinds:
            rows = [r for r in results if r.system == system and r.kind == kind]
            cells.append(f"{sum(r.passed for r in rows)}/{len(rows)} ({sum(r.passed_first for r in rows)})")
        yield f"{system:8}" + "".join(f"{c:>12}" for c in cells)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="a GGUF file (default: the embedded SmolLM2-135M)")
    ap.add_argument("--tasks", help="comma-separated task names (default: all)")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N tasks")
    ap.add_argument("--system", choices=["interp", "naive", "both"], default="both")
    ap.add_argument("--json", type=Path, help="write the per-task results to this file")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (default: physical cores)")
    ap.add_argument("--temperature", type=float, default=0.2)
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--task-seconds", type=float, default=60, help="wall-clock cap per task (default: 60)")
    ap.add_argument("--timeout", type=float, default=20, help="cap per execution in seconds (default: 20)")
    ap.add_argument("--seed", type=int, help="fix each model call's sampling seed (from this, the task's name and "
                    "the call's number), so that two runs differ only where the systems or prompts do")
    ap.add_argument("--dir", type=Path, help="parent of the run's folder of journals and scratch folders")
    args = ap.parse_args()

    tasks = select(args.tasks, args.limit)
    systems = list(SYSTEMS) if args.system == "both" else [args.system]
    cfg = Config(GenParams(max_tokens=args.max_tokens, temperature=args.temperature), args.task_seconds, args.timeout,
                 args.seed)
    if args.dir:
        args.dir.mkdir(parents=True, exist_ok=True)
    if args.seed is None:
        root = Path(tempfile.mkdtemp(prefix="interp-eval-", dir=args.dir))
    else:
        # The working directory is part of the system prompt: a paired run must name the same one.
        root = (args.dir or Path(tempfile.gettempdir())) / f"interp-eval-seed{args.seed}"
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir(parents=True)
    try:
        model = LlamaModel(model_path(args.model)[0], n_threads=args.threads)
    except ModelError as exc:
        print(f"eval: {exc}", file=sys.stderr)
        return 2
    version = interp_version()
    print(f"interp {version}; model {model.name}, {model.n_threads} threads, {len(tasks)} tasks, "
          f"systems {', '.join(systems)}, max tokens {args.max_tokens}, temperature {args.temperature:g}, "
          f"cap {args.task_seconds:g}s per task; folders in {root}", flush=True)
    results: list[TaskResult] = []
    try:
        for system in systems:
            for task in tasks:
                results.append(run_task(system, task, model, cfg, root))
                print(_line(results[-1]), flush=True)
    finally:
        model.close()
        if args.json:
            args.json.write_text(json.dumps({
                "interp": version, "model": model.name, "model_path": str(model.path),
                "settings": vars(args) | {"dir": str(root)},
                "results": [asdict(r) for r in results],
            }, indent=1, default=str), encoding="utf-8")
    print()
    for row in summarize(results, systems):
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
