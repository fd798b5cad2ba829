"""The notes after a run in a session (notes.py and interp/rules/notes/): what the model is told after each run, each
note once a turn, the order and the conditions between notes, what the journal records, and the real kernel's
answers to the notes it confirms."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records, run_interp, run_scripted, write_script
from fakes import ScriptedKernel, make_session, out, turn

from interp.rules.notes.near import filters


def told_after(tmp_path: Path, request: str, codes: list[str], outputs: list[str]) -> list[str]:
    """What the model was told after each call of a turn whose replies are these codes (then an answer) and whose
    runs print these outputs, with the scripted kernel."""
    kernel = ScriptedKernel(*[[out(text)] for text in outputs])
    session = make_session(tmp_path, [f"```python\n{code}\n```" for code in codes] + ["Done."], kernel)
    turn(session, request)
    return [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]


def test_the_model_is_told_its_code_only_printed_typed_text(tmp_path: Path) -> None:
    told = told_after(tmp_path, "Print the date 90 days after 2024-11-15, as YYYY-MM-DD.",
                      ["print('2024-12-25')", "from datetime import date, timedelta\n"
                       "print(date(2024, 11, 15) + timedelta(days=90))"], ["2024-12-25\n", "2025-02-13\n"])
    assert told[1].endswith("That code only printed text typed into it: it computed nothing. If the request asks for "
                            "a result, reply with code that computes it, in one ```python block.")
    assert told[2] == "Output:\n```text\n2025-02-13\n```"


def test_the_model_is_told_once_a_turn_that_its_number_is_not_rounded_as_asked(tmp_path: Path) -> None:
    told = told_after(tmp_path, "How many whole minutes passed between the first and the last line? Print the number.",
                      ["print(span.total_seconds() / 60)", "print(int(span.total_seconds() / 60))"],
                      ["152.71666666666667\n", "152\n"])
    assert told[1] == ("Output:\n```text\n152.71666666666667\n```\n\nNote: the request asks for whole minutes, but the "
                       "output shows 152.71666666666667. Whole units count only the complete ones (int() or // drop "
                       "the rest; round() may count one more). If that number is the answer, reply with code that "
                       "prints it as asked, in one ```python block.")
    assert told[2] == "Output:\n```text\n152\n```"


def test_a_shell_command_that_stays_at_the_top_level_is_told_with_a_bash_fence(tmp_path: Path,
                                                                               env: dict[str, str]) -> None:
    (tmp_path / "project" / "lib").mkdir(parents=True)
    for name in ("a.py", "lib/b.py", "lib/c.py"):
        (tmp_path / "project" / name).write_text("")
    result, told = run_scripted(tmp_path, env, ["```bash\nls project/*.py | wc -l\n```",
                                                "```bash\nfind project -name '*.py' | wc -l\n```", "3 files."],
                                "Use a shell command to count the .py files under project/, in all its subfolders.")
    assert result.returncode == 0, result.stderr
    assert told[1] == ("Output:\n```text\n1\n```\n\nNote: the request takes in the subfolders too, and the code "
                       "looks only at the top level of the folder (ls, os.listdir() and a plain glob do not go into "
                       "subfolders). `find FOLDER -type f` lists the files at every depth (os.walk() or "
                       "Path(FOLDER).rglob('*') in Python). If that matters to the answer, reply with the corrected "
                       "code in one ```bash block.")
    assert told[2] == "Output:\n```text\n3\n```"


def test_the_model_is_told_once_a_turn_of_the_words_its_code_does_nothing_for(tmp_path: Path) -> None:
    told = told_after(tmp_path, "How many distinct emails are in c.txt, ignoring case?",
                      ["print(len(set(open('c.txt'))))", "print(len({l.strip() for l in open('c.txt')}))",
                       "print(len({l.strip().lower() for l in open('c.txt')}))"], ["6\n", "6\n", "5\n"])
    assert told[1] == ("Output:\n```text\n6\n```\n\nNote: the request says to ignore case, and the code takes the "
                       "text as it is written (no .lower()), so 'A' and 'a' count apart. If that matters to the "
                       "answer, reply with the corrected code in one ```python block.")
    assert told[2] == "Output:\n```text\n6\n```"
    assert told[3] == "Output:\n```text\n5\n```"


DICTREADER = "import csv\nwith open('sales.csv') as f:\n    rows = list(csv.DictReader(f))\n"


def test_a_grep_trap_is_told_after_the_failure_it_ends_in(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "media").mkdir()
    for name in ("a.jpg", "b.jpg", "c.png"):
        (tmp_path / "media" / name).write_text("x")
    basic = "```bash\nls media/ | grep -c '\\.(jpg|png)$'\n```"
    extended = "```bash\nls media/ | grep -cE '\\.(jpg|png)$'\n```"
    result, told = run_scripted(tmp_path, env, [basic, extended, "media/ holds 3 images."],
                                "How many images are in media/?")
    assert result.returncode == 0, result.stderr
    assert "exit status 1" in told[1] and "Note: without -E, grep reads a basic regular expression" in told[1]
    assert told[2] == "Output:\n```text\n3\n```"


def test_the_model_is_told_of_the_trap_once_a_turn(tmp_path: Path) -> None:
    code = DICTREADER + "print(len(rows) - 1)"
    kernel = ScriptedKernel([out("4\n")], [out("4\n")], [out("5\n")])
    session = make_session(tmp_path, [f"```python\n{code}\n```", f"```python\n{code}\nprint(len(rows) - 1)\n```",
                                      f"```python\n{DICTREADER}print(len(rows))\n```", "5 rows."], kernel)
    turn(session, "How many data rows are in sales.csv, not counting the header?")
    told = [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]
    assert told[1].startswith("Output:\n```text\n4\n```\n\nNote: csv.DictReader reads the header line itself")
    assert "Note:" not in told[2] and "Note:" not in told[3]


TOTALS = ("orders = [{'name': 'Ann', 'total': 5}, {'name': 'Bob', 'total': 2}, {'name': 'Ann', 'total': 3}]\n"
          "totals = {}\nfor order in orders:\n    name = order['name']\n    totals[name] = order['total']\n")


def test_the_real_kernel_confirms_a_replaced_value_and_the_model_is_told(tmp_path: Path,
                                                                         env: dict[str, str]) -> None:
    fixed = TOTALS.replace("totals[name] = order['total']", "totals[name] = totals.get(name, 0) + order['total']")
    unique = "people = [{'id': 1}, {'id': 2}]\nby_id = {}\nfor p in people:\n    by_id[p['id']] = p\nprint(by_id)"
    script = write_script(tmp_path, [f"```python\n{TOTALS}print(totals)\n```", f"```python\n{fixed}print(totals)\n```",
                                     "Ann 8, Bob 2.", f"```python\n{unique}\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="Print each customer's total.\nIndex the people by id.\n")
    assert result.returncode == 0, result.stderr
    told = [r["content"] for r in records(journal, "user") if r["kind"] == "feedback"]
    assert told[0] == ("Output:\n```text\n{'Ann': 3, 'Bob': 2}\n```\n\nNote: `totals[name] = ...` ran once for each "
                       "of the 3 items of orders, but totals holds 2 keys: each time a key came again, its earlier "
                       "value was replaced. If the request wants the values of a key combined (a total, a count, a "
                       "list), add to what is there, for example `totals[name] = totals.get(name, 0) + ...`, and "
                       "reply with the corrected code in one ```python block.")
    assert told[1] == "Output:\n```text\n{'Ann': 8, 'Bob': 2}\n```"
    assert "Note:" not in told[2]


def test_a_reader_kept_in_a_name_is_told_and_the_model_keeps_the_rows(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "sales.csv").write_text("region,amount\nNorth,2\nSouth,3\n")
    kept = "import csv\nwith open('sales.csv') as f:\n    sales = csv.DictReader(f)"
    fixed = "import csv\nwith open('sales.csv') as f:\n    sales = list(csv.DictReader(f))"
    script = write_script(tmp_path, [f"```python\n{kept}\n```", f"```python\n{fixed}\n```", "Loaded.",
                                     "```python\nprint(sum(float(r['amount']) for r in sales))\n```", "5.0"])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "--no-preview-files"],
                        env=env, cwd=tmp_path, stdin="Load sales.csv into a variable called sales.\n"
                                                      "Print the total amount of sales.\n")
    assert result.returncode == 0, result.stderr
    told = [r["content"] for r in records(journal, "user") if r["kind"] == "feedback"]
    assert told[0].startswith("The code printed nothing. What the names it set hold now:\n```text\nsales: "
                              "DictReader: <csv.DictRead")
    assert told[0].endswith("Note: `sales` holds a DictReader, which can be read only once: the first loop over it "
                            "uses it up (and a reader of a file reads nothing once the file is closed), so the next "
                            "request that uses `sales` would find it empty. To keep the data in `sales`, store the "
                            "items themselves, for example `sales = list(...)` while the file is open, and reply with "
                            "the corrected code in one ```python block.")
    assert "Note:" not in told[1] and "list of 2 items" in told[1]
    assert records(journal, "execution")[-1]["output"] == "5.0\n"


def test_the_model_is_told_once_a_turn_how_close_its_filter_came(tmp_path: Path) -> None:
    kernel = ScriptedKernel([out("0\n")], [out("0\n")], [out("2\n")])
    code = "march = [r for r in sales if r['date'] == '2024-03']\nprint(len(march))"
    [march] = filters(code)
    kernel.values[march.expression()] = "(0, 2, 2, '2024-03-01')"
    session = make_session(tmp_path, [f"```python\n{code}\n```", f"```python\n{code}\nprint(0)\n```",
                                      "```python\nprint(2)\n```", "Two rows."], kernel)
    turn(session, "How many rows of sales are from March 2024?")
    told = [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]
    assert ("Note: no value of r['date'] equals '2024-03', but 2 of them start with it, such as '2024-03-01': == "
            "compares whole strings, and r['date'].startswith('2024-03') tests the start.") in told[1]
    assert "no value of" not in told[2] and "no value of" not in told[3]


CSV_FILTER = ("import csv\nsales = list(csv.DictReader(open('sales.csv')))\n"
              "march = [r for r in sales if r['date']{test}]\nprint(len(march))")
PANDAS_MASK = ("import pandas as pd\nsales = pd.read_csv('sales.csv')\n"
               "march = sales[sales['date']{test}]\nprint(march['amount'].sum())")


@pytest.mark.parametrize(("code", "wrong", "right", "told_first"), [
    (CSV_FILTER, " == '2024-03'", ".startswith('2024-03')",
     "no value of r['date'] equals '2024-03', but 2 of them start with it, such as '2024-03-01': == compares whole "
     "strings, and r['date'].startswith('2024-03') tests the start."),
    (PANDAS_MASK, " == '2024-03'", ".str.startswith('2024-03')",
     "no value of sales['date'] equals '2024-03', but 2 of them start with it, such as '2024-03-01': == compares "
     "whole strings, and sales['date'].str.startswith('2024-03') tests the start."),
], ids=["csv", "pandas"])
def test_the_real_kernel_answers_for_a_filter_that_matched_nothing(tmp_path: Path, env: dict[str, str], code: str,
                                                                   wrong: str, right: str, told_first: str) -> None:
    (tmp_path / "sales.csv").write_text("date,amount\n2024-02-03,1\n2024-03-01,2\n2024-03-05,3\n")
    first, fixed = (f"```python\n{code.format(test=test)}\n```" for test in (wrong, right))
    result, told = run_scripted(tmp_path, env, [first, fixed, "The rows from March: 2, amount 5."],
                                "How many rows of sales.csv are from March 2024, and what is their total amount?")
    assert result.returncode == 0, result.stderr
    assert told_first in told[1]
    assert "no value of" not in told[2]


def test_the_notes_of_a_run_come_in_order_and_typed_text_silences_those_on_the_request(tmp_path: Path) -> None:
    """One run, two notes in the rules' order (unrounded, unmet_ignore_case); code that only printed typed text is
    told so (0.5: no run printed it), and the notes that weigh what code did with the request are not said after
    it."""
    told = told_after(tmp_path, "Print the share of distinct emails in c.txt, ignoring case, rounded to 2 decimals.",
                      ["print(len(set(open('c.txt'))) / 7)", "print(0.5)"], ["0.8571428571428571\n", "0.5\n"])
    notes = told[1].split("\n\n")[1:]
    assert [note.split(":", 1)[1][:40] for note in notes] == [
        " the request asks for a value rounded to", " the request says to ignore case, and th"]
    assert told[2].endswith("That code only printed text typed into it: it computed nothing. If the request asks for "
                            "a result, reply with code that computes it, in one ```python block.")
    assert told[2].count("\n\n") == 1


def test_a_result_printed_as_nan_is_told_where_missing_values_lead_in_a_kernel_with_pandas(tmp_path: Path,
                                                                                          env: dict[str, str]) -> None:
    (tmp_path / "t.csv").write_text("x,y\n1,2\n2,\n3,6\n")
    code = ("```python\nimport pandas as pd\nimport numpy as np\nd = pd.read_csv('t.csv')\n"
            "print(f'@r[{np.corrcoef(d.x, d.y)[0, 1]}]')\n```")
    result, told = run_scripted(tmp_path, env, [code, "@r[1.0]"], "What is r of x and y in t.csv? Answer as @r[r].")
    assert result.returncode == 0, result.stderr
    assert told[1].startswith("Output:\n```text\n@r[nan]\n```\n\nNote: the output shows nan where a value was expected")
    assert [r["rule"] for r in records(tmp_path / "j.jsonl", "rule_fired")][0] == "nan_result"


MINUTES = "How many whole minutes passed between the first and the last line? Print the number."


def test_each_note_said_is_journaled_as_a_rule_that_fired(tmp_path: Path) -> None:
    told_after(tmp_path, MINUTES, ["print(span / 60)"], ["152.71666666666667\n"])
    assert [(r["rule"], r["phase"], r["finding"]) for r in records(tmp_path / "j.jsonl", "rule_fired")] == [
        ("unrounded", "after_run", {"asked": "whole minutes", "number": "152.71666666666667", "places": "0",
                                    "language": "python"})]


def test_a_note_left_out_is_not_said(tmp_path: Path) -> None:
    kernel = ScriptedKernel([out("152.71666666666667\n")])
    session = make_session(tmp_path, ["```python\nprint(span / 60)\n```", "Done."], kernel, without=("unrounded",))
    turn(session, MINUTES)
    assert (records(tmp_path / "j.jsonl", "model_call")[1]["input_tail"]["content"]
            == "Output:\n```text\n152.71666666666667\n```")
    assert records(tmp_path / "j.jsonl", "rule_fired") == []
