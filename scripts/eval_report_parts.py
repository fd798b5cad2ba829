"""DABench's figures per part of the split (tune, check) and per wording of the request, with the mean over the
wordings and the worst wording beside it: a change kept for a mean that one wording's loss pays for is fitted to the
wordings it gained on. Pure functions over the eval's results, for scripts/eval_report.py."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from eval_dabench import WORDINGS
from eval_dabench_split import PARTS, part_of_question

if TYPE_CHECKING:
    from eval_report import TaskResult

Counts = dict[tuple[str, str], dict[str, tuple[int, int]]]  # (system, part) -> wording -> (right, questions)


def spread(values: list[float]) -> str:
    """Mean ± standard deviation [min–max] (a mean over wordings rounded to tenths)."""
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    low, high = round(min(values), 1), round(max(values), 1)
    return f"{statistics.mean(values):6.1f} ± {sd:4.1f} [{low:g}–{high:g}]"


def part(r: TaskResult) -> str:
    """The result's part of the split; for a result written before parts were recorded, its question's."""
    if r.part:
        return r.part
    try:
        qid = int(r.task.removeprefix("DABench/").partition("~")[0])
    except ValueError:
        return "unlisted"
    return part_of_question(qid) or "unlisted"


def wording(r: TaskResult) -> str:
    """The result's wording (before wordings were recorded, every request was the benchmark's)."""
    return r.wording or r.task.partition("~")[2] or "benchmark"


def tally(rows: Iterable[TaskResult]) -> Counts:
    """Questions right and asked, per system and part (and "all", over the parts) and wording."""
    counts: Counts = {}
    for r in rows:
        if r.tier != "dabench":
            continue
        for where in (part(r), "all"):
            cell = counts.setdefault((r.system, where), {})
            right, asked = cell.get(wording(r), (0, 0))
            cell[wording(r)] = (right + r.passed, asked + 1)
    return counts


def _ordered(counts: Counts) -> list[tuple[str, str]]:
    """The (system, part) keys, parts in order tune, check, others, "all" last (left out with a single part)."""
    rank = {p: i for i, p in enumerate((*PARTS, "unlisted", "all"))}
    keys = sorted(counts, key=lambda k: rank.get(k[1], len(rank)))
    if len({p for _, p in keys}) == 2:  # one part and "all": the same figures twice
        keys = [k for k in keys if k[1] != "all"]
    return keys


def _wordings(counts: Counts) -> list[str]:
    found = {w for cell in counts.values() for w in cell}
    return [w for w in WORDINGS if w in found] + sorted(found - set(WORDINGS))


def worst(cell: dict[str, tuple[int, int]]) -> str:
    """The wording with the lowest share of questions right (the first in WORDINGS' order on a tie)."""
    order = list(WORDINGS)
    return min(cell, key=lambda w: (cell[w][0] / cell[w][1], order.index(w) if w in order else len(order)))


def table(rows: list[TaskResult], systems: list[str]) -> Iterator[str]:
    """One run's table: per system and part, the questions right in each wording, their mean share over the
    wordings, and the worst wording."""
    counts = tally(rows)
    wordings = _wordings(counts)
    yield (f"{'system':8}{'part':10}" + "".join(f"{w:>14}" for w in wordings) + f"{'mean':>8}"
           f"{'worst':>16}")
    for system in systems:
        for key in (k for k in _ordered(counts) if k[0] == system):
            cell = counts[key]
            shares = [k / n for k, n in cell.values()]
            low = worst(cell)
            cells = "".join(f"{_frac(*cell[w]) if w in cell else '-':>14}" for w in wordings)
            yield (f"{system:8}{key[1]:10}{cells}{statistics.mean(shares):8.0%}"
                   f"{f'{low} {cell[low][0] / cell[low][1]:.0%}':>16}")


def _frac(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})"


def _series(per_seed: list[Counts], key: tuple[str, str], wordings: list[str]) -> dict[str, list[float]]:
    """Per wording, then "mean" (over the wordings) and "worst" (the worst wording's), the questions right, one value
    a seed; only the wordings every seed ran."""
    cells = [c[key] for c in per_seed]
    series = {w: [float(cell[w][0]) for cell in cells] for w in wordings if all(w in cell for cell in cells)}
    series["mean"] = [statistics.mean(right for right, _ in cell.values()) for cell in cells]
    series["worst"] = [float(cell[worst(cell)][0]) for cell in cells]
    return series


def _common(per_seed: list[Counts]) -> list[tuple[str, str]]:
    return [k for k in _ordered(per_seed[0]) if all(k in c for c in per_seed)]


def across_seeds(runs: dict[int, list[TaskResult]], systems: list[str]) -> Iterator[str]:
    """Over the seeds: per system and part, the questions right in each wording, their mean over the wordings and the
    worst wording's (mean ± sd [min–max]); then interp − naive per part, paired by seed."""
    per_seed = [tally(rows) for rows in runs.values()]
    if not per_seed or not per_seed[0]:
        return
    wordings = _wordings(per_seed[0])
    yield ("dabench per part and wording, questions right over the seeds: mean ± sd [min–max]; mean: over the "
           "wordings; worst: the worst wording's, named per seed")
    series = {k: _series(per_seed, k, wordings) for k in _common(per_seed)}
    for (system, where), values in series.items():
        if system not in systems:
            continue
        asked = per_seed[0][(system, where)]
        for name, row in values.items():
            note = f" (of {asked[name][1]})" if name in asked else ""
            if name == "worst":
                note = " (" + ", ".join(worst(c[(system, where)]) for c in per_seed) + ")"
            yield f"  {system:7}{where:10}{name:12}{spread(row)}{note}"
    for where in dict.fromkeys(p for _, p in series):
        if ("interp", where) in series and ("naive", where) in series:
            for name in ("mean", "worst"):
                diff = [i - n for i, n in zip(series[("interp", where)][name], series[("naive", where)][name],
                                              strict=True)]
                yield f"  interp − naive {where:10}{name:7}{spread(diff)}"


def paired(a: dict[int, list[TaskResult]], b: dict[int, list[TaskResult]]) -> Iterator[str]:
    """B − A over the seeds both ran, on the dabench tasks both ran: per system and part, the questions right in each
    wording, their mean over the wordings, and the worst wording's (each side's own worst)."""
    seeds = [seed for seed in a if seed in b]
    sides: tuple[list[Counts], list[Counts]] = ([], [])
    for seed in seeds:
        left = {(r.tier, r.system, r.task): r for r in a[seed]}
        right = {(r.tier, r.system, r.task): r for r in b[seed]}
        common = [k for k in left if k in right and k[0] == "dabench"]
        sides[0].append(tally(left[k] for k in common))
        sides[1].append(tally(right[k] for k in common))
    if not seeds or not sides[0][0]:
        return
    wordings = _wordings(sides[0][0])
    yield (f"B − A on dabench per part and wording, questions right, over seeds {', '.join(map(str, seeds))}: "
           "mean ± sd [min–max]; mean: over the wordings; worst: each side's worst wording's")
    for key in _common(sides[0]):
        before, after = _series(sides[0], key, wordings), _series(sides[1], key, wordings)
        for name in before:
            diff = [y - x for x, y in zip(before[name], after[name], strict=True)]
            yield f"  {key[0]:7}{key[1]:10}{name:12}{spread(diff)}"
