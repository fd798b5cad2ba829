"""Each rule's effect, from scripts/eval.py runs with every rule and without some (their --json files):

    .venv/bin/python scripts/eval.py --tiers simple,hard --seeds 7,8 --system interp --json all.json
    .venv/bin/python scripts/eval.py --tiers simple,hard --seeds 7,8 --system interp --without near_miss --json nm.json
    .venv/bin/python scripts/eval.py --tiers simple,hard --seeds 7,8 --system interp --without unran --json nu.json
    .venv/bin/python scripts/eval_rules.py all.json nm.json nu.json

Per rule of interp/rules/registry.py: how often it fired in the run with every rule (and in how many tasks), and for
each run that left it out, the passes with it and without it over the tasks and seeds both runs hold, in all and in the
tasks where it fired. Run every side with the same --dir, model, temperature and token limit, so the seeds pair.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from eval_report import TaskResult, unpaired

from interp.rules.registry import RULES


def load(path: Path) -> tuple[dict[str, Any], dict[tuple[Any, str, str, str], TaskResult]]:
    """A run's settings, and its interp results by (seed, tier, system, task)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    results = {(run["seed"], r["tier"], r["system"], r["task"]): TaskResult(**r)
               for run in data["runs"] for r in run["results"] if r["system"] == "interp"}
    return data["settings"], results


def left_out(settings: dict[str, Any]) -> set[str]:
    """The rules a run went without."""
    return set(settings.get("without") or ())


def rows(base: dict[tuple[Any, str, str, str], TaskResult],
         ablations: list[tuple[str, dict[tuple[Any, str, str, str], TaskResult], set[str]]]) -> list[str]:
    """The report's lines: a markdown table, a row per rule (and per run that left it out)."""
    lines = ["| rule | fired (tasks) | run without it | passes with / without, all | where it fired |",
             "| --- | --- | --- | --- | --- |"]
    for rule in RULES:
        fired = {key: r.fired.get(rule.id, 0) for key, r in base.items() if r.fired.get(rule.id)}
        head = f"| {rule.id} | {sum(fired.values())} ({len(fired)}) |"
        runs = [(name, results) for name, results, out in ablations if rule.id in out]
        if not runs:
            lines.append(f"{head} | | | |")
        for name, results in runs:
            both = sorted(set(base) & set(results), key=str)
            where = [key for key in both if key in fired]
            lines.append(f"{head} {name} | {_passes(base, both)} / {_passes(results, both)} of {len(both)} | "
                         f"{_passes(base, where)} / {_passes(results, where)} of {len(where)} |")
    return lines


def _passes(results: dict[tuple[Any, str, str, str], TaskResult], keys: list[tuple[Any, str, str, str]]) -> int:
    return sum(results[key].passed for key in keys)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", type=Path, help="the run with every rule")
    ap.add_argument("ablated", type=Path, nargs="*", help="runs with --without")
    args = ap.parse_args()
    try:
        settings, base = load(args.base)
        ablations = []
        for path in args.ablated:
            other, results = load(path)
            for reason in unpaired(settings, other):
                print(f"{path.name} not paired: {reason}")
            ablations.append((path.name, results, left_out(other)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"eval_rules: cannot read a run: {exc}", file=sys.stderr)
        return 2
    for line in rows(base, ablations):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
