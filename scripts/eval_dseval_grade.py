"""The grader of the dseval tier (scripts/eval_dseval.py): the benchmark's own grade.py, run on the code of each turn
in a process of its own, confined to a scratch folder.

grade.py replays submitted code with exec(): it may do anything the code does. So it runs in `scratch`, the only
place it may write (Landlock, applied by interp/runtime/_confine.py before grade.py starts; Landlock also denies it
TCP), with its temporary folders there too, and it is killed with its process group after GRADE_S. Where Landlock is
missing it runs unconfined and says so on its stderr (kept in scratch/grader.stderr).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import interp

if TYPE_CHECKING:
    from eval_dseval import SessionTask, TurnRun

GRADE_S = 300.0  # the grader's cap per session
CONFINE = Path(interp.__file__).resolve().parent / "runtime" / "_confine.py"
# Run by the grader's interpreter before anything else: confine writes to the working folder, then run grade.py.
LAUNCH = ("import os, runpy, sys\n"
          "c = runpy.run_path(sys.argv[1])\n"
          "abi = c['landlock_abi']()\n"
          "if abi:\n    c['restrict']([os.getcwd()], False, abi)\n"
          "else:\n    print('eval: the grader runs unconfined: no Landlock here', file=sys.stderr)\n"
          "sys.argv = sys.argv[2:]\n"
          "runpy.run_path(sys.argv[0], run_name='__main__')\n")


@dataclass(frozen=True)
class Graded:
    """grade.py's verdicts on one session, per turn; `right` and `printed` are None for a turn it does not score (its
    reference fails in this environment, or fails its own check)."""

    verdicts: list[str]
    right: list[bool | None]  # strict: the turn's last cell has the answer as its value
    printed: list[bool | None]  # counting printed answers (DSEval's presentation errors) as right
    error: str | None = None  # why the grader gave no verdicts

    @property
    def graded(self) -> int:
        return sum(r is not None for r in self.right)

    @property
    def whole(self) -> bool:
        """Every turn scored was right, strictly (at least one was scored)."""
        return self.graded > 0 and all(r is not False for r in self.right)


def grade(task: SessionTask, runs: list[TurnRun], scratch: Path, folder: Path, timeout: float = GRADE_S) -> Graded:
    """Grades the turns' cells with the task's grade.py (--mode free) in a confined process working in `scratch`;
    the submission and the grader's record are kept there."""
    scratch.mkdir(parents=True, exist_ok=True)
    submission = {"id": task.id, "turns": [{"cells": [relative(c, folder) for c in run.cells]} for run in runs]}
    (scratch / "submission.jsonl").write_text(json.dumps(submission) + "\n", encoding="utf-8")
    argv = [sys.executable, "-I", "-B", "-c", LAUNCH, str(CONFINE), str(task.data / "grade.py"), "grade",
            "--tasks", str(task.data / "tasks.jsonl"), "--data", str(task.data / "data"), "--ids", task.id,
            "--submissions", "submission.jsonl", "--out", "graded.jsonl", "--mode", "free"]
    env = {**os.environ, "TMPDIR": str(scratch), "MPLCONFIGDIR": str(scratch / "matplotlib"), "MPLBACKEND": "Agg"}
    process = subprocess.Popen(argv, cwd=scratch, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, errors = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the grader's group: what the replayed code started ends too
        process.communicate()
        return failed(len(runs), f"the grader ran past {timeout:g}s")
    (scratch / "grader.stderr").write_text(errors, encoding="utf-8")
    try:
        record = json.loads((scratch / "graded.jsonl").read_text(encoding="utf-8").splitlines()[0])
        turns = {turn["turn"]: turn for turn in record["turns"]}
    except (OSError, ValueError, IndexError, KeyError, TypeError):
        return failed(len(runs), f"the grader gave no verdicts (exit {process.returncode}): {errors[-300:].strip()}")
    rows = [turns.get(k, {}) for k in range(len(runs))]
    return Graded([str(t.get("verdict", "MISSING")) for t in rows], [t.get("passed", False) for t in rows],
                  [None if t.get("passed", False) is None else bool(t.get("passed_lenient")) for t in rows])


def failed(turns: int, error: str) -> Graded:
    """Every turn wrong: the grader did not judge them."""
    return Graded(["GRADER_FAILED"] * turns, [False] * turns, [False] * turns, error)


def relative(code: str, folder: Path) -> str:
    """The code with the kernel's working folder written as a relative path: the grader replays it elsewhere."""
    for place in dict.fromkeys((str(folder), os.path.realpath(folder))):
        code = code.replace(place + os.sep, "").replace(place, ".")
    return code
