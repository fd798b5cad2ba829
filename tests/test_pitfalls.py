"""Known traps in code that ran cleanly (pitfalls.py): each rule against code that falls in and code that does not,
and the note in a session, once a turn."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from conftest import records, run_interp, run_scripted, write_script
from fakes import ScriptedKernel, make_session, out, turn

from interp.pitfalls import RULES, Overwrite, found, one_shot, overwrites, replaced
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


def test_a_grep_pattern_with_extended_syntax_and_no_dash_e_is_a_trap() -> None:
    for command in ("ls media/ | grep -c '\\.(jpg|png|gif)$'", 'grep "ERROR|WARN" server.log', "grep -c '[0-9]+' x",
                    "grep -i -n '(ab)?c' notes.txt"):
        assert found("shell", command) == ["grep_basic"], command
    for command in ("grep -E 'ERROR|WARN' server.log", "grep -Ec '\\.(jpg|png)$' x", "grep -P '\\d+' x",
                    "grep -F 'a|b' x", "grep --extended-regexp 'a|b' x", "grep 'ERROR\\|WARN' x",
                    "grep -c 'ERROR' server.log", "egrep 'a|b' x", "grep ERROR x | sort | uniq -c",
                    "grep -o '[0-9]*' x", "grep -v '(draft)' x", "grep 'C++' x", "grep 'why?' x",
                    "grep 'colou?r' x"):
        assert found("shell", command) == [], command


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


def test_a_dict_filled_once_per_item_of_a_loop_is_a_candidate() -> None:
    assert overwrites(TOTALS) == [Overwrite("totals", "name", "orders")]
    assert overwrites("by = dict()\nfor o in data['orders']:\n    by[o['id']] = o") == [
        Overwrite("by", "o['id']", "data['orders']")]
    assert overwrites("t = {o['name']: o['total'] for o in orders}") == [Overwrite("t", "o['name']", "orders")]


def test_a_dict_that_adds_up_filters_or_is_not_new_is_no_candidate() -> None:
    adds = "t = {}\nfor o in orders:\n    t[o['name']] = t.get(o['name'], 0) + o['total']"
    filtered = "t = {}\nfor o in orders:\n    if o['total']:\n        t[o['name']] = o['total']"
    existing = "for o in orders:\n    t[o['name']] = o['total']"
    constant = "t = {}\nfor o in orders:\n    t['last'] = o"
    call = "t = {}\nfor o in load():\n    t[o['name']] = o"
    comprehension = "t = {o['name']: o for o in orders if o['total']}"
    for code in (adds, filtered, existing, constant, call, comprehension, "t = {", "x = 1"):
        assert overwrites(code) == [], code


def test_fewer_keys_than_items_means_values_were_replaced() -> None:
    assert replaced({"keys": "2", "items": "3"}) == (2, 3)
    assert replaced({"keys": "3", "items": "3"}) is None
    assert replaced({"keys": "2"}) is None  # len() of the items raised: a reader, a generator


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


def test_a_name_assigned_and_never_read_is_asked_whether_it_holds_an_iterator() -> None:
    kept = "import csv\nwith open('sales.csv') as f:\n    sales = csv.DictReader(f)\n"
    assert set(one_shot(kept, ["sales"], "Load sales.csv into a variable called sales.")) == {"sales"}
    read = "import csv\nf = open('s.csv')\nreader = csv.reader(f)\nheader = next(reader)\nrows = list(reader)\n"
    assert set(one_shot(read, ["reader", "header", "rows"], "Load s.csv.")) == {"header", "rows"}
    assert one_shot(kept, ["sales"], "Make a csv reader over sales.csv called sales.") == {}
    assert one_shot("squares = (n * n for n in range(9))", ["squares"], "Make a generator of squares.") == {}


def test_the_kernel_expression_names_an_iterator_and_nothing_else(tmp_path: Path) -> None:
    [expression] = one_shot("v = 1", ["v"], "").values()
    (tmp_path / "f.txt").write_text("x\n")
    with open(tmp_path / "f.txt") as f:
        held = [csv.DictReader(io.StringIO("a\n1\n")), (n for n in []), map(int, []), zip(), [1], "text", f, {}]
        assert [eval(expression, {"v": v}) for v in held] == ["DictReader", "generator", "map", "zip", "", "", "", ""]


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
