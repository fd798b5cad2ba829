"""The eval's dseval tier: a session typed turn by turn into one kernel (the setup code typed before its turn), the
code each turn ran read back from interp's journal (from the naive loop's record) as the grader's cells, and the
benchmark's grade.py run on them, confined to a scratch folder: strict answers, printed answers, and the answers
with no code behind them."""

from __future__ import annotations

import json
import runpy
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import eval as evaluation  # noqa: E402
import eval_dseval as dseval  # noqa: E402
from eval_dseval_grade import CONFINE, grade, relative  # noqa: E402
from eval_report import TaskResult, summarize  # noqa: E402

from interp.models.base import GenParams  # noqa: E402
from interp.models.script import ScriptModel  # noqa: E402
from interp.stores.journal import Journal  # noqa: E402

DEV = dseval.data_dir()
needs_dev = pytest.mark.skipif(not (DEV / "grade.py").is_file(), reason=f"no DSEval data in {DEV}")
CSV = "n\n1\n2\n3\n4\n"
# Four turns in grade.py's format: read a file, count with the setup code's `limit`, change in place, ask.
MADE_UP: dict[str, Any] = {
    "id": "made-up/numbers", "category": "Exercise", "files": ["made/numbers.csv"], "inputs_root": "made",
    "turns": ["Read `inputs/numbers.csv` into `df`.", "How many values of n are above limit?",
              "Double n in place.", "What is the largest n now?"],
    "check": {"turns": [
        {"context_code": "import pandas as pd", "reference_code": "df = pd.read_csv('inputs/numbers.csv')",
         "validator": {"namespace_check": {"df": None}}},
        {"context_code": "limit = 2", "reference_code": "(df.n > limit).sum()"},
        {"context_code": None, "reference_code": "df['n'] = df['n'] * 2",
         "validator": {"namespace_check": {"df": None}}},
        {"context_code": None, "reference_code": "df.n.max()"},
    ]},
}


def _fence(code: str) -> str:
    return f"```python\n{code}\n```"


def _made_up(folder: Path) -> dseval.SessionTask:
    """The made-up task in a data folder of its own, beside a copy of the benchmark's grade.py."""
    (folder / "data" / "made").mkdir(parents=True)
    (folder / "data" / "made" / "numbers.csv").write_text(CSV)
    (folder / "tasks.jsonl").write_text(json.dumps(MADE_UP) + "\n")
    shutil.copyfile(DEV / "grade.py", folder / "grade.py")
    return dseval.load(folder)[0]


def _cfg() -> evaluation.Config:
    return evaluation.Config(GenParams(max_tokens=64, temperature=0.2), 60.0, 30.0, seed=7, turn_s=60.0)


@needs_dev
@pytest.mark.parametrize("system", ["interp", "naive"])
def test_a_session_is_graded_turn_by_turn_from_the_code_that_ran(tmp_path: Path, system: str) -> None:
    task = _made_up(tmp_path / "data")
    root = tmp_path / "root"
    work = root / "work"  # the kernel's folder: the path the model sees, written absolute in the first turn
    replies = [_fence(f"import pandas as pd\ndf = pd.read_csv('{work}/inputs/numbers.csv')\ndf.head()"),
               "I read 4 rows.",
               _fence("(df.n > limt).sum()"), _fence("print((df.n > limit).sum())"), "2 of them.",
               _fence("df['n'] = df['n'] * 2"), "Doubled.",
               "The largest is 8."]
    if system == "naive":  # the naive loop ends a turn on its first clean run, without a closing reply
        replies = [r for r in replies if r.startswith("```") or r == "The largest is 8."]
    result = evaluation.run_session(system, task, ScriptModel(replies), _cfg(), root)
    assert [turn["cells"] for turn in result.per_turn] == [1, 1, 1, 0]  # the failed run left out
    submission = json.loads((Path(result.folder) / "grade" / "submission.jsonl").read_text())
    cells = [[cell.strip() for cell in turn["cells"]] for turn in submission["turns"]]
    assert cells[0] == ["import pandas as pd\ndf = pd.read_csv('inputs/numbers.csv')\ndf.head()"]  # made relative
    assert cells[1] == ["print((df.n > limit).sum())"]  # `limit` came from the setup code typed into the kernel
    assert [turn["verdict"] for turn in result.per_turn] == ["CORRECT", "PRESENTATION_ERROR", "CORRECT", "CRASH"]
    assert (result.turns_graded, result.turns_right, result.turns_printed) == (4, 2, 3)
    assert not result.passed and result.error is None
    assert [turn["unbacked"] for turn in result.per_turn] == [False, False, False, True]
    assert result.unbacked == 1 and len(result.turn_seconds) == 4
    assert not (Path(result.folder) / "work" / "inputs" / "numbers.csv").exists()  # an unchanged copy, removed


@needs_dev
def test_the_setup_code_is_shown_only_where_it_goes_beyond_imports(tmp_path: Path) -> None:
    task = _made_up(tmp_path)
    assert task.turns[0] == MADE_UP["turns"][0]
    assert task.turns[1] == f"{dseval.SETUP_NOTE}\n```python\nlimit = 2\n```\n{MADE_UP['turns'][1]}"


def _dev_task(task_id: str) -> tuple[dseval.SessionTask, list[str]]:
    rows = [json.loads(line) for line in (DEV / "tasks.jsonl").read_text().splitlines() if line.strip()]
    row = next(r for r in rows if r["id"] == task_id)
    task = next(t for t in dseval.load(DEV) if t.id == task_id)
    return task, [turn["reference_code"] for turn in row["check"]["turns"]]


@needs_dev
def test_the_reference_code_of_a_dev_session_is_right_and_wrong_code_is_not(tmp_path: Path) -> None:
    task, references = _dev_task("dseval-exercise/08-creating-series-and-dataframes-pokemon")
    right = grade(task, [dseval.TurnRun([code]) for code in references], tmp_path / "right", tmp_path)
    assert right.right == [True] * len(references) and right.whole and right.error is None
    wrong = [dseval.TurnRun([code]) for code in references]
    wrong[-1] = dseval.TurnRun(["pokemon = None"])
    graded = grade(task, wrong, tmp_path / "wrong", tmp_path)
    assert graded.right == [True] * (len(references) - 1) + [False] and not graded.whole


@needs_dev
def test_an_so_answer_printed_counts_only_as_printed(tmp_path: Path) -> None:
    task, (reference,) = _dev_task("dseval-so/numpyeval-000")
    assert task.turns[0].startswith(dseval.SETUP_NOTE)  # `a` is defined by the setup code
    graded = grade(task, [dseval.TurnRun([f"print({reference})"])], tmp_path / "printed", tmp_path)
    assert graded.verdicts == ["PRESENTATION_ERROR"] and graded.right == [False] and graded.printed == [True]
    assert not graded.whole


@needs_dev
def test_the_grader_writes_nowhere_but_its_scratch_folder(tmp_path: Path) -> None:
    abi = runpy.run_path(str(CONFINE))["landlock_abi"]()
    if not abi:
        pytest.skip("no Landlock here: the grader runs unconfined")
    task, (reference,) = _dev_task("dseval-so/numpyeval-000")
    outside = tmp_path / "outside.txt"
    graded = grade(task, [dseval.TurnRun([f"open({str(outside)!r}, 'w').write('x')\n{reference}"])],
                   tmp_path / "scratch", tmp_path / "elsewhere")
    assert graded.verdicts == ["CRASH"] and not outside.exists()


@needs_dev
def test_a_grader_that_runs_too_long_is_stopped_and_every_turn_counted_wrong(tmp_path: Path) -> None:
    task, _ = _dev_task("dseval-so/numpyeval-000")
    graded = grade(task, [dseval.TurnRun(["import time\ntime.sleep(60)"])], tmp_path / "scratch", tmp_path,
                   timeout=3)
    assert graded.error and "ran past" in graded.error and graded.right == [False] and not graded.whole


@pytest.mark.parametrize(("ran", "status", "reply", "unbacked"), [
    (False, "ok", "The mean is 4.", True),
    (False, "no code", "It is 4.", True),  # the naive loop's reply without a code block
    (False, "attempts", "Try this:\n```python\nprint(df.mean())\n```\nIt gives 4.", False),  # it offered code
    (True, "ok", "The mean is 4.", False),
    (False, "attempts", "```python\nprint(df.mean())\n```", False),  # code alone states nothing
    (False, "ok", "  ", False),
    (False, "timeout", "The mean is", False),
    (False, "interrupted", "The mean is", False),
], ids=["prose alone", "naive prose", "prose beside failed code", "code behind it", "code alone", "empty",
        "timeout", "interrupted"])
def test_an_answer_without_code_behind_it(ran: bool, status: str, reply: str, unbacked: bool) -> None:
    assert dseval.TurnRun([], reply, ran, status).unbacked is unbacked


def test_shell_runs_and_runs_interp_undid_are_not_replayed(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    journal.record("user", content="Clean data.csv into clean.csv.", kind="request")
    journal.record("execution", language="shell", code="wc -l data.csv", output="3 data.csv\n", status="ok")
    journal.record("execution", language="python", code="open('data.csv', 'w')", output="", status="ok")
    journal.record("restored", path="data.csv")
    journal.record("execution", language="python", code="x = 1", output="", status="ok")
    journal.record("assistant", content="Done: ```python\nx = 1\n```", kind="reply")
    journal.record("turn_end", status="ok")
    journal.record("user", content="And now?", kind="request")  # cut short: no turn_end
    journal.close()
    first, second, third = dseval.from_journal(tmp_path / "journal.jsonl", 3)
    assert first.cells == ["x = 1"] and first.ran and not first.unbacked
    assert second.status == "unfinished" and third.status == "not run" and not second.unbacked


def test_the_working_folder_is_written_relative(tmp_path: Path) -> None:
    code = f"open('{tmp_path}/inputs/a.csv')\nos.chdir('{tmp_path}')"
    assert relative(code, tmp_path) == "open('inputs/a.csv')\nos.chdir('.')"


def test_the_table_reports_each_category_and_system() -> None:
    def row(system: str, kind: str, right: int, printed: int, whole: bool, unbacked: int) -> TaskResult:
        return TaskResult("dseval", system, f"{kind}-task", kind, whole, False, False, False, 3, 3, 9.0, False,
                          ["ok"], None, "", turns_graded=3, turns_right=right, turns_printed=printed,
                          turn_seconds=[1.0, 2.0, 4.0], unbacked=unbacked)

    rows = [row("naive", "exercise", 1, 2, False, 1), row("interp", "exercise", 3, 3, True, 0),
            row("interp", "so", 0, 1, False, 0)]
    lines = list(summarize(rows, ["naive", "interp"]))
    table = {tuple(line.split()[:2]): line.split() for line in lines if line.split()[:1] in (["naive"], ["interp"])}
    assert table[("naive", "exercise")][2:] == ["1", "1/3", "(33%)", "2/3", "(67%)", "0/1", "(0%)", "2.0", "1", "0"]
    assert table[("interp", "all")][2:] == ["2", "3/6", "(50%)", "4/6", "(67%)", "1/1", "(100%)", "2.0", "0", "0"]
    assert table[("interp", "so")][7] == "-"  # one turn: no session to be wholly right
