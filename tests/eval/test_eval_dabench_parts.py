"""DABench dev's split and wordings (scripts/eval_dabench_split.py, eval_dabench.WORDINGS): the split is by file,
about 2:1, fixed in data and reproducible; every wording carries the question, the file, the constraints and the
format; --part and --wordings pick the right tasks, whose records say their part and wording; the report gives each
part and wording, the mean over the wordings and the worst wording beside it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))

import eval as evaluation  # noqa: E402
import eval_dabench_split as split_  # noqa: E402
from eval_dabench import WORDINGS, Question, data_dir, load, worded  # noqa: E402
from eval_report import TaskResult, across_seeds, compare, summarize  # noqa: E402
from eval_tasks import TASKS  # noqa: E402

from interp.models.base import GenParams  # noqa: E402
from interp.models.script import ScriptModel  # noqa: E402

RECORDED = split_.split()
TUNE_FILE, CHECK_FILE = RECORDED["tune"]["files"][0], RECORDED["check"]["files"][0]
FORMAT = '@mean_x[mean], where "mean" is a number\nrounded to two decimal places.'
QUESTION = Question(7, 'What is the mean of "x"?', "Drop missing values.\nRound to 2 places.", FORMAT, CHECK_FILE,
                    "easy", (("mean_x", "2.00"),), Path("/data/tables") / CHECK_FILE, "check")


def _shared() -> list[Question]:
    folder = data_dir()
    if not (folder / "questions.jsonl").is_file():
        pytest.skip(f"no dabench data in {folder}")
    return load(folder)


def test_the_recorded_split_is_by_file_and_about_two_to_one() -> None:
    tune, check = RECORDED["tune"], RECORDED["check"]
    assert not set(tune["files"]) & set(check["files"]) and not set(tune["questions"]) & set(check["questions"])
    assert len(tune["questions"]) + len(check["questions"]) == 128
    assert 38 <= len(check["questions"]) <= 48 and 1.7 <= len(tune["questions"]) / len(check["questions"]) <= 2.3
    for kin in split_.KIN:  # tables of one source lie in one part
        assert len({split_.part_of(f) for f in kin}) == 1
    assert split_.part_of(CHECK_FILE) == "check" and split_.part_of(TUNE_FILE) == "tune"
    assert split_.part_of("new.csv") == "" and split_.part_of_question(1) == ""


def test_the_split_matches_the_data_by_file_and_level() -> None:
    questions = _shared()
    for q in questions:
        assert q.part in ("tune", "check") and q.id in RECORDED[q.part]["questions"]
    levels = Counter(q.level for q in questions)
    in_check = Counter(q.level for q in questions if q.part == "check")
    assert all(abs(in_check[level] - n / 3) <= 2 for level, n in levels.items()), in_check


def test_propose_reproduces_the_record_whatever_the_order() -> None:
    pairs = [(q.file_name, q.level) for q in _shared()]
    recorded = (RECORDED["tune"]["files"], RECORDED["check"]["files"])
    assert split_.propose(pairs) == recorded
    random.Random(1).shuffle(pairs)  # another listing of the same data
    assert split_.propose(pairs) == recorded


def test_propose_keeps_files_and_kin_whole() -> None:
    pairs = [(f"f{i}.csv", level) for i in range(12) for level in ("easy", "medium", "hard")[: 1 + i % 3]]
    pairs += [("titanic_test.csv", "easy"), ("titanic_train.csv", "hard")]
    tune, check = split_.propose(pairs)
    assert set(tune) | set(check) == {f for f, _ in pairs} and not set(tune) & set(check)
    assert {"titanic_test.csv", "titanic_train.csv"} <= set(tune) or {"titanic_test.csv",
                                                                      "titanic_train.csv"} <= set(check)
    share = sum(f in check for f, _ in pairs) / len(pairs)
    assert 0.25 <= share <= 0.42


@pytest.mark.parametrize("wording", list(WORDINGS))
def test_each_wording_holds_the_question_the_file_the_constraints_and_the_format(wording: str) -> None:
    request = replace(QUESTION, wording=wording).request
    flat = " ".join(request.split())
    for field in (QUESTION.question, QUESTION.file_name, QUESTION.constraints, QUESTION.format):
        assert " ".join(field.split()) in flat
    assert "/data/tables" not in request  # the file by its name, as the working folder holds it
    if wording != "benchmark":
        assert "\n" not in request  # typed on one line


def test_the_benchmark_wording_is_the_template_of_older_runs_and_terse_is_shortest() -> None:
    assert QUESTION.request == (f"{QUESTION.question}\nThe data is in the file {CHECK_FILE}.\nConstraints: "
                                f"{QUESTION.constraints}\nAnswer format: {FORMAT}")
    assert replace(QUESTION, wording="person").request == (
        f'What is the mean of "x"? The data is in {CHECK_FILE}. Drop missing values. Round to 2 places. End with '
        'the answer in this format: @mean_x[mean], where "mean" is a number rounded to two decimal places.')
    lengths = {w: len(replace(QUESTION, wording=w).request) for w in WORDINGS}
    assert lengths["terse"] < min(lengths["person"], lengths["benchmark"])
    assert [q.name for q in worded([QUESTION], WORDINGS)] == ["DABench/7", "DABench/7~person", "DABench/7~terse"]


def _data(folder: Path) -> None:
    """Four questions: 1 and 2 on a check file, 3 on a tune file, 4 on a file the split does not list."""
    (folder / "tables").mkdir()
    files = {1: CHECK_FILE, 2: CHECK_FILE, 3: TUNE_FILE, 4: "new.csv"}
    questions = [{"id": i, "question": f"Q{i}", "concepts": [], "constraints": "C", "format": "@x[v]",
                  "file_name": f, "level": "easy"} for i, f in files.items()]
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    (folder / "labels.jsonl").write_text("".join(json.dumps({"id": i, "common_answers": [["x", "1"]]}) + "\n"
                                                 for i in files), encoding="utf-8")


@pytest.mark.parametrize(("part", "wordings", "names", "limit", "expected"), [
    ("all", None, None, 0, ["DABench/1", "DABench/2", "DABench/3", "DABench/4"]),
    ("check", None, None, 0, ["DABench/1", "DABench/2"]),
    ("tune", ["benchmark", "terse"], None, 0, ["DABench/3", "DABench/3~terse"]),
    ("check", list(WORDINGS), None, 1, ["DABench/1", "DABench/1~person", "DABench/1~terse"]),
    ("all", ["person", "terse"], "DABench/2,DABench/3~terse", 0, ["DABench/2~person", "DABench/2~terse",
                                                                  "DABench/3~terse"]),
])
def test_part_and_wordings_select_the_tasks(tmp_path: Path, part: str, wordings: list[str] | None,
                                            names: str | None, limit: int, expected: list[str]) -> None:
    _data(tmp_path)
    pool = evaluation.select(["dabench"], names, limit, None, tmp_path, part, wordings)["dabench"]
    assert [t.name for t in pool] == expected
    assert all(q.part == split_.part_of(q.file_name) for q in pool)


def test_other_tiers_are_picked_by_name_and_limited_as_before() -> None:
    pool = evaluation.select(["simple"], "sum_1_100,gcd", 1)["simple"]
    assert [t.name for t in pool] == [t.name for t in TASKS if t.name in ("sum_1_100", "gcd")][:1]


@pytest.mark.parametrize(("flags", "message"), [
    (["--wordings", "benchmark,formal"], "unknown wording(s): formal (choose among benchmark, person, terse)"),
    (["--part", "train"], "argument --part: invalid choice: 'train'"),
])
def test_an_unknown_wording_or_part_is_refused_in_one_line(flags: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, str(SCRIPTS / "eval.py"), "--tiers", "dabench", *flags],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_questions_record_carries_its_part_and_wording(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("x\n2\n", encoding="utf-8")
    question = replace(QUESTION, table=tmp_path / "t.csv", wording="terse")
    cfg = evaluation.Config(GenParams(max_tokens=64, temperature=0.2), 60.0, 30.0, seed=7)
    model = ScriptModel(['```python\nprint("@mean_x[2.00]")\n```'])
    result = evaluation.run_question("naive", question, model, cfg, tmp_path / "root")
    assert result.passed and (result.task, result.part, result.wording) == ("DABench/7~terse", "check", "terse")
    assert "@mean_x[mean]" in model.calls[0][-1]["content"] and "\n" not in model.calls[0][-1]["content"]


def _row(system: str, qid: int, wording: str, passed: bool, recorded: bool = True) -> TaskResult:
    task = f"DABench/{qid}" + ("" if wording == "benchmark" else f"~{wording}")
    part = split_.part_of_question(qid) if recorded else ""
    return TaskResult("dabench", system, task, "easy", passed, passed, False, False, 1, 1, 1.0, False, ["ok"], None,
                      "", subs=1, subs_right=int(passed), part=part, wording=wording if recorded else "")


TUNE_Q, CHECK_Q = RECORDED["tune"]["questions"][:2], RECORDED["check"]["questions"][:2]


def _run(right: dict[str, int], system: str = "interp") -> list[TaskResult]:
    """Both check questions in each wording, the first `right[wording]` of them right; the tune questions right."""
    rows = [_row(system, q, w, i < right[w]) for w in WORDINGS for i, q in enumerate(CHECK_Q)]
    return rows + [_row(system, q, w, True) for w in WORDINGS for q in TUNE_Q]


def test_the_report_gives_each_part_and_wording_the_mean_and_the_worst() -> None:
    table = list(summarize(_run({"benchmark": 2, "person": 0, "terse": 1}), ["interp"]))
    header = next(r for r in table if r.startswith("system  part"))
    assert header.split()[2:] == ["benchmark", "person", "terse", "mean", "worst"]
    rows = {r.split()[1]: r.split()[2:] for r in table if r.startswith("interp") and r.split()[1] in
            ("tune", "check", "all")}
    assert rows["check"] == ["2/2", "(100%)", "0/2", "(0%)", "1/2", "(50%)", "50%", "person", "0%"]
    assert rows["tune"][-3:] == ["100%", "benchmark", "100%"]
    assert rows["all"] == ["4/4", "(100%)", "2/4", "(50%)", "3/4", "(75%)", "75%", "person", "50%"]


def test_records_written_before_parts_are_split_by_their_question() -> None:
    old = [replace(r, part="", wording="") for r in _run({"benchmark": 1, "person": 1, "terse": 1})
           if r.wording == "benchmark"]
    rows = [r.split() for r in summarize(old, ["interp"]) if r.startswith("interp ")]
    assert ["interp", "check", "1/2", "(50%)", "50%", "benchmark", "50%"] in rows


def test_seeds_and_comparisons_give_the_mean_and_the_worst_wording_per_part() -> None:
    runs = {7: _run({"benchmark": 2, "person": 0, "terse": 1}) + _run({"benchmark": 1, "person": 1, "terse": 0},
                                                                     "naive"),
            8: _run({"benchmark": 2, "person": 1, "terse": 2}) + _run({"benchmark": 1, "person": 1, "terse": 1},
                                                                     "naive")}
    rows = list(across_seeds(runs, ["naive", "interp"]))
    assert "  interp check     worst          0.5 ±  0.7 [0–1] (person, person)" in rows
    assert "  interp check     mean           1.3 ±  0.5 [1–1.7]" in rows
    assert "  interp − naive check     mean      0.5 ±  0.2 [0.3–0.7]" in rows
    assert "  interp − naive check     worst     0.0 ±  0.0 [0–0]" in rows  # each side's own worst
    after = {7: _run({"benchmark": 2, "person": 2, "terse": 2}), 8: _run({"benchmark": 2, "person": 2, "terse": 2})}
    paired = list(compare({seed: [r for r in rows_ if r.system == "interp"] for seed, rows_ in runs.items()}, after))
    assert "  interp check     person         1.5 ±  0.7 [1–2]" in paired
    assert "  interp check     worst          1.5 ±  0.7 [1–2]" in paired
    assert "  interp tune      mean           0.0 ±  0.0 [0–0]" in paired
