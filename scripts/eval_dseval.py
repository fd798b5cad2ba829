"""The dseval tier of scripts/eval.py: the development half of DSEval (MetaCopilot/dseval, MIT), data-science
sessions typed turn by turn into one kernel, the code each turn ran graded by the benchmark's own grade.py.

The data is not in the repository: it lies at ../shared/dseval-dev from the repository's root (tasks.jsonl, grade.py,
data/; see its README and NOTICE), and the tier is skipped when it is absent. The other half is held out: do not
fetch it or tune on it. Categories: exercise and kaggle (sessions of 4 to 18 turns, later requests using what earlier
ones built), so (StackOverflow) and leetcode (one turn each).

Each session runs in one kernel from its first turn to its last, with the task's files copied to ./inputs/ in the
kernel's working folder. The setup code a person ran before a turn (`context_code`: imports, and for a few tasks the
data the request talks about) is typed into the kernel before that turn, seeded as grade.py seeds it, and shown at
the head of the request in grade.py's own words when it goes beyond imports (the model cannot know `a` otherwise).

Grading (`grade.py grade --mode free`: the session keeps its own state, as a REPL; scripts/eval_dseval_grade.py runs
it confined): each turn's cells are the Python code that ran without an error in that turn, in order (failed runs are
left out: replayed, they would raise; shell blocks too: the grader runs Python), with the kernel's working folder
written as a relative path. grade.py judges the value of the turn's last cell (strict: a printed answer is DSEval's
"presentation error") and counts printed answers apart. interp's cells come from its journal, the naive loop's from
the executions the eval recorded.

A turn's answer has no code behind it when the turn ended (not by a timeout) on a reply in words alone (prose, no code
block) and no execution of the turn succeeded: what that reply states about the data came from nowhere the session
ran. A reply that explains beside code that failed is not counted: it offered code.
"""

from __future__ import annotations

import ast
import filecmp
import json
import os
import re
import shutil
import statistics
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval_dseval_grade import Graded
from eval_judge import Trace

from interp.common.returning import Returning
from interp.stores.journal import read

if TYPE_CHECKING:
    from eval_report import TaskResult

    from interp.runtime.kernel import Kernel

DATA = Path("../shared/dseval-dev")  # from the repository's root
CATEGORIES = {"exercise": "Exercise", "kaggle": "Kaggle", "so": "SO", "leetcode": "LeetCode"}
SESSIONS = ("exercise", "kaggle")  # the categories of several turns, whose sessions are reported whole too
TURN_S = 60.0  # the default wall-clock cap per turn: a session's cap is this times its turns, pooled
SETUP_NOTE = "(I already ran this code in the session:)"  # grade.py's render_user_message
SEED = "__import__('random').seed({n}); __import__('numpy').random.seed({n})"  # grade.py's _seed, binding no name
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
NOT_ENDED = ("timeout", "interrupted", "not run", "unfinished")  # turns whose last reply is not an answer


@dataclass(frozen=True)
class SessionTask:
    """One task of tasks.jsonl, as the eval types it: its requests, the setup code before each, its files."""

    id: str
    kind: str  # the category, lower case: exercise, kaggle, so, leetcode
    requests: tuple[str, ...]  # as the benchmark words them
    setups: tuple[str, ...]  # per turn, the code the person ran before it ("" for none)
    files: tuple[str, ...]  # under data/, copied to ./inputs/ relative to inputs_root
    inputs_root: str | None
    data: Path  # the folder of tasks.jsonl, grade.py and data/

    @property
    def name(self) -> str:
        return self.id

    @property
    def folder_name(self) -> str:
        return self.id.replace("/", "_")

    @property
    def turns(self) -> tuple[str, ...]:
        """The requests as typed: the setup code first where it goes beyond imports, in grade.py's words."""
        return tuple(f"{SETUP_NOTE}\n```python\n{setup.strip()}\n```\n{request}" if beyond_imports(setup) else request
                     for request, setup in zip(self.requests, self.setups, strict=True))


def data_dir(override: Path | None = None) -> Path:
    """Where the data is: `override`, else ../shared/dseval-dev from the repository's root."""
    return override if override is not None else (Path(__file__).resolve().parent.parent / DATA).resolve()


def load(folder: Path, categories: Iterable[str] = CATEGORIES) -> list[SessionTask]:
    """The tasks of these categories (keys of CATEGORIES), in the file's order."""
    wanted = {CATEGORIES[c] for c in categories}
    tasks = []
    for line in (folder / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else None
        if row is None or row["category"] not in wanted:
            continue
        setups = tuple(turn.get("context_code") or "" for turn in row["check"]["turns"])
        tasks.append(SessionTask(row["id"], row["category"].lower(), tuple(row["turns"]), setups,
                                 tuple(row.get("files") or ()), row.get("inputs_root"), folder))
    return tasks


def pool(override: Path | None, categories: Iterable[str]) -> list[SessionTask]:
    """The tasks of these categories from the data's folder; none, said on stderr, when the folder lacks them."""
    folder = data_dir(override)
    if not (folder / "tasks.jsonl").is_file():
        print(f"eval: dseval tier skipped: no DSEval data in {folder} (put its development half there, or name its "
              "folder with --dseval-data)", file=sys.stderr)
        return []
    return load(folder, categories)


def beyond_imports(code: str) -> bool:
    """Whether setup code does more than import (defines data the request names)."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return bool(code.strip())
    return any(not isinstance(node, (ast.Import, ast.ImportFrom)) for node in body)


def lay_out(task: SessionTask, folder: Path) -> None:
    """Copies the task's files to ./inputs/ in the working folder, where its requests name them."""
    for source, target in _copies(task, folder):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


def tidy(task: SessionTask, folder: Path) -> None:
    """Removes the copies the session left unchanged: shared data, not kept in every task's folder."""
    for source, target in _copies(task, folder):
        if target.is_file() and not target.is_symlink() and filecmp.cmp(source, target, shallow=False):
            target.unlink()


def _copies(task: SessionTask, folder: Path) -> list[tuple[Path, Path]]:
    return [(task.data / "data" / rel, folder / "inputs" / os.path.relpath(rel, task.inputs_root or "."))
            for rel in task.files]


class Turns:
    """Called by the eval between one system's turns (before each, and once past the last): types the turn's setup
    code into the kernel, times each turn from after its setup to its end, and keeps the reply the trace holds when
    a turn ends (its final reply)."""

    def __init__(self, task: SessionTask, trace: Trace, timeout: float) -> None:
        self.task, self.trace, self.timeout = task, trace, timeout
        self.starts: list[float] = []
        self.ends: list[float] = []
        self.replies: list[str] = []
        self.setup_failed: list[int] = []  # the turns whose setup code failed in the kernel

    def __call__(self, turn: int, kernel: Kernel) -> None:
        if len(self.ends) < len(self.starts):
            self.ends.append(time.monotonic())
            self.replies.append(self.trace.last_reply)
        if turn >= len(self.task.setups):
            return
        if setup := self.task.setups[turn]:
            ok = [self._type(kernel, code) for code in (SEED.format(n=1000 + turn), setup)]
            if not all(ok):
                self.setup_failed.append(turn)
        self.starts.append(time.monotonic())

    def _type(self, kernel: Kernel, code: str) -> bool:
        run = Returning(kernel.execute(code, timeout=self.timeout))
        for _ in run:
            pass
        return run.value.status == "ok"

    @property
    def seconds(self) -> list[float]:
        return [round(end - start, 2) for start, end in zip(self.starts, self.ends, strict=False)]


@dataclass
class TurnRun:
    """What one turn of a system's run left: the code to grade, its final reply, whether any code of it ran."""

    cells: list[str] = field(default_factory=list)  # the Python that ran without an error, in order
    reply: str = ""
    ran: bool = False  # an execution of the turn succeeded (any language)
    status: str = "not run"

    @property
    def unbacked(self) -> bool:
        """The turn ended on a reply in words alone, and no execution of it succeeded."""
        return (not self.ran and self.status not in NOT_ENDED and bool(self.reply.strip())
                and prose(self.reply) == self.reply)


def prose(reply: str) -> str:
    """The reply without its fenced code blocks (an unclosed fence runs to the end)."""
    return _FENCED.sub("", reply)


def from_journal(path: Path, turns: int) -> list[TurnRun]:
    """Each turn of interp's run, from its journal: requests open turns, `turn_end` closes them; an execution that
    changed a file the request reads (interp put it back: a `restored` record next) is not code to replay."""
    records = read(path) if path.is_file() else []
    runs: list[TurnRun] = []
    for i, record in enumerate(records):
        kind = record.get("type")
        if kind == "user" and record.get("kind") == "request":
            runs.append(TurnRun(status="unfinished"))
        elif not runs:
            continue
        elif kind == "execution" and record.get("status") == "ok":
            runs[-1].ran = True
            restored = i + 1 < len(records) and records[i + 1].get("type") == "restored"
            if record.get("language", "python") == "python" and not restored:
                runs[-1].cells.append(str(record.get("code", "")))
        elif kind == "assistant" and record.get("kind") == "reply":
            runs[-1].reply = str(record.get("content", ""))
        elif kind == "turn_end":
            runs[-1].status = str(record.get("status"))
    return runs[:turns] + [TurnRun() for _ in range(turns - len(runs))]


def from_trace(trace: Trace, replies: list[str], turns: int) -> list[TurnRun]:
    """Each turn of the naive loop's run, from the executions it recorded and the final replies Turns kept."""
    runs = []
    for k in range(turns):
        ok = [e for e in trace.executions if e.turn == k and e.status == "ok"]
        runs.append(TurnRun([e.code for e in ok if e.language == "python"], replies[k] if k < len(replies) else "",
                            bool(ok), trace.turn_status[k] if k < len(trace.turn_status) else "not run"))
    return runs


def result_fields(graded: Graded, runs: list[TurnRun], turns: Turns) -> dict[str, Any]:
    """The TaskResult fields of a graded session (scripts/eval_report.py)."""
    seconds = turns.seconds
    per_turn = [{"verdict": v, "right": r, "printed": p, "cells": len(run.cells), "status": run.status,
                 "unbacked": run.unbacked, "seconds": seconds[k] if k < len(seconds) else None}
                for k, (v, r, p, run) in enumerate(zip(graded.verdicts, graded.right, graded.printed, runs,
                                                       strict=True))]
    return {"passed": graded.whole, "turns_graded": graded.graded, "turns_right": sum(r is True for r in graded.right),
            "turns_printed": sum(p is True for p in graded.printed), "turn_seconds": seconds,
            "unbacked": sum(run.unbacked for run in runs), "per_turn": per_turn,
            "error": graded.error or (f"setup code failed in turns {turns.setup_failed}" if turns.setup_failed
                                      else None)}


def _frac(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "0/0"


def table(rows: list[TaskResult], systems: list[str]) -> Iterator[str]:
    """Per system and category (then all, when several): turns right strictly and counting printed answers, sessions
    wholly right (for the categories of several turns), median seconds a turn, answers without code behind them,
    timeouts."""
    kinds = [k for k in CATEGORIES if any(r.kind == k for r in rows)]
    yield (f"{'system':8}{'category':10}{'sessions':>9}{'turns right':>16}{'+ printed':>16}{'wholly right':>14}"
           f"{'median s/turn':>15}{'no code behind':>16}{'timeouts':>10}")
    for system in systems:
        for kind in [*kinds, "all"] if len(kinds) > 1 else kinds:
            cell = [r for r in rows if r.system == system and kind in (r.kind, "all")]
            if not cell:
                continue
            graded = sum(r.turns_graded for r in cell)
            seconds = [s for r in cell for s in r.turn_seconds]
            several = [r for r in cell if r.kind in SESSIONS]
            whole = _frac(sum(r.passed for r in several), len(several)) if several else "-"
            yield (f"{system:8}{kind:10}{len(cell):9}{_frac(sum(r.turns_right for r in cell), graded):>16}"
                   f"{_frac(sum(r.turns_printed for r in cell), graded):>16}{whole:>14}"
                   f"{statistics.median(seconds) if seconds else 0.0:15.1f}{sum(r.unbacked for r in cell):16}"
                   f"{sum(r.timed_out for r in cell):10}")
