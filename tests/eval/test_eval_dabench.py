"""The eval's dabench tier: questions load with their labels, the request carries what the benchmark's prompt does,
and the grader is the benchmark's (every sub-answer, the same string or floats within 1e-6), read from the outputs of
executions that succeeded and the final reply's prose, the last occurrence of a name winning."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from eval_dabench import Question, data_dir, grade, load, occurrences, prose, same  # noqa: E402
from eval_report import TaskResult, summarize  # noqa: E402

STATS = Question(18, 'Calculate the mean and standard deviation of the "Mar.2019" column.',
                 "Report the measures rounded to two decimal places.",
                 '@mean_mar_2019[mean] @sd_mar_2019[sd], where "mean" and "sd" are numbers.', "unemployment.csv",
                 "easy", (("mean_mar_2019", "171.44"), ("sd_mar_2019", "188.25")), Path("unemployment.csv"))
WORD = Question(19, "Is it normal?", "Skewness between -0.5 and 0.5.", '@is_normal[answer], "Yes" or "No".',
                "unemployment.csv", "easy", (("is_normal", "No"),), Path("unemployment.csv"))


@pytest.mark.parametrize(("outputs", "reply", "right"), [
    (["@mean_mar_2019[171.44] @sd_mar_2019[188.25]\n"], "", {"mean_mar_2019": True, "sd_mar_2019": True}),
    ([], "The mean is @mean_mar_2019[171.44] and the sd @sd_mar_2019[188.25].", {"mean_mar_2019": True,
                                                                                 "sd_mar_2019": True}),
    (["@mean_mar_2019[171.4400000001]\n@sd_mar_2019[ 188.25 ]\n"], "", {"mean_mar_2019": True, "sd_mar_2019": True}),
    (["@mean_mar_2019[171.44]\n@sd_mar_2019[188.250002]\n"], "", {"mean_mar_2019": True, "sd_mar_2019": False}),
    (["@mean_mar_2019[171.44]\n"], "", {"mean_mar_2019": True, "sd_mar_2019": False}),  # a name missing
    (["@mean_mar_2019[171.45] @sd_mar_2019[188.25]\n"], "", {"mean_mar_2019": False, "sd_mar_2019": True}),
    (["mean 171.44, sd 188.25\n"], "mean 171.44, sd 188.25", {"mean_mar_2019": False, "sd_mar_2019": False}),
    (["@mean_mar_2019[mean] @sd_mar_2019[sd]\n"], "", {"mean_mar_2019": False, "sd_mar_2019": False}),
    # the last occurrence is the answer: a correction counts, a hedge does not
    (["@mean_mar_2019[170.0] @sd_mar_2019[188.25]\n", "@mean_mar_2019[171.44]\n"], "",
     {"mean_mar_2019": True, "sd_mar_2019": True}),
    (["@mean_mar_2019[171.44] @mean_mar_2019[170.0] @sd_mar_2019[188.25]\n"], "",
     {"mean_mar_2019": False, "sd_mar_2019": True}),
    # the final reply comes after the outputs
    (["@mean_mar_2019[171.44] @sd_mar_2019[188.25]\n"], "So @mean_mar_2019[171.4] @sd_mar_2019[188.25].",
     {"mean_mar_2019": False, "sd_mar_2019": True}),
    # the reply's code is not an answer: its f-string would override the printed value
    (["@mean_mar_2019[171.44] @sd_mar_2019[188.25]\n"],
     '```python\nprint(f"@mean_mar_2019[{m:.2f}] @sd_mar_2019[{s:.2f}]")\n```',
     {"mean_mar_2019": True, "sd_mar_2019": True}),
], ids=["in the output", "in the reply", "float tolerance and spaces", "past the tolerance", "a name missing",
        "a wrong value", "no format", "the format echoed", "corrected later", "hedged", "the reply restates wrongly",
        "code in the reply"])
def test_grading_two_sub_answers(outputs: list[str], reply: str, right: dict[str, bool]) -> None:
    result = grade(STATS, outputs, reply)
    assert result.right == right
    assert result.passed == all(right.values())
    assert result.subs_right == sum(right.values())


def test_a_string_answer_is_matched_exactly() -> None:
    assert grade(WORD, ["@is_normal[No]\n"]).passed
    assert grade(WORD, ["@is_normal[ No ]\n"]).passed
    assert not grade(WORD, ["@is_normal[no]\n"]).passed  # the benchmark compares strings as they are
    assert not grade(WORD, ["@is_normal[No.]\n"]).passed
    assert not grade(WORD, []).passed
    assert grade(WORD, []).given == {"is_normal": None}


def test_same_is_the_benchmarks_equality() -> None:
    assert same("0.5", "0.50") and same("1e-3", "0.001") and same(" 3 ", "3")
    assert not same("0.5", "0.501") and not same("nan", "1") and not same("", "0")
    assert same("", "") and same("Kuwait, Saudi Arabia", "Kuwait, Saudi Arabia")


def test_occurrences_and_prose() -> None:
    assert occurrences("@a[1] text @b_2[x y] @c[]") == [("a", "1"), ("b_2", "x y"), ("c", "")]
    assert prose("before\n```python\nprint('@a[1]')\n```\nafter @a[2]") == "before\n\nafter @a[2]"
    assert prose("answer @a[2]\n```python\nprint('@a[1]')") == "answer @a[2]\n"  # an unclosed fence


def test_an_answer_in_a_failed_execution_does_not_count() -> None:
    """run_question passes only the outputs of executions that succeeded; a failed one's output, even with the
    answer printed before the error, is not among them."""
    executions = [("error", "@is_normal[No]\nTraceback ..."), ("ok", "@is_normal[Yes]\n")]
    assert not grade(WORD, [out for status, out in executions if status == "ok"]).passed


def _data(folder: Path) -> None:
    (folder / "tables").mkdir()
    (folder / "tables" / "t.csv").write_text("a\n1\n", encoding="utf-8")
    questions = [{"id": 1, "question": "Q1", "concepts": [], "constraints": "C1", "format": "@x[v]",
                  "file_name": "t.csv", "level": "easy"},
                 {"id": 2, "question": "Q2", "concepts": [], "constraints": "C2", "format": "@y[v]",
                  "file_name": "t.csv", "level": "hard"},
                 {"id": 3, "question": "Q3", "concepts": [], "constraints": "C3", "format": "@z[v]",
                  "file_name": "t.csv", "level": "easy"}]
    labels = [{"id": 1, "common_answers": [["x", "1"]]}, {"id": 2, "common_answers": [["y", "2"], ["w", "no"]]}]
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    (folder / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels), encoding="utf-8")


def test_questions_load_with_their_labels_and_levels(tmp_path: Path) -> None:
    _data(tmp_path)
    questions = load(tmp_path)
    assert [q.name for q in questions] == ["DABench/1", "DABench/2"]  # 3 has no label
    assert questions[1].label == (("y", "2"), ("w", "no")) and questions[1].table == tmp_path / "tables" / "t.csv"
    assert [q.id for q in load(tmp_path, ["hard"])] == [2]
    assert questions[0].request == "Q1\nThe data is in the file t.csv.\nConstraints: C1\nAnswer format: @x[v]"


def test_the_data_is_found_from_the_repository_not_the_working_directory() -> None:
    root = Path(__file__).resolve().parents[2]
    assert data_dir() == (root / ".." / "shared" / "dabench-dev").resolve()
    assert data_dir(Path("elsewhere")) == Path("elsewhere")


def test_the_shared_data_when_present() -> None:
    """Every label, given as the answer, is right: the grader agrees with the labels it reads."""
    folder = data_dir()
    if not (folder / "questions.jsonl").is_file():
        pytest.skip(f"no dabench data in {folder}")
    questions = load(folder)
    assert len(questions) == 128 and {q.level for q in questions} == {"easy", "medium", "hard"}
    for q in questions:
        assert q.table.is_file()
        assert grade(q, [" ".join(f"@{name}[{value}]" for name, value in q.label)]).passed


def _result(system: str, level: str, passed: bool, subs: int, subs_right: int, seconds: float,
            timed_out: bool = False) -> TaskResult:
    return TaskResult("dabench", system, "DABench/1", level, passed, passed, False, False, 2, 1, seconds, timed_out,
                      ["ok"], None, "", subs=subs, subs_right=subs_right)


def test_the_report_per_level() -> None:
    rows = [_result("interp", "easy", True, 2, 2, 10.0), _result("interp", "easy", False, 2, 1, 30.0),
            _result("interp", "hard", False, 3, 0, 120.0, timed_out=True), _result("naive", "easy", False, 2, 0, 5.0)]
    table = list(summarize(rows, ["naive", "interp"]))
    assert table[0] == "== dabench =="
    lines = {tuple(row.split()[:2]): row.split()[2:] for row in table if row.startswith(("naive", "interp"))}
    assert lines[("interp", "easy")] == ["1/2", "(50%)", "3/4", "(75%)", "20.0", "30.0", "0"]
    assert lines[("interp", "hard")] == ["0/1", "(0%)", "0/3", "(0%)", "120.0", "120.0", "1"]
    assert lines[("interp", "all")] == ["1/3", "(33%)", "3/7", "(43%)", "30.0", "120.0", "1"]
    assert lines[("naive", "easy")] == ["0/1", "(0%)", "0/2", "(0%)", "5.0", "5.0", "0"]
    assert lines[("naive", "all")] == lines[("naive", "easy")]
    one_level = [row for row in summarize(rows[:2], ["interp"]) if row.startswith("interp")]
    assert not any(row.split()[1] == "all" for row in one_level)
