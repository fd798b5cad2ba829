"""Known traps in code that ran cleanly (pitfalls.py): each rule against code that falls in and code that does not,
and the note in a session, once a turn."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import records
from fakes import ScriptedKernel, make_session, out, turn

from interp.pitfalls import RULES, found
from interp.prompts import prompts_dir

DICTREADER = "import csv\nwith open('sales.csv') as f:\n    rows = list(csv.DictReader(f))\n"


def test_every_rule_has_its_note() -> None:
    assert set(json.loads((prompts_dir() / "pitfalls.json").read_text())) == set(RULES)


def test_a_csv_dictreader_with_one_row_more_dropped_is_a_trap() -> None:
    for skipped in ("print(len(rows) - 1)", "print(len(rows[1:]))", "next(iter(rows))\nprint(len(rows))"):
        assert found("python", DICTREADER + skipped) == ["dictreader_header"], skipped
    reader = "import csv\nreader = csv.DictReader(open('s.csv'))\nnext(reader)\nprint(sum(1 for _ in reader))"
    assert found("python", reader) == ["dictreader_header"]


def test_code_that_counts_rows_right_is_no_trap() -> None:
    assert found("python", DICTREADER + "print(len(rows))") == []
    assert found("python", "import csv\nrows = list(csv.reader(open('s.csv')))\nprint(len(rows) - 1)") == []
    assert found("python", DICTREADER + "print(rows[1:3], len(rows) - 2)") == []
    assert found("python", "print(len(open('s.csv').readlines()[1:]))") == []  # the header is skipped once
    assert found("shell", DICTREADER + "print(len(rows) - 1)") == []  # a rule holds for its own language


def test_counting_ls_l_lines_is_a_trap_and_ls_1_is_not() -> None:
    for command in ("ls -l | wc -l", "ls -la docs/ | wc -l", "ls -l -h docs | wc -l"):
        assert found("shell", command) == ["ls_count"], command
    for command in ("ls -1 | wc -l", "ls | wc -l", "ls -l | grep txt | wc -l", "find . -type f | wc -l", "ls -l"):
        assert found("shell", command) == [], command


def test_the_model_is_told_of_the_trap_once_a_turn(tmp_path: Path) -> None:
    code = DICTREADER + "print(len(rows) - 1)"
    kernel = ScriptedKernel([out("4\n")], [out("4\n")], [out("5\n")])
    session = make_session(tmp_path, [f"```python\n{code}\n```", f"```python\n{code}\nprint(len(rows) - 1)\n```",
                                      f"```python\n{DICTREADER}print(len(rows))\n```", "5 rows."], kernel)
    turn(session, "How many data rows are in sales.csv, not counting the header?")
    told = [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]
    assert told[1].startswith("Output:\n```text\n4\n```\n\nNote: csv.DictReader reads the header line itself")
    assert "Note:" not in told[2] and "Note:" not in told[3]
