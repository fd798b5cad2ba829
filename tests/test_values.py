"""A run that printed nothing is answered with what the names it set hold (values.py): which names, how they are
described, the loop that asks the kernel, and the real kernel's answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records, run_interp, run_scripted, write_script
from fakes import ScriptedKernel, make_session, out, turn

from interp import values
from interp.kernel import Kernel
from interp.prompts import Prompts
from interp.values import MAX_CHARS, assigned, described, expressions, nothing_found, restated, typed


def told_after(tmp_path: Path, request: str, codes: list[str], outputs: list[str]) -> list[str]:
    """What the model was told after each call of a turn whose replies are these codes (then an answer) and whose
    runs print these outputs, with the scripted kernel."""
    kernel = ScriptedKernel(*[[out(text)] for text in outputs])
    session = make_session(tmp_path, [f"```python\n{code}\n```" for code in codes] + ["Done."], kernel)
    turn(session, request)
    return [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]

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


def test_code_that_only_prints_typed_text_is_told_apart_from_code_that_computes() -> None:
    request = "Print the date 90 days after 2024-11-15, as YYYY-MM-DD."
    assert typed('print("2024-11-15 + 90 days = 2024-12-25")', "2024-11-15 + 90 days = 2024-12-25\n", request)
    assert typed("print(5)\nprint(f'total: {12}', sep='')", "5\ntotal: 12\n", request)
    assert not typed("print('Hello, World')", "Hello, World\n", "Print 'Hello, World'.")  # the request's own text
    assert not typed("print(date(2024, 11, 15) + timedelta(days=90))", "2025-02-13\n", request)
    assert not typed("d = '2025-02-13'\nprint(d)", "2025-02-13\n", request)
    assert not typed("print(150 * 1.609344 / 2.5)", "96.56\n", request)  # arithmetic is computing
    assert not typed("print(len(text))", "12\n", request) and not typed("print(x)", "1\n", request)
    assert not typed("import os", "", request) and not typed("print(", "", request)


def test_the_model_is_told_its_code_only_printed_typed_text(tmp_path: Path) -> None:
    told = told_after(tmp_path, "Print the date 90 days after 2024-11-15, as YYYY-MM-DD.",
                      ["print('2024-12-25')", "from datetime import date, timedelta\n"
                       "print(date(2024, 11, 15) + timedelta(days=90))"], ["2024-12-25\n", "2025-02-13\n"])
    assert told[1].endswith("That code only printed text typed into it: it computed nothing. If the request asks for "
                            "a result, reply with code that computes it, in one ```python block.")
    assert told[2] == "Output:\n```text\n2025-02-13\n```"


def test_output_of_only_zeros_or_empty_values_is_told_apart() -> None:
    for output in ("INFO: 0\nWARNING: 0\nERROR: 0\n", "0", "0.0 files", "[]", "march: []", "set()\n{}"):
        assert nothing_found(output), output
    for output in ("INFO: 4\nERROR: 0", "5", "2024-05-01: 0", "version 1.0: 0", "hello", "", "[0, 1]", "x 0 y 1"):
        assert not nothing_found(output), output


def test_the_model_is_told_once_a_turn_that_its_output_found_nothing(tmp_path: Path) -> None:
    told = told_after(tmp_path, "Print how many lines of each level server.log has.",
                      ["print('INFO:', sum(1 for l in lines if l.startswith('INFO')))",
                       "print('INFO:', sum(1 for l in lines if ' INFO ' in l))"], ["INFO: 0\nERROR: 0\n"] * 2)
    assert told[1].endswith("Every value that output shows is 0 or empty. If the request expects something there, "
                            "the code matched none of the data: compare its conditions with the data as it really "
                            "is, then reply with the corrected code in one ```python block.")
    assert told[2] == "Output:\n```text\nINFO: 0\nERROR: 0\n```"


@pytest.mark.parametrize(("request_text", "output", "number", "places"), [
    ("How many whole minutes passed between the first and the last line? Print the number.",
     "152.71666666666667\n", "152.71666666666667", 0),
    ("Print its average speed in km/h, rounded to 1 decimal (1 mile = 1.609344 km).", "Speed: 96.56064 km/h\n",
     "96.56064", 1),
    ("Print the square root of 2 rounded to four decimal places.", "1.4142135623730951\n", "1.4142135623730951", 4),
    ("How old, in whole years, is someone born in 1990? Print the number.", "33.99\n", "33.99", 0),
])
def test_a_number_with_more_decimals_than_asked_is_found(request_text: str, output: str, number: str,
                                                         places: int) -> None:
    found = values.unrounded(request_text, output)
    assert found is not None and (found.number, found.places) == (number, places)


@pytest.mark.parametrize(("request_text", "output"), [
    ("How many whole minutes passed between the first and the last line? Print the number.", "152\n"),
    ("How many whole minutes passed? Print the number.", "152.0\n"),
    ("Print its average speed in km/h, rounded to 1 decimal (1 mile = 1.609344 km).", "96.6 km/h\n"),
    ("Print its average speed in km/h, rounded to 1 decimal.", "97\n"),
    ("Print it rounded to 2 decimals (1 mile = 1.609344 km).", "1.609344 km is 1 mile, so: 3.22\n"),
    ("Print the mean of the whole file's amounts.", "23.456\n"),
    ("Print the mean of the amounts.", "23.456\n"),
    ("Print it rounded to 2 decimals.", "no number here\n"),
])
def test_a_number_rounded_as_asked_or_not_asked_to_round_is_left_alone(request_text: str, output: str) -> None:
    assert values.unrounded(request_text, output) is None


def test_the_model_is_told_once_a_turn_that_its_number_is_not_rounded_as_asked(tmp_path: Path) -> None:
    told = told_after(tmp_path, "How many whole minutes passed between the first and the last line? Print the number.",
                      ["print(span.total_seconds() / 60)", "print(int(span.total_seconds() / 60))"],
                      ["152.71666666666667\n", "152\n"])
    assert told[1] == ("Output:\n```text\n152.71666666666667\n```\n\nNote: the request asks for whole minutes, but the "
                       "output shows 152.71666666666667. Whole units count only the complete ones (int() or // drop "
                       "the rest; round() may count one more). If that number is the answer, reply with code that "
                       "prints it as asked, in one ```python block.")
    assert told[2] == "Output:\n```text\n152\n```"


def test_a_date_the_request_gives_and_the_code_leaves_out_is_found() -> None:
    request = "How old, in whole years, was someone born on 1990-07-20 on 2024-07-19? Print the number."
    assert values.unused_dates(request, "print(2024 - 1990)") == ["1990-07-20", "2024-07-19"]
    assert values.unused_dates(request, "b = date(1990, 7, 20)\nprint((date.today() - b).days // 365)") == [
        "2024-07-19"]
    whole = "from datetime import date\nb, d = date(1990, 7, 20), date(2024, 7, 19)\nprint(d.year - b.year)"
    assert values.unused_dates(request, whole) == []
    assert values.unused_dates(request, "b, d = '1990-07-20', '2024-07-19'") == []
    assert values.unused_dates(request, "print(open('dates.txt').read())") == []  # read from a file
    assert values.unused_dates("How old is someone born in 1990?", "print(2024 - 1990)") == []
    assert values.unused_dates(request, "print(") == []


def test_the_model_is_told_once_a_turn_that_its_code_left_out_a_date(tmp_path: Path) -> None:
    fixed = ("from datetime import date\nb, d = date(1990, 7, 20), date(2024, 7, 19)\n"
             "print(d.year - b.year - ((d.month, d.day) < (b.month, b.day)))")
    told = told_after(tmp_path, "How old, in whole years, was someone born on 1990-07-20 on 2024-07-19? Print the "
                      "number.", ["print(2024 - 1990)", fixed], ["34\n", "33\n"])
    assert told[1] == ("Output:\n```text\n34\n```\n\nNote: the code does not use the whole of 1990-07-20 and "
                       "2024-07-19 from the request (the month and the day count too). If the answer depends on "
                       "them, reply with the corrected code in one ```python block.")
    assert told[2] == "Output:\n```text\n33\n```"


@pytest.mark.parametrize(("request_text", "output", "date"), [
    ("Print the timestamp of the first ERROR line in server.log.", "2024-05-01\n", "2024-05-01"),
    ("When was the last login? Print its date and time.", "Last login: 2024-05-01\n", "2024-05-01"),
    ("Print the timestamps of the errors.", "2024-05-01\n2024-05-02\n", "2024-05-02"),
])
def test_a_date_alone_where_a_timestamp_is_asked_for_is_found(request_text: str, output: str, date: str) -> None:
    assert values.date_alone(request_text, output) == date


@pytest.mark.parametrize(("request_text", "output"), [
    ("Print the timestamp of the first ERROR line in server.log.", "2024-05-01 10:02:13\n"),
    ("Print the timestamp of the first ERROR line.", "10:02\n"),
    ("Print the timestamp of the first ERROR line.", "1714557733\n"),  # a Unix timestamp: no date to cut
    ("Print the date of the first ERROR line.", "2024-05-01\n"),  # a date is what was asked
])
def test_a_whole_timestamp_or_a_date_asked_for_is_left_alone(request_text: str, output: str) -> None:
    assert values.date_alone(request_text, output) is None


def test_the_model_is_told_once_a_turn_that_it_printed_a_date_without_its_time(tmp_path: Path) -> None:
    request = "Print the timestamp of the first ERROR line in server.log."
    told = told_after(tmp_path, request, ["print(first.split()[0])", "print(first[:10])",
                                          "print(' '.join(first.split()[:2]))"],
                      ["2024-05-01\n", "2024-05-01\n", "2024-05-01 10:02:13\n"])
    assert told[1] == ("Output:\n```text\n2024-05-01\n```\n\nNote: the request asks for a timestamp, a date with its "
                       "time of day, and the output shows the date 2024-05-01 alone. If the data gives its time too, "
                       "reply with code that prints the whole timestamp, in one ```python block.")
    assert told[2] == "Output:\n```text\n2024-05-01\n```"
    assert told[3] == "Output:\n```text\n2024-05-01 10:02:13\n```"


def test_a_number_rounded_up_after_whole_units_were_asked_for_is_found() -> None:
    whole = values.Unrounded("whole minutes", "152.71666666666667", 0)
    assert values.rounded_up(whole, "153\n") == "153"
    assert values.rounded_up(whole, "Minutes: 153.0\n") == "153.0"
    assert values.rounded_up(whole, "152\n") is None  # complete units only
    assert values.rounded_up(whole, "") is None
    assert values.rounded_up(values.Unrounded("whole minutes", "152.0000001", 0), "153\n") == "153"
    assert values.rounded_up(values.Unrounded("whole minutes", "152.5", 0), "152\n") is None
    assert values.rounded_up(values.Unrounded("the nearest whole number", "152.7", 0), "153\n") is None
    assert values.rounded_up(values.Unrounded("to 1 decimal", "96.56064", 1), "97\n") is None


def test_the_model_is_told_once_when_it_rounds_up_whole_units(tmp_path: Path) -> None:
    told = told_after(tmp_path, "How many whole minutes passed between the first and the last line? Print the number.",
                      ["print(span / 60)", "print(round(span / 60))", "print(round(span / 60) + 0)",
                       "print(int(span / 60))"], ["152.71666666666667\n", "153\n", "153\n", "152\n"])
    assert told[2] == ("Output:\n```text\n153\n```\n\nNote: 153 is 152.71666666666667 rounded up, which counts the "
                       "last, incomplete unit as a whole one; whole minutes count only the complete ones (int() or // "
                       "drop the rest). If the request wants complete units, reply with code that prints them, in one "
                       "```python block.")
    assert told[3] == "Output:\n```text\n153\n```"
    assert told[4] == "Output:\n```text\n152\n```"


SPEED = ("A car drives 150 miles in 2 hours 30 minutes. Print its average speed in km/h, rounded to 1 decimal "
         "(1 mile = 1.609344 km).")


@pytest.mark.parametrize(("request_text", "code", "left_out"), [
    (SPEED, "print(round(150 / 2 / 1.609344, 1))", ["30 minutes (2 hours 30 minutes is 2.5 hours or 150 minutes)"]),
    (SPEED, "print(round(2.5 / 1.609344, 1))", ["150 miles"]),
    ("How many seconds are 3 hours and 20 minutes? Print it.", "print(3 * 3600)",
     ["20 minutes (3 hours and 20 minutes is 3.33333 hours or 200 minutes)"]),
    ("A 12 kg box and a 3.5 kg box: print their total weight.", "print(12 + 3)", ["3.5 kg"]),
])
def test_an_amount_the_request_gives_and_the_code_leaves_out_is_found(request_text: str, code: str,
                                                                      left_out: list[str]) -> None:
    assert values.unused_quantities(request_text, code) == left_out


@pytest.mark.parametrize(("request_text", "code"), [
    (SPEED, "print(round(150 * 1.609344 / 2.5, 1))"),  # the duration as its total in hours
    (SPEED, "print(round(150 * 1.609344 / (2 + 30 / 60), 1))"),
    ("How many seconds are 3 hours and 20 minutes? Print it.", "print(200 * 60)"),  # its total in minutes
    ("How many MiB is 3,500,000,000 bytes? Print it rounded to 2 decimals.", "print(round(3500000000 / 2**20, 2))"),
    ("Read the 30 days of temperatures in temps.csv and print the mean.", "print(open('temps.csv').read())"),
    ("Convert 1 mile to km.", "print(1.609344)"),  # an amount of 1: a unit, most often
    ("Print the first 10 primes.", "print(2, 3, 5)"),  # no unit
    ("Which songs of the 1990s are in songs.txt?", "print('none')"),  # a decade, not seconds
    (SPEED, "print("),
])
def test_amounts_the_code_uses_or_cannot_be_judged_are_left_alone(request_text: str, code: str) -> None:
    assert values.unused_quantities(request_text, code) == []


def test_the_model_is_told_once_a_turn_that_its_code_left_out_an_amount(tmp_path: Path) -> None:
    told = told_after(tmp_path, SPEED, ["print(round(150 / 2 * 1.609344, 1))", "print(round(150 / 2, 1))",
                                        "print(round(150 * 1.609344 / 2.5, 1))"], ["120.7\n", "75.0\n", "96.6\n"])
    assert told[1] == ("Output:\n```text\n120.7\n```\n\nNote: the code does not use 30 minutes (2 hours 30 minutes is "
                       "2.5 hours or 150 minutes) from the request. If the answer depends on them, reply with the "
                       "corrected code in one ```python block.")
    assert told[2] == "Output:\n```text\n75.0\n```"
    assert told[3] == "Output:\n```text\n96.6\n```"


UNMET = Prompts.load().unmet


@pytest.mark.parametrize(("request_text", "code", "keys"), [
    ("How many distinct email addresses are in contacts.txt, ignoring case and surrounding spaces?",
     "print(len({line.strip() for line in open('contacts.txt')}))", ["ignore_case"]),
    ("How many weekdays (Monday to Friday) does March 2024 have? Print the number.",
     "from datetime import date\nprint((date(2024, 3, 31) - date(2024, 3, 1)).days)", ["weekdays"]),
    ("Read words.txt and print how many words it has.", "with open('words.txt') as f:\n    print(len(f.readlines()))",
     ["words"]),
    ("Write totals.json: an object mapping each customer's name in orders.json to the total they spent.",
     "import json\ntotals = {}\nfor order in json.load(open('orders.json')):\n    totals[order['name']] = 1",
     ["write_file"]),
])
def test_words_of_the_request_the_code_does_nothing_for_are_found(request_text: str, code: str,
                                                                  keys: list[str]) -> None:
    assert values.unmet(request_text, code, UNMET) == keys


@pytest.mark.parametrize(("request_text", "code"), [
    ("How many distinct emails, ignoring case?", "print(len({l.strip().lower() for l in open('c.txt')}))"),
    ("Count the words, case-insensitive.", "import re\nprint(len(re.findall('a', t, re.I)))"),
    ("How many weekdays does March 2024 have?", "print(sum(date(2024, 3, d).weekday() < 5 for d in range(1, 32)))"),
    ("Which weekday is 2024-03-15?", "print(date(2024, 3, 15).strftime('%A'))"),
    ("How many distinct emails are there?", "print(len(set(open('c.txt'))))"),  # the request asks nothing of case
    ("How many words are in essay.txt?", "print(len(open('essay.txt').read().split()))"),
    ("Print the number of words in t.", "import re\nprint(len(re.findall(r'\\w+', t)))"),
    ("Write totals.json from orders.json.", "import json\nwith open('totals.json', 'w') as f:\n    json.dump(t, f)"),
    ("Save the histogram to hist.png.", "plt.hist(amounts)\nplt.savefig('hist.png')"),
    ("Save the cleaned rows to clean.csv.", "csv.writer(open('clean.csv', 'w', newline='')).writerows(rows)"),
    ("Write 'alpha beta gamma' to words.txt.", "from pathlib import Path\nPath('words.txt').write_text('alpha beta')"),
    ("Read notes.txt and print its first line.", "print(open('notes.txt').readline())"),  # nothing to write
])
def test_words_the_code_does_something_for_or_the_request_does_not_use_are_left_alone(request_text: str,
                                                                                       code: str) -> None:
    assert values.unmet(request_text, code, UNMET) == []


@pytest.mark.parametrize(("request_text", "language", "code", "keys"), [
    ("Use a shell command to count the .py files under project/, in all its subfolders.", "shell",
     "ls project/*.py | wc -l", ["subfolders"]),
    ("Count the empty files under inbox/, subfolders included.", "python",
     "import os\nprint(sum(os.path.getsize('inbox/' + f) == 0 for f in os.listdir('inbox')))", ["subfolders"]),
    ("Count the .py files under project/, in all its subfolders.", "shell", "find project -name '*.py' | wc -l", []),
    ("List the files under src/ that contain TODO, recursively.", "shell", "grep -rl TODO src/", []),
    ("Find the largest file under data/, subfolders included.", "shell", "du -a data | sort -n | tail -1", []),
    ("Count the files under data/, subfolders included.", "python",
     "from pathlib import Path\nprint(sum(p.is_file() for p in Path('data').rglob('*')))", []),
    ("Count the files in data/.", "shell", "ls data | wc -l", []),  # the request asks nothing of subfolders
    ("How many distinct emails, ignoring case?", "shell", "sort -u c.txt | wc -l", []),  # a Python-only rule
])
def test_a_rule_holds_for_the_languages_it_names(request_text: str, language: str, code: str,
                                                 keys: list[str]) -> None:
    assert values.unmet(request_text, code, UNMET, language) == keys


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


@pytest.mark.parametrize(("code", "found"), [
    ("factor = {'h': 60, 'm': 1, 's': 0.01}\nprint(1)", values.Factors("factor", "m", "s", "100", "60")),
    ("f = {'hours': 1, 'minutes': 1 / 60, 'seconds': 1 / 100}", values.Factors("f", "minutes", "seconds", "1.66667",
                                                                              "60")),
    ("to_min = {'d': 1440, 'h': 24}", values.Factors("to_min", "d", "h", "60", "24")),
])
def test_a_dict_of_time_units_that_disagrees_with_the_clock_is_found(code: str, found: values.Factors) -> None:
    assert values.unit_factors(code) == found


@pytest.mark.parametrize("code", [
    "factor = {'h': 60, 'm': 1, 's': 1 / 60}",
    "seconds = {'hours': 3600, 'minutes': 60, 'seconds': 1}",
    "f = {'kg': 1, 'g': 0.01}",  # not time: left alone
    "f = {'h': 60}",  # one unit: nothing to compare
    "f = {'h': x, 'm': 1}",  # not a number written out
    "def (",
])
def test_time_units_that_agree_or_no_such_dict_are_left_alone(code: str) -> None:
    assert values.unit_factors(code) is None


def test_the_model_is_told_once_a_turn_that_its_time_units_disagree(tmp_path: Path) -> None:
    wrong = "factor = {'h': 60, 'm': 1, 's': 0.01}\nprint(250.6)"
    told = told_after(tmp_path, "Print the total of times.txt in minutes.",
                      [wrong, wrong + "\nprint(0)", "factor = {'h': 60, 'm': 1, 's': 1 / 60}\nprint(251.0)"],
                      ["250.6\n", "250.6\n0\n", "251.0\n"])
    assert told[1] == ("Output:\n```text\n250.6\n```\n\nNote: by factor, one 'm' is worth 100 's', and one 'm' is 60 "
                       "'s'. If that is not meant, reply with the corrected code in one ```python block.")
    assert "Note: by factor" not in told[2] and "Note:" not in told[3]


@pytest.mark.parametrize(("request_text", "code", "found"), [
    (SPEED, "print(round(150 / 2.5 / 1.609344, 1))", True),
    (SPEED, "time_hours = 2 + 30 / 60\nspeed = (150 / 1.609344) / time_hours\nprint(round(speed, 1))", True),
    (SPEED, "KM = 1.609344\nprint(round(150 / KM / 2.5, 1))", True),
    (SPEED, "print(round(150 * 1.609344 / 2.5, 1))", False),  # multiplied: miles to km
    ("How many miles is 42 km? (1 mile = 1.609344 km)", "print(42 / 1.609344)", False),  # asked in miles
    ("Print 5 km in miles, where 1 mile = 1.609344 km.", "print(5 / 1.609344)", False),
    ("Print 150 miles in km.", "print(150 / 1.609344)", False),  # no conversion stated: nothing to hold it to
    (SPEED, "print(150 / 1.6 / 2.5", False),  # does not parse
])
def test_dividing_by_a_stated_conversion_to_the_unit_asked_for_is_found(request_text: str, code: str,
                                                                       found: bool) -> None:
    conversion = values.divided_conversion(request_text, code)
    assert conversion == (values.Conversion("mile", "1.609344", "km") if found else None)


def test_the_model_is_told_its_conversion_goes_the_other_way(tmp_path: Path) -> None:
    told = told_after(tmp_path, SPEED, ["print(round(150 / 2.5 / 1.609344, 1))",
                                        "print(round(150 / 2.5 * 1.609344, 1))"], ["37.3\n", "96.6\n"])
    assert told[1] == ("Output:\n```text\n37.3\n```\n\nNote: the request says 1 mile = 1.609344 km: to go from mile "
                       "to km, multiply by 1.609344. The code divides by 1.609344, which goes from km to mile. If the "
                       "answer is wanted in km, reply with the corrected code in one ```python block.")
    assert told[2] == "Output:\n```text\n96.6\n```"


@pytest.mark.parametrize(("request_text", "output", "group"), [
    ("Use a shell pipeline to count the files in media/ by extension.", "3\n", "extension"),
    ("Print how many lines of each level (INFO, WARNING, ERROR) server.log has.", "ERROR: 5\n", "level"),
    ("Print the total sales per region.", "971.49\n", "region"),
])
def test_one_number_where_the_request_counts_by_a_group_is_found(request_text: str, output: str, group: str) -> None:
    assert values.one_for_groups(request_text, output) == group


@pytest.mark.parametrize(("request_text", "output"), [
    ("Use a shell pipeline to count the files in media/ by extension.", "      3 jpg\n      2 png\n      1 gif\n"),
    ("Print the total number of bytes sent, the last field of each line of access.log.", "4992\n"),
    ("Sort the files by size and print the largest.", "5000\n"),  # no count by a group
    ("What is 10 divided by 3?", "3.33\n"),
    ("Print the total sales per region.", "no sales\n"),
])
def test_counts_for_each_group_or_no_grouping_are_left_alone(request_text: str, output: str) -> None:
    assert values.one_for_groups(request_text, output) is None


def test_the_model_is_told_once_a_turn_that_one_number_came_for_a_count_by_groups(tmp_path: Path) -> None:
    told = told_after(tmp_path, "Count the files in media/ by extension.",
                      ["n = len(jpgs)\nprint(n)", "print(len(jpgs))", "print(Counter(extensions))"],
                      ["3\n", "3\n", "Counter({'jpg': 3, 'png': 2, 'gif': 1})\n"])
    assert told[1] == ("Output:\n```text\n3\n```\n\nNote: the request counts by extension, one number for each "
                       "extension, and the output shows a single number. If the request wants one for each, reply "
                       "with the corrected code in one ```python block.")
    assert told[2] == "Output:\n```text\n3\n```"


def test_restated_is_a_print_of_constants_each_printed_by_a_run_already() -> None:
    outputs = ["HELLO WORLD\n", "total: 42\n"]
    assert restated("print('HELLO WORLD')", outputs)
    assert restated("print(42)\nprint('HELLO WORLD')", outputs)
    assert not restated("print('Hello world')", outputs)  # text no run printed
    assert not restated("print('hello world'.upper())", outputs)  # computes
    assert not restated("print(x)", outputs) and not restated("print('HELLO WORLD', end='')", outputs)
    assert not restated("x = 'HELLO WORLD'", outputs) and not restated("print('')", outputs)
    assert not restated("print('HELLO WORLD')", []) and not restated("print(", outputs)


def test_a_function_of_the_session_the_request_names_and_the_code_leaves_out_is_found() -> None:
    assert values.functions("def celsius(f):\n    return f\nx = 1\nclass C: pass") == {"celsius"}
    defined = {"celsius", "load"}
    assert values.unused_functions("Print the Celsius values of temps_f.", "print(temps_f)", defined) == ["celsius"]
    assert values.unused_functions("Print the Celsius values of temps_f.", "print([celsius(t) for t in temps_f])",
                                   defined) == []
    assert values.unused_functions("Print the Celsius values.", "def celsius(f):\n    return f", defined) == []
    assert values.unused_functions("Print the values in celsiusdegrees.", "print(1)", defined) == []
    assert values.unused_functions("Print temps.", "print(temps)", defined) == []


def test_the_model_is_told_of_a_function_it_defined_and_left_out(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [
        "```python\ndef celsius(f):\n    return (f - 32) * 5 / 9\n```", "Defined.",
        "```python\ntemps_f = [32, 212, 98.6]\n```", "Made.",
        "```python\nprint([round(c, 1) for c in temps_f])\n```",
        "```python\nprint([round(celsius(t), 1) for t in temps_f])\n```", "0, 100 and 37 degrees."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="Define a function celsius(f) that converts degrees Fahrenheit to Celsius.\n"
                              "Make a list temps_f with the values 32, 212 and 98.6.\n"
                              "Print the Celsius values of temps_f, rounded to 1 decimal.\n")
    assert result.returncode == 0, result.stderr
    told = [r["content"] for r in records(journal, "user") if r["kind"] == "feedback"]
    assert "Note:" not in told[0] + told[1]
    assert told[2] == ("Output:\n```text\n[32, 212, 98.6]\n```\n\nNote: the request names celsius, a function defined "
                       "earlier in this session, and the code does not call it. If the request means it, call "
                       "`celsius(...)` where the answer needs it, and reply with the corrected code in one ```python "
                       "block.")
    assert told[3] == "Output:\n```text\n[0.0, 100.0, 37.0]\n```"


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
