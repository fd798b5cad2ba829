"""DABench dev's two parts, tune and check, so that a change cannot fit the eval by accident: a change is designed and
tried on tune, and kept only when it helps on check too (the same seeds on both sides).

The split is by file: every question on one CSV file lies in the same part, and so do the files of one source
(KIN: titanic's train and test, gapminder's two tables), so that what a change learns about a table on tune never
meets that table on check. It holds about a third of the 128 questions in check, with the levels in about the same
proportions. It was made once by `propose` and is read from eval_dabench_split.json, the data, ever since: a new
listing of the data folder cannot move a file from one part to the other. A file in neither list belongs to no part
(`--part all` runs it; tune and check do not). The JSON also names each part's question ids, so the report can split
a run's results written before the parts existed.

    .venv/bin/python scripts/eval_dabench_split.py            # the split's counts per part and level
    .venv/bin/python scripts/eval_dabench_split.py --propose  # what `propose` makes of the data (not written)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Iterable
from functools import cache
from pathlib import Path

PARTS = ("tune", "check")
SPLIT = Path(__file__).resolve().parent / "eval_dabench_split.json"
KIN = (("titanic_test.csv", "titanic_train.csv"), ("gapminder_cleaned.csv", "gapminder_gdp_asia.csv"))
CHECK_SHARE = 1 / 3
TRIES = 2000  # shuffles `propose` weighs


@cache
def split(path: Path = SPLIT) -> dict[str, dict[str, list]]:
    """The recorded split: per part, its files and its question ids."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {part: data[part] for part in PARTS}


def part_of(file_name: str) -> str:
    """The part a question on this file belongs to: "tune", "check", or "" for a file the split does not list."""
    return next((part for part, listed in split().items() if file_name in listed["files"]), "")


def part_of_question(qid: int) -> str:
    """The part of a question, by its id (for results that did not record their part)."""
    return next((part for part, listed in split().items() if qid in listed["questions"]), "")


def _groups(files: Iterable[str]) -> list[tuple[str, ...]]:
    """The files, sorted, each kin group as one."""
    files = sorted(set(files))
    groups = [tuple(f for f in kin if f in files) for kin in KIN]
    grouped = {f for g in groups for f in g}
    return sorted([g for g in groups if g] + [(f,) for f in files if f not in grouped])


def _cost(chosen: Counter[str], totals: Counter[str]) -> float:
    """How far a check part is from a third of the questions, and of each level's questions."""
    size = abs(sum(chosen.values()) - CHECK_SHARE * sum(totals.values()))
    return 2 * size + sum(abs(chosen[level] - CHECK_SHARE * n) for level, n in totals.items())


def propose(questions: Iterable[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The split made once from (file name, level) pairs: of TRIES seeded shuffles of the file groups, the prefix
    nearest to a third of the questions and of each level (`_cost`), the first such on a tie, is check; the rest is
    tune. Deterministic: the same questions give the same split on any machine. Returns (tune files, check files)."""
    per_file: dict[str, Counter[str]] = {}
    for file_name, level in questions:
        per_file.setdefault(file_name, Counter())[level] += 1
    totals = sum(per_file.values(), Counter())
    best: tuple[float, list[str]] = (float("inf"), [])
    for seed in range(TRIES):
        groups = _groups(per_file)
        random.Random(seed).shuffle(groups)
        chosen: Counter[str] = Counter()
        for end, group in enumerate(groups, 1):
            for f in group:
                chosen += per_file[f]
            if (cost := _cost(chosen, totals)) < best[0]:
                best = (cost, [f for g in groups[:end] for f in g])
    check = sorted(best[1])
    return sorted(set(per_file) - set(check)), check


def table(questions: Iterable[tuple[int, str, str]], parts: dict[str, list[str]]) -> list[str]:
    """Questions per part and level, from (id, file name, level) triples and each part's files."""
    counts: dict[str, Counter[str]] = {part: Counter() for part in [*parts, ""]}
    for _, file_name, level in questions:
        part = next((p for p, files in parts.items() if file_name in files), "")
        counts[part][level] += 1
    rows = [f"{'part':8}{'files':>6}{'easy':>6}{'medium':>8}{'hard':>6}{'all':>6}"]
    for part, c in counts.items():
        if part or c:
            rows.append(f"{part or 'unlisted':8}{len(parts.get(part, [])):6}{c['easy']:6}{c['medium']:8}"
                        f"{c['hard']:6}{sum(c.values()):6}")
    return rows


def main() -> int:
    from eval_dabench import data_dir, load  # here: eval_dabench reads this module's parts

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, help="the data's folder (default: ../shared/dabench-dev)")
    ap.add_argument("--propose", action="store_true", help="show what `propose` makes of the data, not the record")
    args = ap.parse_args()
    folder = data_dir(args.data)
    if not (folder / "questions.jsonl").is_file():
        print(f"eval_dabench_split: no DABench data in {folder} (name its folder with --data)", file=sys.stderr)
        return 2
    questions = [(q.id, q.file_name, q.level) for q in load(folder)]
    if args.propose:
        tune, check = propose((f, level) for _, f, level in questions)
        parts = {"tune": tune, "check": check}
        print(json.dumps({part: {"files": files, "questions": [i for i, f, _ in questions if f in files]}
                          for part, files in parts.items()}, indent=1))
    else:
        parts = {part: listed["files"] for part, listed in split().items()}
    print("\n".join(table(questions, parts)), file=sys.stderr if args.propose else sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
