"""The eval's checks against known-good and known-bad outputs, for every task of every tier, and the judging rules:
only successful executions count, the answering execution is the last one, the final reply must not contradict."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from eval_checks import contradicts, is_png, numbers, tiny_png  # noqa: E402
from eval_hard import HARD_TASKS  # noqa: E402
from eval_judge import Example, Execution, Task, contradicted, passed, passed_first, start_trace, write_files  # noqa: E402
from eval_tasks import TASKS  # noqa: E402

ALL = TASKS + HARD_TASKS
BAD = [(task, i) for task in ALL for i in range(len(task.bad))]


def judge(task: Task, example: Example, tmp_path: Path) -> bool:
    folder = tmp_path / "work"
    folder.mkdir()
    write_files(folder, task.setup)
    write_files(folder, example.files)
    output = example.output.replace("{folder}", str(folder)).replace("{today}", datetime.date.today().isoformat())
    return task.passes(output, folder)


def dump(task: Task) -> str:
    """What `cat` of every input file prints, then the request echoed back."""
    texts = [c if isinstance(c, str) else c.decode("utf-8", "replace") for c in task.setup.values()]
    return "".join(texts) + task.asked + "\n"


def test_task_names_are_unique() -> None:
    names = [t.name for t in ALL]
    assert len(names) == len(set(names))


def test_the_harder_tier_has_at_least_40_tasks_with_files_made_by_the_harness() -> None:
    assert len(HARD_TASKS) >= 40
    assert sum(bool(t.setup) for t in HARD_TASKS) >= 30


@pytest.mark.parametrize("task", ALL, ids=lambda t: t.name)
def test_good_output_passes(task: Task, tmp_path: Path) -> None:
    assert task.bad, "every task needs a known-bad output"
    assert judge(task, task.good, tmp_path)


@pytest.mark.parametrize(("task", "i"), BAD, ids=[f"{t.name}-{i}" for t, i in BAD])
def test_bad_output_fails(task: Task, i: int, tmp_path: Path) -> None:
    assert not judge(task, task.bad[i], tmp_path)


@pytest.mark.parametrize("task", ALL, ids=lambda t: t.name)
def test_dump_of_the_inputs_fails(task: Task, tmp_path: Path) -> None:
    assert not judge(task, Example(dump(task)), tmp_path)


@pytest.mark.parametrize("task", ALL, ids=lambda t: t.name)
def test_nothing_done_fails(task: Task, tmp_path: Path) -> None:
    assert not judge(task, Example(), tmp_path)


@pytest.mark.parametrize("task", [t for t in ALL if t.value is not None], ids=lambda t: t.name)
def test_final_reply_contradiction(task: Task) -> None:
    assert task.value is not None
    wrong = abs(task.value) * 3 + 1001
    assert task.contradicted(f"The answer is {wrong:g}.")
    assert not task.contradicted(f"The answer is {task.value:.10g}.")
    assert not task.contradicted("Done, see the output above.")


def test_numbers_are_whole_tokens() -> None:
    assert numbers("total 16\n-rw-r--r-- 1 me me 2 Mar  4 12:04 a.txt") == [16, 1, 2, 4]
    assert numbers("2024-01-03 version 1.4.2 int64 20th") == []
    assert numbers("$1,200.50 and -3 and 5,050 items, 37.78°C") == [1200.5, -3, 5050, 37.78]


def test_reply_rounding_and_code_and_request_numbers() -> None:
    assert not contradicts("The average is about 104.8.", 104.8333, 0.006, "")
    assert contradicts("The average is 100.", 104.8333, 0.006, "")
    assert not contradicts("```python\nprint(5049)\n```\nThis prints the sum from 1 to 100.", 5050, 0, "1 to 100")
    assert contradicts("The sum from 1 to 100 is 5000.", 5050, 0, "from 1 to 100")
    # A number written as a word is stated too (the 0.5B closed a count of 142 with its few-shot example's answer).
    asked = "How many integers from 1 to 1000 are divisible by 7? Print the count."
    assert contradicts("notes.md has two lines that start with '#': \"# Plan\" and \"# Budget\".", 142, 0, asked)
    assert not contradicts("There are three ERROR lines.", 3, 0, "How many ERROR lines?")
    assert not contradicts("Two of the files hold 142 lines.", 142, 0, asked)  # one of them is the value
    assert not contradicts("The two files are read.", 5, 0, "Count the lines of the two files.")  # quoted
    assert not contradicts("One of the numbers is the count.", 142, 0, asked)  # "one" is no count
    assert not contradicts("The two-digit total is 12.", 12, 0, "") and not contradicts("Twelve.", 12, 0, "")


def test_png_must_be_whole() -> None:
    good = tiny_png()
    assert is_png(good)
    assert not is_png(good[:-4])
    assert not is_png(good[:20] + bytes([good[20] ^ 1]) + good[21:])  # a CRC that does not match


SUM = next(t for t in TASKS if t.name == "sum_1_100")
MULTI = next(t for t in TASKS if t.name == "multi_var")


def ok(output: str, turn: int = 0) -> Execution:
    return Execution(turn, "ok", output)


def test_a_failed_execution_does_not_pass_whatever_it_printed(tmp_path: Path) -> None:
    trace = start_trace(SUM, tmp_path, float("inf"))
    trace.executed(Execution(0, "error", "5050\n"))
    trace.last_reply = "The sum is 5000."
    assert not passed(SUM, trace, tmp_path) and not passed_first(SUM, trace)
    assert not contradicted(SUM, trace, tmp_path)  # only a reply that contradicts a right output counts


def test_the_loop_repairs_a_failed_first_execution(tmp_path: Path) -> None:
    trace = start_trace(SUM, tmp_path, float("inf"))
    trace.executed(Execution(0, "error", "NameError: name 'x' is not defined\n"))
    trace.executed(ok("5050\n"))
    assert passed(SUM, trace, tmp_path) and not passed_first(SUM, trace) and trace.first_failed()


def test_the_last_successful_output_is_the_answer(tmp_path: Path) -> None:
    trace = start_trace(SUM, tmp_path, float("inf"))
    trace.executed(ok("5050\n"))
    trace.executed(ok("5049\n"))
    trace.executed(ok(""))
    assert not passed(SUM, trace, tmp_path)
    assert passed_first(SUM, trace)


def test_only_the_last_turn_answers(tmp_path: Path) -> None:
    trace = start_trace(MULTI, tmp_path, float("inf"))
    trace.executed(ok("36\n"))
    assert not passed(MULTI, trace, tmp_path)
    trace.executed(ok("36\n", turn=1))
    assert passed(MULTI, trace, tmp_path) and passed_first(MULTI, trace)


def test_first_attempts_are_judged_on_the_folder_right_after_them(tmp_path: Path) -> None:
    task = next(t for t in TASKS if t.name == "write_file")
    trace = start_trace(task, tmp_path, float("inf"))
    trace.executed(ok(""))
    write_files(tmp_path, {"hello.txt": "hello from interp"})
    trace.executed(ok(""))
    assert passed(task, trace, tmp_path) and not passed_first(task, trace)


def test_a_contradicting_final_reply_fails_the_task(tmp_path: Path) -> None:
    trace = start_trace(SUM, tmp_path, float("inf"))
    trace.executed(ok("5050\n"))
    trace.last_reply = "The sum of the integers from 1 to 100 is 5000."
    assert contradicted(SUM, trace, tmp_path)
    assert not passed(SUM, trace, tmp_path) and not passed_first(SUM, trace)


def test_a_timed_out_task_fails(tmp_path: Path) -> None:
    trace = start_trace(SUM, tmp_path, 0.0)
    trace.executed(ok("5050\n"))
    assert trace.expired() and not passed(SUM, trace, tmp_path)
