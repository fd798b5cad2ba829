"""A run that printed nothing is answered with what the names it set hold (values.py): which names, how they are
described, the loop that asks the kernel, and the real kernel's answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records, run_interp, write_script
from fakes import ScriptedKernel, make_session, out, turn

from interp.rules.values import MAX_CHARS, assigned, described, expressions, restated
from interp.runtime.kernel import Kernel


def test_the_names_assigned_at_the_top_level_are_taken_the_last_ones_last() -> None:
    code = ("import csv\nrows = list(csv.DictReader(open('x.csv')))\nmarch = [r for r in rows]\n"
            "for row in rows:\n    seen = row\nrows = rows[:2]\ntotal += 1\n_hidden = 1\nd['k'] = 1\n")
    assert assigned(code) == ["march", "rows", "total"]
    assert assigned("a, (b, c) = 1, (2, 3)\nd = e = 4\nf: int = 5") == ["b", "c", "d", "e", "f"][-4:]
    assert assigned("print(1)") == [] and assigned("def f(:") == []
    assert assigned("import csv\nwith open('s.csv') as f:\n    sales = csv.DictReader(f)\nn = 1") == ["sales", "n"]


def test_each_name_is_described_on_a_line_of_bounded_length() -> None:
    assert described({"march": "list of 0 items: []"}, ["march", "gone"]) == "march: list of 0 items: []"
    long = described({"x": "str: " + "a" * 500}, ["x"])
    assert len(long) == MAX_CHARS and long.endswith(" ...")


def test_the_kernel_expression_describes_type_size_and_a_bounded_repr() -> None:
    [expression] = expressions(["v"]).values()
    assert eval(expression, {"v": []}) == "list of 0 items: []"
    assert eval(expression, {"v": 3.5}) == "float: 3.5"
    assert eval(expression, {"v": "abc"}) == "str: 'abc'"
    big = eval(expression, {"v": list(range(100_000))})
    assert big.startswith("list of 100000 items: [0, 1, 2") and len(big) < 100


def test_a_silent_run_is_answered_with_the_values_and_a_printing_one_is_not(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [out("5\n")])
    [expression] = expressions(["march"]).values()
    kernel.values = {expression: "list of 0 items: []"}
    session = make_session(tmp_path, ["```python\nmarch = [r for r in rows if r['date'] == '2024-03']\n```",
                                      "```python\nprint(len(rows))\n```", "Five."], kernel)
    turn(session, "keep the March rows, then count all rows")
    shown = [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]
    assert shown[1] == ("The code printed nothing. What the names it set hold now:\n```text\n"
                        "march: list of 0 items: []\n```\nmarch holds nothing. If the request expects something "
                        "there, the code matched none of the data: compare its condition or parsing with the values "
                        "and the file as they really are, then reply with the corrected code in one ```python block.")
    assert shown[2] == "Output:\n```text\n5\n```"


def test_values_that_hold_something_are_only_described(tmp_path: Path) -> None:
    kernel = ScriptedKernel([])
    [expression] = expressions(["rows"]).values()
    kernel.values = {expression: "list of 2 items: [1, 2]"}
    turn(make_session(tmp_path, ["```python\nrows = [1, 2]\n```", "Done."], kernel), "make rows")
    shown = records(tmp_path / "j.jsonl", "model_call")[1]["input_tail"]["content"]
    assert shown == ("The code printed nothing. What the names it set hold now:\n```text\n"
                     "rows: list of 2 items: [1, 2]\n```")


def test_a_kernel_that_cannot_tell_leaves_the_plain_answer(tmp_path: Path) -> None:
    session = make_session(tmp_path, ["```python\nx = 1\n```", "Done."], ScriptedKernel([]))
    turn(session, "set x")
    shown = [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]
    assert shown[1] == "Output:\n```text\n(no output)\n```"


def test_in_the_real_kernel_the_model_is_shown_what_a_silent_run_made(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```python\nrows = [{'date': '2024-01-05'}] * 3\n"
                                     "march = [r for r in rows if r['date'] == '2024-03']\nlabel = 'q1'\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "keep the March rows"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = records(journal, "model_call")[1]["input_tail"]["content"]
    assert "rows: list of 3 items: [{'date': '2024-01-05'}, {'date': '2024-01-05'}, {'date': '2024-01-05'}]" in told
    assert "march: list of 0 items: []" in told and "label: str: 'q1'" in told
    assert "march holds nothing." in told and "rows holds" not in told


def test_restated_is_a_print_of_constants_each_printed_by_a_run_already() -> None:
    outputs = ["HELLO WORLD\n", "total: 42\n"]
    assert restated("print('HELLO WORLD')", outputs)
    assert restated("print(42)\nprint('HELLO WORLD')", outputs)
    assert not restated("print('Hello world')", outputs)  # text no run printed
    assert not restated("print('hello world'.upper())", outputs)  # computes
    assert not restated("print(x)", outputs) and not restated("print('HELLO WORLD', end='')", outputs)
    assert not restated("x = 'HELLO WORLD'", outputs) and not restated("print('')", outputs)
    assert not restated("print('HELLO WORLD')", []) and not restated("print(", outputs)


def test_what_a_large_value_holds_is_bounded_and_a_table_is_told_by_its_shape(kernel: Kernel) -> None:
    """A 715-row list and a wide frame, as a silent run leaves them: each description stays within MAX_CHARS, and
    a table is its shape and first columns, not a repr cut in its middle."""
    pytest.importorskip("pandas")
    for _ in kernel.execute("import pandas as pd\nrows = [[str(i), 'Braund, Mr. Owen Harris', 'male', '22'] for i in "
                            "range(715)]\nwide = pd.DataFrame({f'c{i}': [i] * 715 for i in range(40)})"):
        pass
    text = described(kernel.evaluate(expressions(["rows", "wide"])), ["rows", "wide"])
    lines = text.splitlines()
    assert len(lines) == 2 and all(len(line) <= MAX_CHARS for line in lines)
    assert lines[0].startswith("rows: list of 715 items: [['0', ")
    assert lines[1] == "wide: DataFrame of shape (715, 40); columns: " + ", ".join(f"c{i}" for i in range(12)) + ", ..."
