"""The @name[value] form a request asks its answer in: its parts, the ones an answer leaves out, and the loop that asks
for them once, with a real kernel and a scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records, run_scripted

from interp.rules.answer_form import Part, answered, given, missing, names, parts, unfilled


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
    assert "Write your final answer now, every part as @name[value]" in told[2]
    assert "asking for it begun in that form" in result.stdout + result.stderr
    assert records(tmp_path / "j.jsonl", "assistant")[-1]["content"].endswith("39.27]")


def test_after_code_that_printed_nothing_the_model_is_asked_for_code_that_prints_the_parts(
        tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "t.csv").write_text("Fare\n7.25\n71.28\n")
    silent = "```python\nimport pandas as pd\nmean = pd.read_csv('t.csv')['Fare'].mean()\n```"
    printing = "```python\nprint(f'@mean_fare[{mean:.2f}]')\n```"
    result, told = run_scripted(tmp_path, env, [silent, "The mean fare is 39.27.", printing],
                                "What is the mean Fare in t.csv? Answer as @mean_fare[value].")
    assert result.returncode == 0, result.stderr
    assert "the code above printed nothing" in told[2]
    assert records(tmp_path / "j.jsonl", "execution")[-1]["output"] == "@mean_fare[39.27]\n"


def test_output_that_gives_every_part_in_the_form_is_the_answer(tmp_path: Path, env: dict[str, str]) -> None:
    """The run printed the answer in the form the request asks for: no model call follows to say it again."""
    (tmp_path / "t.csv").write_text("Fare\n7.25\n71.28\n")
    code = ("```python\nimport pandas as pd\nprint(f\"@mean_fare[{pd.read_csv('t.csv')['Fare'].mean():.2f}]\")\n```")
    result, told = run_scripted(tmp_path, env, [code, "The mean fare is 39.27."],
                                "What is the mean Fare in t.csv? Answer as @mean_fare[value].")
    assert result.returncode == 0, result.stderr
    assert len(told) == 1 and "The output gives every part of the answer" in result.stdout + result.stderr
    assert records(tmp_path / "j.jsonl", "execution")[-1]["output"] == "@mean_fare[39.27]\n"
    assert [r["status"] for r in records(tmp_path / "j.jsonl", "turn_end")] == ["ok"]


def test_output_in_the_form_but_not_rounded_as_asked_is_not_the_answer_yet(tmp_path: Path, env: dict[str, str]
                                                                           ) -> None:
    """A run printed every part in the form asked, one with more decimals than the request asks: the turn does not end
    on it (the held-out half lost two answers so), the model is told and prints it rounded."""
    (tmp_path / "t.csv").write_text("Fare\n7.25\n71.28\n8.0\n")  # a mean of 28.8433...
    code = "```python\nimport pandas as pd\nprint(f\"@mean_fare[{pd.read_csv('t.csv')['Fare'].mean()}]\")\n```"
    fixed = "```python\nprint(f\"@mean_fare[{pd.read_csv('t.csv')['Fare'].mean():.2f}]\")\n```"
    result, told = run_scripted(tmp_path, env, [code, fixed, "The mean fare is 28.84."],
                                "What is the mean Fare in t.csv? Answer as @mean_fare[value], a number with two "
                                "decimal places.")
    assert result.returncode == 0, result.stderr
    assert [r["output"] for r in records(tmp_path / "j.jsonl", "execution")] == ["@mean_fare[28.843333333333334]\n",
                                                                                   "@mean_fare[28.84]\n"]
    assert "the request asks for a value with two decimal places, but the output shows 28.843333333333334" in told[1]


@pytest.mark.parametrize(("output", "places", "ends"), [
    ("@mean[12.3456]", 2, False), ("@mean[12.35]", 2, True), ("@mean[12.3]", 2, True), ("@mean[12.3500]", 2, True),
    ("@mean[12.3456]", None, True), ("@n[12]", 0, True), ("@n[12.5]", 0, False)])
def test_a_part_with_more_decimals_than_asked_is_not_the_answer(output: str, places: int | None, ends: bool) -> None:
    wanted = [Part(output[1:output.index("[")])]
    assert answered(wanted, [output], places) is ends


DECISION = ('@p[p_value] @decision[decision] where "p_value" is a number between 0 and 1, rounded to four decimal '
            'places, and "decision" is a string with either of the exact values: "normal" or "not normal".')


@pytest.mark.parametrize(("request_text", "wanted"), [
    (DECISION, [Part("p", "p_value", number=True), Part("decision", "decision", ("normal", "not normal"))]),
    # the values in the placeholder itself, quoted or yes/no
    ('@handled["Yes"/"No"] @ok[yes/no]',
     [Part("handled", '"Yes"/"No"', ("Yes", "No")), Part("ok", "yes/no", ("yes", "no"))]),
    # parts described together share the description; single quotes count, an apostrophe does not
    ("@a[x] @b[y] where \"x\" and \"y\" are strings that can be 'Normal' or 'Not Normal'; the model's call isn't one",
     [Part("a", "x", ("Normal", "Not Normal")), Part("b", "y", ("Normal", "Not Normal"))]),
    # a bare name described: `Where kind is a string that can either be "up" or "down"`
    ('@kind[kind] Where kind is a string that can either be "up" or "down".', [Part("kind", "kind", ("up", "down"))]),
    # examples are no closed set, nor is a number or a string
    ('@range[r] where "r" is a string, for example "0-1" or "1-10".', [Part("range", "r")]),
    ('@pct[p] where "p" is a number rounded to two decimals or the string "No data".', [Part("pct", "p")]),
    # another part's description does not lend its values: "R" ends where "fit" begins
    ('@r2[R] @fit[fit] where "R" is the R-squared rounded to two decimal places and "fit" is a string that is either '
     '"good fit" or "poor fit".', [Part("r2", "R"), Part("fit", "fit", ("good fit", "poor fit"))]),
    # a unit with a slash is no list of values; a column's name is no number
    ("Answer as @speed[km/h].", [Part("speed", "km/h")]),
    ('@added[ratio] where "ratio" is the new column, with two decimal places.', [Part("added", "ratio")]),
    ("No form at all.", []),
])
def test_what_a_request_says_of_its_parts(request_text: str, wanted: list[Part]) -> None:
    assert parts(request_text) == wanted


@pytest.mark.parametrize(("part", "value", "why"), [
    (Part("n"), "{count}", "braces"),
    (Part("n"), "{mean:.2f}", "braces"),
    (Part("n"), "{row['x']}", "braces"),
    (Part("n"), "{'a': 1, 'b': 2}", ""),  # a dict printed: a value
    (Part("n"), "{}", ""),
    (Part("n", "num_missing", number=True), "num_missing", "number"),
    (Part("n", number=True), "nan", "number"),
    (Part("n", number=True), "None", "number"),
    (Part("n", number=True), "12.5", ""),
    (Part("n", number=True), "[]", ""),  # a list, which may be empty
    (Part("n", number=True), "1,234", ""),
    (Part("d", "decision", ("normal", "not normal")), "0.0", "option"),
    (Part("d", "decision", ("normal", "not normal")), "Normal", "option"),  # spelled otherwise than the request
    (Part("d", "decision", ("normal", "not normal")), "not normal", ""),
    (Part("d", "decision", ("normal", "not normal")), "'normal'", ""),
    (Part("d"), "anything at all", ""),
])
def test_a_part_given_without_answering_it(part: Part, value: str, why: str) -> None:
    assert unfilled(part, value) == why


def test_the_value_a_part_is_given_last() -> None:
    assert given("@a[1] @b[[2008, 2009]]\n@a[ 3 ]") == {"a": "3", "b": "[2008, 2009]"}


def test_the_model_is_asked_for_a_value_the_request_allows(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "t.csv").write_text("x\n1.5\n2.5\n3.0\n")
    code = ("```python\nimport pandas as pd\nfrom scipy import stats\nx = pd.read_csv('t.csv')['x']\n"
            "print(f'@decision[{stats.shapiro(x).pvalue:.4f}]')\n```")
    request = ('Is x in t.csv normal by the Shapiro-Wilk test (p > 0.05)? Answer as @decision[decision] where '
               '"decision" is a string that can either be "normal" or "not normal".')
    result, told = run_scripted(tmp_path, env, [code, "The data is normal.", "@decision[normal]"], request)
    assert result.returncode == 0, result.stderr
    assert told[2].startswith('The request allows only "normal" or "not normal" for @decision[...], and the answer '
                              "gives @decision[0.")
    assert 'Your answer says: "The data is normal."' in told[2]
    assert records(tmp_path / "j.jsonl", "assistant")[-1]["content"] == "@decision[normal]"

