"""The eval's report: repairs are failed first executions that passed in the end; seeds give mean, spread and the
paired difference."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from eval_report import TaskResult, across_seeds, stats, summarize  # noqa: E402


def result(system: str, passed: bool, first: bool, first_failed: bool, tier: str = "simple") -> TaskResult:
    return TaskResult(tier, system, "t", "k", passed, first, first_failed, False, 2, 1, 1.0, False, ["ok"], None, "")


def test_repairs_count_failed_first_executions_that_passed() -> None:
    rows = [result("interp", True, False, True), result("interp", False, False, True),
            result("interp", True, True, False)]
    s = stats(rows)
    assert (s.passed, s.first, s.first_failed, s.repaired, s.calls) == (2, 1, 2, 1, 6)
    assert s.repair_rate == 0.5
    assert any("1/2" in row for row in summarize(rows, ["interp"]))


def test_seeds_give_mean_spread_and_the_paired_difference() -> None:
    runs = {7: [result("naive", False, False, True), result("interp", True, True, False)],
            8: [result("naive", True, True, False), result("interp", True, True, False)]}
    rows = list(across_seeds(runs, ["naive", "interp"]))
    naive = next(r for r in rows if r.startswith("naive"))
    assert "0.5 ±  0.7 [0–1]" in naive
    assert any(r.startswith("interp − naive") and "0.5 ±  0.7" in r for r in rows)
