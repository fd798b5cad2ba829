"""The eval's report: repairs are failed first executions that passed in the end; seeds give mean, spread and the
paired difference."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from eval_report import TaskResult, across_seeds, compare, stats, summarize, unpaired  # noqa: E402


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


def problem(task: str, passed: bool, seconds: float = 1.0) -> TaskResult:
    return replace(result("interp", passed, passed, False, "humaneval"), task=task, seconds=seconds)


def test_a_comparison_lists_the_tasks_gained_and_lost_and_the_paired_difference() -> None:
    before = {7: [problem("p1", True), problem("p2", False), problem("p3", True), problem("p4", True)],
              8: [problem("p1", False), problem("p2", False)]}
    after = {7: [problem("p1", True), problem("p2", True), problem("p3", False)],
             8: [problem("p1", True), problem("p2", True)], 9: [problem("p1", True)]}
    rows = list(compare(before, after))
    assert "seed 7: 3 tasks in both; 1 only in A, 0 only in B, not compared" in rows
    seed7 = rows.index(next(r for r in rows if r.startswith("seed 7 humaneval interp")))
    assert "pass 2 → 2 (+0)" in rows[seed7]  # p4, run by A alone, is left out
    assert rows[seed7 + 1] == "  gained (1): p2" and rows[seed7 + 2] == "  lost (1): p3"
    assert any(r.startswith("seed 8 humaneval interp") and "pass 0 → 2 (+2)" in r for r in rows)
    assert not any(r.startswith("seed 9") for r in rows)  # A never ran seed 9
    assert rows[-2] == "B − A, pass, over seeds 7, 8: mean ± sd [min–max]"
    assert rows[-1] == "  humaneval interp:    1.0 ±  1.4 [0–2]"
    assert list(compare(before, {9: []})) == ["no seed in common: nothing to compare"]


def test_runs_with_another_folder_or_model_are_not_paired() -> None:
    settings = {"model": "qwen2.5-coder-1.5b", "dir": "/runs/a", "temperature": 0.2, "max_tokens": 1024}
    assert unpaired(settings, dict(settings)) == []
    assert unpaired(settings, {**settings, "dir": "/runs/b"}) == ["--dir differs: /runs/a and /runs/b"]
    assert unpaired(settings, {**settings, "model": "qwen2.5-coder-0.5b"}) == [
        "model differs: qwen2.5-coder-1.5b and qwen2.5-coder-0.5b"]


def test_the_compare_script_reads_two_eval_files(tmp_path: Path) -> None:
    def write(name: str, folder: str, passed: list[bool]) -> Path:
        path = tmp_path / name
        runs = [{"seed": 7, "results": [asdict(problem(f"p{i}", ok)) for i, ok in enumerate(passed)]}]
        path.write_text(json.dumps({"settings": {"dir": folder}, "runs": runs}))
        return path

    script = Path(__file__).resolve().parents[2] / "scripts" / "eval_compare.py"
    before, after = write("a.json", "/runs/a", [True, False]), write("b.json", "/runs/a", [True, True])
    done = subprocess.run([sys.executable, str(script), str(before), str(after)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "pass 1 → 2 (+1)" in done.stdout and "  gained (1): p1" in done.stdout
    assert "not paired" not in done.stdout
    moved = write("c.json", "/runs/c", [True, True])
    done = subprocess.run([sys.executable, str(script), str(before), str(moved)], capture_output=True, text=True)
    assert done.stdout.startswith("not paired: --dir differs: /runs/a and /runs/c")
    (tmp_path / "bad.json").write_text("{")
    done = subprocess.run([sys.executable, str(script), str(before), str(tmp_path / "bad.json")],
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("eval_compare: cannot read a run:")


def test_the_decoding_speed_is_the_tokens_decoded_over_their_seconds() -> None:
    slow = [replace(problem("p1", True), decoded=300, decode_s=15.0), replace(problem("p2", True), decoded=100,
                                                                               decode_s=5.0)]
    fast = [replace(r, decode_s=r.decode_s / 1.25) for r in slow]
    assert stats(slow).decode_tps == 20.0 and round(stats(fast).decode_tps, 6) == 25.0
    table = list(summarize(slow, ["interp"]))
    assert table[1].split()[-1] == "tokens/s" and table[2].split()[-1] == "20.0"
    assert any("tokens/s 20.0 → 25.0" in row for row in compare({7: slow}, {7: fast}))
    older = asdict(problem("p1", True))
    del older["decoded"], older["decode_s"]  # a run's file from before the speed was counted
    assert stats([TaskResult(**older)]).decode_tps == 0.0
