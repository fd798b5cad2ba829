"""The eval's results and the tables made of them: per tier and system, and over several seeds. Pure functions:
scripts/eval.py prints what they return."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field

import eval_report_parts as parts
from eval_dabench import LEVELS
from eval_dseval import table as dseval_table
from eval_report_parts import spread as _spread


@dataclass
class TaskResult:
    tier: str
    system: str
    task: str
    kind: str
    passed: bool
    passed_first: bool
    first_failed: bool  # the first execution of some turn failed (or, for a plain chat reply, its code failed)
    contradicted: bool  # the output held the answer, and the final reply states another value
    calls: int  # model calls
    executions: int
    seconds: float
    timed_out: bool
    turn_status: list[str]
    error: str | None
    folder: str
    decoded: int = 0  # tokens the model decoded after each reply's first (runs before these were counted: 0)
    decode_s: float = 0.0  # the seconds they took
    subs: int = 0  # a dabench question's sub-answers (`@name[value]` in its label)
    subs_right: int = 0  # those answered right
    fired: dict[str, int] = field(default_factory=dict)  # interp's rules that fired in the task, and how often
    part: str = ""  # a dabench question's part of the split, tune or check ("": not recorded, or not dabench)
    wording: str = ""  # the wording its request was typed in ("": not recorded, or not dabench)
    turns_graded: int = 0  # a dseval session's turns that its grader scores
    turns_right: int = 0  # those right, strictly (the value of the turn's last cell)
    turns_printed: int = 0  # those right counting printed answers (DSEval's presentation errors)
    turn_seconds: list[float] = field(default_factory=list)  # the seconds of each turn run
    unbacked: int = 0  # turns ended on a reply in words alone, no execution of the turn having succeeded
    per_turn: list[dict[str, object]] = field(default_factory=list)  # a dseval session's turns: verdict, ...


@dataclass(frozen=True)
class Stats:
    tasks: int
    first: int
    passed: int
    first_failed: int
    repaired: int
    median_s: float
    max_s: float
    timeouts: int
    calls: int
    contradictions: int
    decoded: int
    decode_s: float

    @property
    def repair_rate(self) -> float:
        return self.repaired / self.first_failed if self.first_failed else 0.0

    @property
    def decode_tps(self) -> float:
        """The model's decoding speed over the run: two runs' times compare only at like speeds (time-bounded
        choosing draws fewer versions on a slower machine)."""
        return self.decoded / self.decode_s if self.decode_s else 0.0


def stats(rows: list[TaskResult]) -> Stats:
    seconds = [r.seconds for r in rows] or [0.0]
    return Stats(
        tasks=len(rows), first=sum(r.passed_first for r in rows), passed=sum(r.passed for r in rows),
        first_failed=sum(r.first_failed for r in rows), repaired=sum(r.first_failed and r.passed for r in rows),
        median_s=statistics.median(seconds), max_s=max(seconds), timeouts=sum(r.timed_out for r in rows),
        calls=sum(r.calls for r in rows), contradictions=sum(r.contradicted for r in rows),
        decoded=sum(r.decoded for r in rows), decode_s=sum(r.decode_s for r in rows),
    )


def line(r: TaskResult) -> str:
    verdict = "PASS" if r.passed else "fail"
    first = "first" if r.passed_first else "     "
    notes = (",".join(r.turn_status) + (" CONTRADICTED" if r.contradicted else "") + (" TIMEOUT" if r.timed_out else "")
             + (f" ERROR {r.error}" if r.error else "")
             + (f" turns right {r.turns_right}/{r.turns_graded}, {r.turns_printed} printed" if r.tier == "dseval"
                else ""))
    return (f"{r.tier:9} {r.system:6} {r.task:22} {r.kind:9} {verdict} {first} calls {r.calls:2} "
            f"executions {r.executions:2} {r.seconds:6.1f}s  {notes}")


def _pct(k: int, n: int) -> str:
    return f"{k} ({k / n:.0%})" if n else "0"


def summarize(results: list[TaskResult], systems: list[str]) -> Iterator[str]:
    """Per tier: the comparison table, then passes per kind of task (first attempts in brackets)."""
    for tier in dict.fromkeys(r.tier for r in results):
        rows = [r for r in results if r.tier == tier]
        yield f"== {tier} =="
        yield (f"{'system':8}{'tasks':>6}{'pass@first':>13}{'pass (loop)':>13}{'repaired':>10}{'median s':>10}"
               f"{'max s':>8}{'timeouts':>10}{'model calls':>13}{'contradictions':>16}{'tokens/s':>10}")
        for system in systems:
            s = stats([r for r in rows if r.system == system])
            if not s.tasks:
                continue
            yield (f"{system:8}{s.tasks:6}{_pct(s.first, s.tasks):>13}{_pct(s.passed, s.tasks):>13}"
                   f"{f'{s.repaired}/{s.first_failed}':>10}{s.median_s:10.1f}{s.max_s:8.1f}{s.timeouts:10}"
                   f"{s.calls:13}{s.contradictions:16}{s.decode_tps:10.1f}")
        kinds = list(dict.fromkeys(r.kind for r in rows))
        if tier == "dabench":
            yield from levels(rows, systems)
            yield from parts.table(rows, systems)
        elif tier == "dseval":
            yield from dseval_table(rows, systems)
        elif len(kinds) > 1:
            yield f"{'per kind':8}" + "".join(f"{k:>12}" for k in kinds)
            for system in systems:
                cells = []
                for kind in kinds:
                    cell = [r for r in rows if r.system == system and r.kind == kind]
                    cells.append(f"{sum(r.passed for r in cell)}/{len(cell)} ({sum(r.passed_first for r in cell)})")
                yield f"{system:8}" + "".join(f"{c:>12}" for c in cells)
        yield ""


def _frac(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "0/0"


def levels(rows: list[TaskResult], systems: list[str]) -> Iterator[str]:
    """dabench's table: per system and level (then all levels), the questions right (all their sub-answers right),
    the sub-answers right, median and max seconds, timeouts."""
    kinds = sorted(dict.fromkeys(r.kind for r in rows), key=lambda k: (LEVELS.index(k) if k in LEVELS else 3, k))
    yield f"{'system':8}{'level':8}{'questions right':>17}{'sub-answers right':>19}{'median s':>10}{'max s':>8}" \
          f"{'timeouts':>10}"
    for system in systems:
        for kind in [*kinds, "all"] if len(kinds) > 1 else kinds:
            cell = [r for r in rows if r.system == system and kind in (r.kind, "all")]
            if not cell:
                continue
            s = stats(cell)
            subs = _frac(sum(r.subs_right for r in cell), sum(r.subs for r in cell))
            yield (f"{system:8}{kind:8}{_frac(s.passed, s.tasks):>17}{subs:>19}{s.median_s:10.1f}{s.max_s:8.1f}"
                   f"{s.timeouts:10}")


def across_seeds(runs: dict[int, list[TaskResult]], systems: list[str]) -> Iterator[str]:
    """Mean ± standard deviation [min–max] over the seeds, of counts per tier and system; then, per tier, the paired
    difference interp − naive of each seed (the same sampling seeds on both sides); dabench's also per part and
    wording (eval_report_parts.py)."""
    seeds = list(runs)
    tiers = list(dict.fromkeys(r.tier for results in runs.values() for r in results))
    yield f"over seeds {', '.join(map(str, seeds))}: mean ± sd [min–max]"
    for tier in tiers:
        yield f"== {tier} =="
        yield f"{'system':8}{'pass@first':>28}{'pass (loop)':>28}{'repaired':>28}{'contradictions':>28}"
        per: dict[str, list[Stats]] = {}
        for system in systems:
            per[system] = [stats([r for r in runs[seed] if r.tier == tier and r.system == system]) for seed in seeds]
            if not per[system][0].tasks:
                continue
            yield (f"{system:8}" + "".join(f"{_spread([float(getattr(s, k)) for s in per[system]]):>28}"
                                          for k in ("first", "passed", "repaired", "contradictions")))
        if all(per.get(s) and per[s][0].tasks for s in ("naive", "interp")):
            diff = [float(i.passed - n.passed) for i, n in zip(per["interp"], per["naive"], strict=True)]
            diff_first = [float(i.first - n.first) for i, n in zip(per["interp"], per["naive"], strict=True)]
            yield f"{'interp − naive':22}pass@first {_spread(diff_first)}   pass {_spread(diff)}"
        if tier == "dabench":
            yield from parts.across_seeds(runs, systems)
        yield ""


def _key(r: TaskResult) -> tuple[str, str, str]:
    return r.tier, r.system, r.task


def compare(a: dict[int, list[TaskResult]], b: dict[int, list[TaskResult]]) -> Iterator[str]:
    """Run B against run A, paired by seed, tier, system and task: per seed, tier and system, each side's passes,
    pass@first, timeouts, model calls, median and max seconds, decoding speed, and the tasks B passed that A did not
    (gained) and the reverse (lost); then, over the seeds both ran, the paired difference B − A, and dabench's per
    part and wording (eval_report_parts.py). Only tasks both sides ran are compared; the others are counted."""
    seeds = [seed for seed in a if seed in b]
    if not seeds:
        yield "no seed in common: nothing to compare"
        return
    diffs: dict[tuple[str, str], list[float]] = {}
    for seed in seeds:
        left = {_key(r): r for r in a[seed]}
        right = {_key(r): r for r in b[seed]}
        common = [k for k in left if k in right]
        if len(common) < max(len(left), len(right)):
            yield (f"seed {seed}: {len(common)} tasks in both; {len(left) - len(common)} only in A, "
                   f"{len(right) - len(common)} only in B, not compared")
        for tier, system in dict.fromkeys((k[0], k[1]) for k in common):
            keys = [k for k in common if k[:2] == (tier, system)]
            sa, sb = stats([left[k] for k in keys]), stats([right[k] for k in keys])
            diffs.setdefault((tier, system), []).append(float(sb.passed - sa.passed))
            yield (f"seed {seed} {tier} {system}, {len(keys)} tasks: pass {sa.passed} → {sb.passed} "
                   f"({sb.passed - sa.passed:+d}); pass@first {sa.first} → {sb.first}; timeouts {sa.timeouts} → "
                   f"{sb.timeouts}; model calls {sa.calls} → {sb.calls}; median s {sa.median_s:.1f} → "
                   f"{sb.median_s:.1f}; max s {sa.max_s:.1f} → {sb.max_s:.1f}; tokens/s {sa.decode_tps:.1f} → "
                   f"{sb.decode_tps:.1f}")
            for word, won in (("gained", True), ("lost", False)):
                tasks = [k[2] for k in keys if right[k].passed == won and left[k].passed != won]
                yield f"  {word} ({len(tasks)}): {', '.join(tasks) or '-'}"
    yield f"B − A, pass, over seeds {', '.join(map(str, seeds))}: mean ± sd [min–max]"
    for (tier, system), values in diffs.items():
        yield f"  {tier} {system}: {_spread(values)}"
    yield from parts.paired(a, b)


def unpaired(a: dict[str, object], b: dict[str, object]) -> list[str]:
    """What keeps two runs' calls from being paired, from their JSON's settings: a different model, or a different
    --dir (the working folder is in the prompt, so every sample can differ), temperature or token limit."""
    names = {"model": "model", "dir": "--dir", "temperature": "--temperature", "max_tokens": "--max-tokens"}
    return [f"{flag} differs: {a.get(key)} and {b.get(key)}" for key, flag in names.items() if a.get(key) != b.get(key)]
