"""Compares two runs of scripts/eval.py, paired by seed and task, from the files its --json wrote:

    .venv/bin/python scripts/eval_compare.py BEFORE.json AFTER.json

Per seed, tier and system: each side's passes, pass@first, timeouts, model calls, median and max seconds, decoding
speed, and the tasks AFTER gained and lost against BEFORE; then the paired difference over the seeds both ran, and
on dabench per part of the split and per wording, with the mean over the wordings and the worst wording's. The
seeds pair each model call only when both runs used the same model, --dir, temperature and token limit (eval.py):
where they differ, it says so first. To judge a change, run the same eval command from a worktree at each commit.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from eval_report import TaskResult, compare, unpaired


def load(path: Path) -> tuple[dict[str, Any], dict[int, list[TaskResult]]]:
    """A run's settings and its results by seed."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["settings"], {run["seed"]: [TaskResult(**r) for r in run["results"]] for run in data["runs"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, help="the run of the commit before the change (A)")
    ap.add_argument("after", type=Path, help="the run of the commit with it (B)")
    args = ap.parse_args()
    try:
        (settings_a, a), (settings_b, b) = load(args.before), load(args.after)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"eval_compare: cannot read a run: {exc}", file=sys.stderr)
        return 2
    for reason in unpaired(settings_a, settings_b):
        print(f"not paired: {reason}")
    for row in compare(a, b):
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
