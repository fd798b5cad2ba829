"""What a condition that matched nothing tested (conditions.py): which filters are found, what is evaluated, and the
note in a session with the real kernel."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_interp, write_script

from interp.conditions import Filter, filters


def test_a_comprehension_or_loop_condition_on_the_items_is_a_filter() -> None:
    assert filters("march = [row for row in sales if row['date'] == '2024-03']") == [
        Filter("row['date'] == '2024-03'", "row['date']", "row", "sales")]
    assert filters("n = 0\nfor line in open('server.log'):\n    if line.startswith('ERROR'):\n        n += 1") == [
        Filter("line.startswith('ERROR')", "line", "line", "open('server.log')")]
    assert filters("print(sum(1 for line in lines if re.search(r'Status: 500', line)))") == [
        Filter("re.search('Status: 500', line)", "line", "line", "lines")]
    assert filters("print(sum(1 for o in data['orders'] if not o['city'].lower() == 'oslo'))") == [
        Filter("not o['city'].lower() == 'oslo'", "o['city'].lower()", "o", "data['orders']")]


def test_a_filter_over_what_cannot_be_read_again_or_safely_is_left_out() -> None:
    for code in ("x = [r for r in csv.DictReader(open('s.csv')) if r['a'] == '1']",  # a reader: consumed
                 "x = [r for r in rows if r.pop() == 1]",  # evaluating it would change rows
                 "x = [r for r in rows if flag]",  # the condition does not read the item
                 "for line in open('log', 'w'):\n    if line:\n        pass",  # opened for writing
                 "def f(rows):\n    for r in rows:\n        if r == 1:\n            return r",  # not top level
                 "x = [r for r in rows[i] if r == 1]", "x = ["):
        assert filters(code) == [], code


def test_the_values_a_condition_tested_are_shown_when_it_matched_nothing(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    (tmp_path / "sales.csv").write_text("date,amount\n2024-02-03,120.00\n2024-03-01,210.00\n2024-03-05,45.25\n")
    load = "import csv\nsales = list(csv.DictReader(open('sales.csv')))"
    wrong = "march = [row for row in sales if row['date'] == '2024-03']"
    right = "march = [row for row in sales if row['date'].startswith('2024-03')]"
    script = write_script(tmp_path, [f"```python\n{load}\n```", "Loaded.", f"```python\n{wrong}\n```",
                                     f"```python\n{right}\n```", "Kept 2 rows."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--no-preview-files", "--model", f"script:{script}", "--transcript", str(journal)],
                        env=env, cwd=tmp_path, stdin="Load sales.csv into sales.\nKeep the March 2024 rows in march.\n")
    assert result.returncode == 0, result.stderr
    told = [r["content"] for r in records(journal, "user") if r["kind"] == "feedback"]
    assert "tested" not in told[0]
    assert told[1].endswith("What the code's condition tested, read from the data:\n```text\nrow['date'] (tested by "
                            "`row['date'] == '2024-03'`) was, for the first items: ['2024-02-03', '2024-03-01', "
                            "'2024-03-05']\n```\nCompare the condition with these values, then reply with the "
                            "corrected code in one ```python block.")
    assert "march holds nothing" in told[1] and "tested" not in told[2]


def test_the_lines_of_a_file_a_condition_tested_are_shown_when_the_count_is_zero(tmp_path: Path,
                                                                                  env: dict[str, str]) -> None:
    (tmp_path / "server.log").write_text("2024-05-01 09:58:02 INFO start\n2024-05-01 10:02:13 ERROR db\n")
    count = "n = 0\nfor line in open('server.log'):\n    if line.startswith('ERROR'):\n        n += 1\nprint(n)"
    script = write_script(tmp_path, [f"```python\n{count}\n```", "There are none."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--no-preview-files", "--model", f"script:{script}", "--transcript", str(journal),
                         "How many ERROR lines has server.log?"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = next(r["content"] for r in records(journal, "user") if r["kind"] == "feedback")
    assert told.startswith("Output:\n```text\n0\n```\n\nEvery value that output shows is 0 or empty.")
    assert told.endswith("What the code's condition tested, read from the data:\n```text\nline (tested by "
                         "`line.startswith('ERROR')`) was, for the first items: ['2024-05-01 09:58:02 INFO start\\n', "
                         "'2024-05-01 10:02:13 ERROR db\\n']\n```\nCompare the condition with these values, then "
                         "reply with the corrected code in one ```python block.")
