"""The @name[value] form a request asks its answer in: its parts, the ones an answer leaves out, and the loop that asks
for them once, with a real kernel and a scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records, run_scripted

from interp.loop.answer_form import missing, names


@pytest.mark.parametrize(("request_text", "wanted"), [
    ("Mean fare? Answer as @mean_fare[mean], where mean is rounded.", ["mean_fare"]),
    ("@a[x] @b_2[y] and again @a[x]", ["a", "b_2"]),
    ("Write to me@example.com about arrays[0].", []),
    ("No form at all.", []),
])
def test_the_parts_a_request_asks_for(request_text: str, wanted: list[str]) -> None:
    assert names(request_text) == wanted


def test_the_parts_an_answer_leaves_out() -> None:
    assert missing("@a[1] and b is 2", ["a", "b"]) == ["b"]
    assert missing("@a[1] @b[2]", ["a", "b"]) == []
    assert missing("a[1]", ["a"]) == ["a"]


def test_the_model_is_asked_for_the_part_its_answer_left_out(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "t.csv").write_text("Fare\n7.25\n71.28\n")
    code = "```python\nimport pandas as pd\nprint(round(pd.read_csv('t.csv')['Fare'].mean(), 2))\n```"
    result, told = run_scripted(tmp_path, env, [code, "The mean fare is 39.27.", "@mean_fare[39.27]"],
                                "What is the mean Fare in t.csv? Answer as @mean_fare[value].")
    assert result.returncode == 0, result.stderr
    assert "@mean_fare[...] is not given in that form yet. Write your final answer again as text" in told[2]
    assert records(tmp_path / "j.jsonl", "assistant")[-1]["content"] == "@mean_fare[39.27]"
