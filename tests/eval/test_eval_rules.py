"""The rules' ablation report: fired counts from a run with every rule, passes with and without from runs that left
rules out, paired by seed and task."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import eval_rules  # noqa: E402
from eval_report import TaskResult  # noqa: E402

from interp.rules import Finding, Rule  # noqa: E402


def _result(task: str, passed: bool, fired: dict[str, int] | None = None) -> TaskResult:
    return TaskResult("simple", "interp", task, "k", passed, passed, False, False, 2, 1, 1.0, False, ["ok"], None, "",
                      fired=fired or {})


def _write(path: Path, results: list[TaskResult], **settings: object) -> Path:
    path.write_text(json.dumps({"settings": {"model": "m", "dir": "d", **settings},
                                "runs": [{"seed": 7, "results": [asdict(r) for r in results]}]}))
    return path


def _detect(facts: object) -> Finding | None:
    """Never fires."""
    return None


def test_the_report_counts_firings_and_pairs_passes_with_and_without(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(eval_rules, "RULES", [Rule("tuned", "after_run", _detect), Rule("sound", "on_error", _detect)])
    base = _write(tmp_path / "all.json", [_result("a", True, {"tuned": 2}), _result("b", True), _result("c", False)])
    without = _write(tmp_path / "nt.json", [_result("a", False), _result("b", True), _result("c", True)],
                     without=["tuned"])
    monkeypatch.setattr(sys, "argv", ["eval_rules", str(base), str(without)])
    assert eval_rules.main() == 0
    out = capsys.readouterr().out
    assert "| tuned | 2 (1) | nt.json | 2 / 2 of 3 | 1 / 0 of 1 |" in out
    assert "| sound | 0 (0) | | | |" in out


def test_a_run_s_rules_left_out() -> None:
    assert eval_rules.left_out({"without": ["x", "y"]}) == {"x", "y"}
    assert eval_rules.left_out({}) == set()


def test_fired_counts_come_from_the_journal(tmp_path) -> None:
    import eval
    journal = tmp_path / "journal.jsonl"
    journal.write_text("\n".join([json.dumps({"type": "rule_fired", "rule": "x"}), "not json",
                                  json.dumps({"type": "rule_fired", "rule": "x"}),
                                  json.dumps({"type": "rule_fired", "rule": "y"}), json.dumps({"type": "other"})]))
    assert eval.fired(journal) == {"x": 2, "y": 1}
    assert eval.fired(tmp_path / "none.jsonl") == {}


@pytest.mark.parametrize("argv", [["--without", "no_such_rule"], ["--tiers", "nope"]])
def test_eval_refuses_unknown_rules_and_tiers(argv, monkeypatch) -> None:
    import eval
    monkeypatch.setattr(sys, "argv", ["eval", *argv])
    with pytest.raises(SystemExit) as exit_:
        eval.main()
    assert exit_.value.code == 2


def test_results_without_fired_still_load() -> None:
    old = {k: v for k, v in asdict(_result("a", True)).items() if k != "fired"}
    assert replace(TaskResult(**old)).fired == {}
