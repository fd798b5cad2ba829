"""The notes after a run (interp/rules/notes/), rule by rule: the facts each fires on, with what it found, and the
facts it leaves alone; the machinery of the notes the kernel confirms (near misses, replaced values, iterators)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from interp.common.events import ExecutionDone
from interp.prompts import Prompts
from interp.rules import Engine, Facts, Finding, Rule
from interp.rules.notes import RULES, traps, unmet
from interp.rules.notes.held import Overwrite, one_shot, overwrites, replaced
from interp.rules.notes.near import Filter, NearMiss, filters, near_misses
from interp.rules.notes.output import places_asked
from interp.turn.notes import Notes

BY_ID = {rule.id: rule for rule in RULES}
TEMPLATES = Prompts.load().rules


def detect(rule: str, request: str = "", **facts: object) -> Finding | None:
    """What one rule finds in these facts; `request` is the turn's request, as typed and as sent."""
    return BY_ID[rule].detect(Facts(typed=request, sent=request, **facts))


def fired(rules: list, request: str, code: str, language: str = "python", **facts: object) -> list[str]:
    """The ids of these rules that fire, the engine applying their scope (the languages they hold for)."""
    facts.setdefault("clean", (code,))
    engine = Engine(rules, TEMPLATES)
    found = engine.run("after_run", Facts(code=code, language=language, typed=request, sent=request, **facts))
    return [f.rule for f in found]


def test_the_notes_are_after_run_rules_in_the_order_they_are_said() -> None:
    assert all(rule.phase == "after_run" for rule in RULES)
    assert [rule.id for rule in RULES] == [
        "typed", "unrounded", "near_miss", "overwritten", "one_shot", "unmet_ignore_case", "unmet_weekdays",
        "unmet_words", "unmet_write_file", "unmet_subfolders", "dictreader_header", "ls_count", "grep_basic",
        "nan_result"]
    assert [rule.id for rule in RULES if not rule.once] == ["typed"]


DATE_90 = "Print the date 90 days after 2024-11-15, as YYYY-MM-DD."


@pytest.mark.parametrize(("request_text", "code", "output", "found"), [
    (DATE_90, 'print("2024-11-15 + 90 days = 2024-12-25")', "2024-11-15 + 90 days = 2024-12-25\n", True),
    (DATE_90, "print(5)\nprint(f'total: {12}', sep='')", "5\ntotal: 12\n", True),
    ("Print 'Hello, World'.", "print('Hello, World')", "Hello, World\n", False),  # the request's own text
    (DATE_90, "print(date(2024, 11, 15) + timedelta(days=90))", "2025-02-13\n", False),
    (DATE_90, "d = '2025-02-13'\nprint(d)", "2025-02-13\n", False),
    (DATE_90, "print(150 * 1.609344 / 2.5)", "96.56\n", False),  # arithmetic is computing
    (DATE_90, "print(len(text))", "12\n", False),
    (DATE_90, "print(x)", "1\n", False),
    (DATE_90, "import os", "", False),
    (DATE_90, "print(", "", False),
])
def test_typed_is_code_that_only_printed_text_typed_into_it(request_text: str, code: str, output: str,
                                                           found: bool) -> None:
    assert detect("typed", request_text, code=code, output=output) == (Finding() if found else None)


FORM = "Which country scores highest? Answer format: @top_country[name], @top_score[score] rounded to two decimals."


@pytest.mark.parametrize(("code", "output", "shown", "found"), [
    ("print('@Switzerland')", "@Switzerland\n", ("@Switzerland\n",), False),  # printed again as it was
    ("print('@top_country[Switzerland] @top_score[7.59]')", "@top_country[Switzerland] @top_score[7.59]\n",
     ("Switzerland 7.587\n",), False),  # in the form asked, the number rounded
    ("print('No')", "No\n", ("No\n",), False),
    ("print('@top_country[Switzerland]')", "@top_country[Switzerland]\n", (), True),  # nothing ran before
    ("print('@top_country[Iceland]')", "@top_country[Iceland]\n", ("Switzerland 7.587\n",), True),  # a new value
    ("print('@top_score[7.6]')", "@top_score[7.6]\n", ("Switzerland 7.587\n",), False),
    ("print('@top_score[7.5]')", "@top_score[7.5]\n", ("Switzerland 7.587\n",), True),  # no rounding of it
    ("print('2024-12-25')", "2024-12-25\n", ("2024-11-15\n",), True),
])
def test_typed_leaves_a_value_an_earlier_run_printed_alone(code: str, output: str, shown: tuple[str, ...],
                                                           found: bool) -> None:
    assert detect("typed", FORM, code=code, output=output, shown=shown) == (Finding() if found else None)


def test_the_notes_give_typed_what_the_turn_s_earlier_clean_runs_printed() -> None:
    """Through the session's notes: the value a run computed, printed again typed into the code, is not said to be
    typed text; typed text with a value no run printed is."""
    notes = Notes(Engine(RULES, TEMPLATES), lambda expressions: {})
    notes.start(FORM, FORM)
    runs = [ExecutionDone("python", code, "ok", output, None, 0.1) for code, output in [
        ("print(round(df.score.max(), 3))", "7.587\n"), ("print('@top_score[7.59]')", "@top_score[7.59]\n"),
        ("print('@top_score[8.1]')", "@top_score[8.1]\n")]]
    said = [" ".join(notes.after(done)) for done in runs]
    assert said[1] == "" and "only printed text typed into it" in said[2]  # said[0]: rounded to two decimals


@pytest.mark.parametrize(("request_text", "output", "asked", "number", "places"), [
    ("How many whole minutes passed between the first and the last line? Print the number.",
     "152.71666666666667\n", "whole minutes", "152.71666666666667", 0),
    ("Print its average speed in km/h, rounded to 1 decimal (1 mile = 1.609344 km).", "Speed: 96.56064 km/h\n",
     "rounded to 1 decimal", "96.56064", 1),
    ("Print the square root of 2 rounded to four decimal places.", "1.4142135623730951\n",
     "rounded to four decimal places", "1.4142135623730951", 4),
    ("How old, in whole years, is someone born in 1990? Print the number.", "33.99\n", "whole years", "33.99", 0),
])
def test_unrounded_is_a_number_with_more_decimals_than_asked(request_text: str, output: str, asked: str, number: str,
                                                             places: int) -> None:
    assert detect("unrounded", request_text, output=output) == Finding(
        {"asked": asked, "number": number, "places": places, "language": "python"}, "places" if places else "whole")


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
def test_unrounded_leaves_a_number_rounded_as_asked_or_not_asked_to_round_alone(request_text: str,
                                                                               output: str) -> None:
    assert detect("unrounded", request_text, output=output) is None


@pytest.mark.parametrize(("request_text", "code", "keys"), [
    ("How many distinct email addresses are in contacts.txt, ignoring case and surrounding spaces?",
     "print(len({line.strip() for line in open('contacts.txt')}))", ["unmet_ignore_case"]),
    ("How many weekdays (Monday to Friday) does March 2024 have? Print the number.",
     "from datetime import date\nprint((date(2024, 3, 31) - date(2024, 3, 1)).days)", ["unmet_weekdays"]),
    ("Read words.txt and print how many words it has.", "with open('words.txt') as f:\n    print(len(f.readlines()))",
     ["unmet_words"]),
    ("Write totals.json: an object mapping each customer's name in orders.json to the total they spent.",
     "import json\ntotals = {}\nfor order in json.load(open('orders.json')):\n    totals[order['name']] = 1",
     ["unmet_write_file"]),
    ("How many distinct emails, ignoring case?", "print(len({l.strip().lower() for l in open('c.txt')}))", []),
    ("Count the words, case-insensitive.", "import re\nprint(len(re.findall('a', t, re.I)))", []),
    ("How many weekdays does March 2024 have?", "print(sum(date(2024, 3, d).weekday() < 5 for d in range(1, 32)))",
     []),
    ("Which weekday is 2024-03-15?", "print(date(2024, 3, 15).strftime('%A'))", []),
    ("How many distinct emails are there?", "print(len(set(open('c.txt'))))", []),  # the request asks nothing of case
    ("How many words are in essay.txt?", "print(len(open('essay.txt').read().split()))", []),
    ("Print the number of words in t.", "import re\nprint(len(re.findall(r'\\w+', t)))", []),
    ("Write totals.json from orders.json.", "import json\nwith open('totals.json', 'w') as f:\n    json.dump(t, f)",
     []),
    ("Save the histogram to hist.png.", "plt.hist(amounts)\nplt.savefig('hist.png')", []),
    ("Save the cleaned rows to clean.csv.", "csv.writer(open('clean.csv', 'w', newline='')).writerows(rows)", []),
    ("Write 'alpha beta gamma' to words.txt.", "from pathlib import Path\nPath('words.txt').write_text('alpha beta')",
     []),
    ("Read notes.txt and print its first line.", "print(open('notes.txt').readline())", []),  # nothing to write
])
def test_unmet_is_words_of_the_request_the_code_does_nothing_for(request_text: str, code: str,
                                                                 keys: list[str]) -> None:
    assert fired(unmet.RULES, request_text, code) == keys


@pytest.mark.parametrize(("request_text", "language", "code", "keys"), [
    ("Use a shell command to count the .py files under project/, in all its subfolders.", "shell",
     "ls project/*.py | wc -l", ["unmet_subfolders"]),
    ("Count the empty files under inbox/, subfolders included.", "python",
     "import os\nprint(sum(os.path.getsize('inbox/' + f) == 0 for f in os.listdir('inbox')))", ["unmet_subfolders"]),
    ("Count the .py files under project/, in all its subfolders.", "shell", "find project -name '*.py' | wc -l", []),
    ("List the files under src/ that contain TODO, recursively.", "shell", "grep -rl TODO src/", []),
    ("Find the largest file under data/, subfolders included.", "shell", "du -a data | sort -n | tail -1", []),
    ("Count the files under data/, subfolders included.", "python",
     "from pathlib import Path\nprint(sum(p.is_file() for p in Path('data').rglob('*')))", []),
    ("Count the files in data/.", "shell", "ls data | wc -l", []),  # the request asks nothing of subfolders
    ("How many distinct emails, ignoring case?", "shell", "sort -u c.txt | wc -l", []),  # a Python-only rule
])
def test_an_unmet_rule_holds_for_the_languages_it_names(request_text: str, language: str, code: str,
                                                        keys: list[str]) -> None:
    assert fired(unmet.RULES, request_text, code, language) == keys


def test_unmet_reads_all_of_the_turn_s_clean_code_and_not_typed_text() -> None:
    request = "Write 'alpha beta gamma' to words.txt."
    writes = "with open('words.txt', 'w') as f:\n    f.write('alpha beta gamma')"
    assert fired(unmet.RULES, request, "print(8)", clean=(writes, "print(8)")) == []
    assert fired(unmet.RULES, request, "print(8)") == ["unmet_write_file"]
    emails = "How many distinct emails, ignoring case?"
    assert fired(unmet.RULES, emails, "print(5)", output="5\n") == []
    assert fired(unmet.RULES, emails, "print(len(emails))", output="5\n") == ["unmet_ignore_case"]


DICTREADER = "import csv\nwith open('sales.csv') as f:\n    rows = list(csv.DictReader(f))\n"


@pytest.mark.parametrize(("language", "code", "keys"), [
    *[("python", DICTREADER + skipped, ["dictreader_header"])
      for skipped in ("print(len(rows) - 1)", "print(len(rows[1:]))", "next(iter(rows))\nprint(len(rows))")],
    ("python", "import csv\nreader = csv.DictReader(open('s.csv'))\nnext(reader)\nprint(sum(1 for _ in reader))",
     ["dictreader_header"]),
    ("python", DICTREADER + "print(len(rows))", []),
    ("python", "import csv\nrows = list(csv.reader(open('s.csv')))\nprint(len(rows) - 1)", []),
    ("python", DICTREADER + "print(rows[1:3], len(rows) - 2)", []),
    ("python", "print(len(open('s.csv').readlines()[1:]))", []),  # the header is skipped once
    ("shell", DICTREADER + "print(len(rows) - 1)", []),  # a rule holds for its own language
    *[("shell", command, ["ls_count"]) for command in ("ls -l | wc -l", "ls -la docs/ | wc -l",
                                                       "ls -l -h docs | wc -l")],
    *[("shell", command, []) for command in ("ls -1 | wc -l", "ls | wc -l", "ls -l | grep txt | wc -l",
                                             "find . -type f | wc -l", "ls -l")],
    *[("shell", command, ["grep_basic"]) for command in (
        "ls media/ | grep -c '\\.(jpg|png|gif)$'", 'grep "ERROR|WARN" server.log', "grep -c '[0-9]+' x",
        "grep -i -n '(ab)?c' notes.txt")],
    *[("shell", command, []) for command in (
        "grep -E 'ERROR|WARN' server.log", "grep -Ec '\\.(jpg|png)$' x", "grep -P '\\d+' x", "grep -F 'a|b' x",
        "grep --extended-regexp 'a|b' x", "grep 'ERROR\\|WARN' x", "grep -c 'ERROR' server.log", "egrep 'a|b' x",
        "grep ERROR x | sort | uniq -c", "grep -o '[0-9]*' x", "grep -v '(draft)' x", "grep 'C++' x",
        "grep 'why?' x", "grep 'colou?r' x")],
    ("shell", "ls media/ | grep -c '\\.(jpg|png)$'", ["grep_basic"]),
])
def test_traps_are_found_in_code_of_their_own_language(language: str, code: str, keys: list[str]) -> None:
    assert fired(traps.RULES, "", code, language) == keys


PANDAS = "import pandas as pd\ndf = pd.read_csv('sales.csv')\n"
ROWS = "How many data rows are in sales.csv, not counting the header?"


@pytest.mark.parametrize(("request_text", "code", "variant"), [
    *[(ROWS, PANDAS + dropped, "pandas") for dropped in ("print(len(df) - 1)", "print(df.shape[0] - 1)",
                                                         "print(len(df[1:]))", "print(len(df.iloc[1:]))")],
    (ROWS, PANDAS + "print(len(df))", None),
    (ROWS, PANDAS + "print(df.shape[1] - 1)", None),  # the columns, not the rows
    ("What is the sample variance of amount in sales.csv?",  # n - 1: a sample's degrees of freedom
     PANDAS + "print(((df.amount - df.amount.mean()) ** 2).sum() / (len(df) - 1))", None),
    ("", DICTREADER + "print(len(rows) - 1)", "csv"),
])
def test_a_header_dropped_twice_is_told_for_the_reader_the_code_used(request_text: str, code: str,
                                                                    variant: str | None) -> None:
    found = Engine(traps.RULES, TEMPLATES).run("after_run", Facts(code=code, language="python", typed=request_text,
                                                                  sent=request_text, clean=(code,)))
    assert [(f.rule, f.finding.variant) for f in found] == ([("dictreader_header", variant)] if variant else [])
    if variant == "pandas":
        assert found[0].text.startswith("Note: pd.read_csv reads the header line itself")


@pytest.mark.parametrize(("output", "keys"), [
    *[(output, ["nan_result"]) for output in (
        "@correlation_coefficient[nan]\n@p_value[nan]\n", "p-value: nan", "r = NaN, p = NaN", "nan",
        "@mean_2015[nan]", "Mean: 4.2\nStd: nan")],
    *[(output, []) for output in (
        "   age  fare\n0  22.0   NaN\n1   NaN  7.25", "0    NaN\n1    3.0\ndtype: float64", "banana: 3",
        "nano seconds: 12", "Mean: 4.2", "", "NaN values: 177")],
])
def test_a_result_printed_as_nan_is_told_where_missing_values_lead(output: str, keys: list[str]) -> None:
    facts = {"output": output, "importable": lambda module: module == "pandas"}
    assert fired(traps.RULES, "", "print(r)", **facts) == keys
    assert fired(traps.RULES, "", "print(r)", output=output) == []  # its advice is pandas': no pandas, no note


def test_a_shell_trap_is_found_after_the_failure_its_command_ends_in() -> None:
    assert fired(traps.RULES, "", "ls media/ | grep -c '\\.(jpg|png)$'", "shell", failed=True) == ["grep_basic"]


SALES = [{"date": "2024-02-03", "amount": "1"}, {"date": "2024-03-01", "amount": "2"},
         {"date": "2024-03-05", "amount": "3"}]
LOG = ["2024-05-01 10:02:13 ERROR db timeout\n", "2024-05-01 10:15:40 INFO served\n"]


def test_string_filters_on_the_loop_variable_are_found() -> None:
    assert filters("march = [r for r in sales if r['date'] == '2024-03']") == [
        Filter("r['date']", "==", "2024-03", "r", "sales")]
    assert filters("n = 0\nfor line in open('server.log'):\n    if line.startswith('ERROR'):\n        n += 1") == [
        Filter("line", "startswith", "ERROR", "line", "open('server.log')")]
    assert filters("x = [r for r in data['rows'] if 'ok' == r.status]") == [
        Filter("r.status", "==", "ok", "r", "data['rows']")]


def test_filters_that_cannot_be_judged_safely_or_are_no_string_test_are_left_out() -> None:
    assert filters("x = [r for r in sales if r['n'] == 3]") == []  # not a string
    assert filters("x = [r for r in sales if r['d'] > '2024']") == []  # not ==
    assert filters("x = [r for r in get_rows() if r['d'] == 'a']") == []  # items from a call: not read again
    assert filters("x = [r for r in sales if fetch(r) == 'a']") == []  # a call that could do anything
    assert filters("x = [r for r in open('f', 'w') if r == 'a']") == []  # a file opened for writing
    assert filters("x = [r for r in sales if y == 'a']") == []  # does not test the loop's variable
    assert filters("def (") == []


def test_the_kernel_expression_counts_matches_starts_and_holds() -> None:
    [march] = filters("march = [r for r in sales if r['date'] == '2024-03']")
    assert eval(march.expression(), {"sales": SALES}) == (0, 2, 2, "2024-03-01")
    [errors] = filters("e = [line for line in lines if line.startswith('ERROR')]")
    assert eval(errors.expression(), {"lines": LOG}) == (0, 0, 1, LOG[0])
    with pytest.raises(ZeroDivisionError):  # an iterator would be used up: not read
        eval(march.expression(), {"sales": iter(SALES)})


def test_only_a_filter_that_matched_nothing_while_values_came_close_is_a_near_miss() -> None:
    [march] = filters("march = [r for r in sales if r['date'] == '2024-03']")
    [errors] = filters("e = [line for line in lines if line.startswith('ERROR')]")
    assert near_misses({march.expression(): "(0, 2, 2, '2024-03-01')"}, [march]) == [
        NearMiss(march, True, 2, "2024-03-01")]
    assert near_misses({errors.expression(): f"(0, 0, 1, {LOG[0]!r})"}, [errors]) == [
        NearMiss(errors, False, 1, LOG[0])]
    assert near_misses({march.expression(): "(1, 2, 2, '2024-03')"}, [march]) == []  # it matched
    assert near_misses({march.expression(): "(0, 0, 0, None)"}, [march]) == []  # nothing close either
    assert near_misses({}, [march]) == []  # the kernel did not answer


def test_string_comparisons_of_a_column_are_found_as_pandas_masks() -> None:
    assert filters("march = sales[sales['date'] == '2024-03']") == [
        Filter("sales['date']", "==", "2024-03", "", "", series=True)]
    assert filters("m = df.loc[(df.kind == 'a') & (df['n'] > 2)]") == [Filter("df.kind", "==", "a", "", "", True)]
    assert filters("m = df[df['date'].str.startswith('2024-03')]") == [
        Filter("df['date']", "startswith", "2024-03", "", "", True)]
    assert filters("mask = 'x' == df['k']\nprint(df[mask])") == [Filter("df['k']", "==", "x", "", "", True)]


def test_comparisons_that_are_no_column_s_are_not_taken_for_masks() -> None:
    assert filters("if method == 'pearson':\n    print(1)") == []  # a plain name: not a column
    assert filters("ok = name.startswith('a')") == []  # a string's method, not a Series' .str
    assert filters("m = df[df['n'] == 3]") == []  # not a string
    assert filters("m = load()[load()['d'] == 'a']") == []  # a call: not read again
    assert filters("n = sum(1 for _, r in df.iterrows() if r['d'] == 'a')") == []  # a loop's row, over a call
    assert filters("for r in rows:\n    print(r['d'] == 'a')") == []  # a loop's variable, not a column


def test_a_mask_is_counted_over_the_series_string_values_and_nothing_else() -> None:
    pd = pytest.importorskip("pandas")
    [march] = filters("march = sales[sales['date'] == '2024-03']")
    frame = pd.DataFrame(SALES)
    assert eval(march.expression(), {"sales": frame}) == (0, 2, 2, "2024-03-01")
    assert eval(march.expression(), {"sales": frame.assign(date=[1, None, "2024-03"])}) == (1, 1, 1, "2024-03")
    with pytest.raises(ZeroDivisionError):  # a dict of lists is no Series: not read
        eval(march.expression(), {"sales": {"date": ["2024-03-01"]}})
    with pytest.raises(AttributeError):  # a column of numbers has no .str: no string values to count
        eval(march.expression(), {"sales": pd.DataFrame({"date": [202403, 202404]})})
    assert march.calls() == ("sales['date'].str.startswith('2024-03')",
                             "sales['date'].str.contains('2024-03', regex=False)")


MARCH = "march = [r for r in sales if r['date'] == '2024-03']\nprint(len(march))"
ERRORS = "e = [line for line in lines if line.startswith('ERROR')]"


@pytest.mark.parametrize(("code", "answer", "found"), [
    (MARCH, "(0, 2, 2, '2024-03-01')", Finding({"subject": "r['date']", "text": "'2024-03'", "count": 2,
                                                "example": "'2024-03-01'", "tested": "equals",
                                                "starts_call": "r['date'].startswith('2024-03')",
                                                "holds_call": "'2024-03' in r['date']"}, "starts")),
    (ERRORS, f"(0, 0, 1, {LOG[0]!r})", Finding({"subject": "line", "text": "'ERROR'", "count": 1,
                                                "example": repr(LOG[0]), "tested": "starts with",
                                                "starts_call": "line.startswith('ERROR')",
                                                "holds_call": "'ERROR' in line"}, "holds")),
    ("march = sales[sales['date'] == '2024-03']\nprint(len(march))", "(0, 2, 2, '2024-03-01')",
     Finding({"subject": "sales['date']", "text": "'2024-03'", "count": 2, "example": "'2024-03-01'",
              "tested": "equals", "starts_call": "sales['date'].str.startswith('2024-03')",
              "holds_call": "sales['date'].str.contains('2024-03', regex=False)"}, "starts")),
    (MARCH, "(1, 2, 2, '2024-03')", None),
    (MARCH, "(0, 0, 0, None)", None),
    (MARCH, None, None),
    ("print(1)", "(0, 2, 2, 'x')", None),  # no filter: the kernel is not asked
])
def test_near_miss_is_a_filter_that_matched_nothing_while_values_came_close(code: str, answer: str | None,
                                                                           found: Finding | None) -> None:
    asked: list[dict[str, str]] = []

    def evaluate(expressions: dict[str, str]) -> dict[str, str]:
        asked.append(expressions)
        return {key: answer for key in expressions} if answer else {}

    assert detect("near_miss", code=code, evaluate=evaluate) == found
    assert bool(asked) == bool(filters(code))


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


@pytest.mark.parametrize(("lengths", "found"), [
    ({"keys": "2", "items": "3"}, Finding({"name": "totals", "key": "name", "source": "orders", "keys": 2,
                                           "items": 3})),
    ({"keys": "3", "items": "3"}, None),
    ({}, None),
])
def test_overwritten_is_a_dict_the_kernel_finds_with_fewer_keys_than_items(lengths: dict[str, str],
                                                                          found: Finding | None) -> None:
    assert detect("overwritten", code=TOTALS, evaluate=lambda expressions: lengths) == found


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
        held_values = [csv.DictReader(io.StringIO("a\n1\n")), (n for n in []), map(int, []), zip(), [1], "text", f, {}]
        assert [eval(expression, {"v": v}) for v in held_values] == ["DictReader", "generator", "map", "zip", "", "",
                                                                     "", ""]


KEPT = "import csv\nwith open('sales.csv') as f:\n    sales = csv.DictReader(f)"


@pytest.mark.parametrize(("request_text", "kinds", "found"), [
    ("Load sales.csv into a variable called sales.", {"sales": "DictReader"},
     Finding({"name": "sales", "type": "DictReader"})),
    ("Load sales.csv into a variable called sales.", {"sales": ""}, None),  # the kernel: no iterator
    ("Make a csv reader over sales.csv called sales.", {"sales": "DictReader"}, None),  # asked for one
])
def test_one_shot_is_an_iterator_kept_in_a_name(request_text: str, kinds: dict[str, str],
                                               found: Finding | None) -> None:
    assert detect("one_shot", request_text, code=KEPT, evaluate=lambda expressions: kinds) == found


FIRES = {  # facts each rule but the traps fires on after a clean run
    "typed": {"code": "print(5)", "output": "5\n"},
    "unrounded": {"typed": "How many whole minutes?", "sent": "How many whole minutes?", "output": "1.5\n"},
    "near_miss": {"code": MARCH, "evaluate": lambda expressions: dict.fromkeys(expressions, "(0, 1, 1, 'a')")},
    "overwritten": {"code": TOTALS, "evaluate": lambda expressions: {"keys": "2", "items": "3"}},
    "one_shot": {"code": KEPT, "evaluate": lambda expressions: {"sales": "DictReader"}},
    **{rule.id: {"typed": request, "code": "print(1)", "clean": ("print(1)",)} for rule, request in zip(
        unmet.RULES, ["Ignore case.", "Count the weekdays.", "Count the words.", "Write out.txt.", "Recursively."],
        strict=True)},
}


@pytest.mark.parametrize("rule", [rule for rule in RULES if rule not in traps.RULES], ids=lambda rule: rule.id)
def test_every_rule_but_the_traps_waits_for_a_clean_run(rule: Rule) -> None:
    """After a failed shell command only the traps are said: the rules that read clean code or its output do not
    fire on it, whatever they would find."""
    assert rule.detect(Facts(**FIRES[rule.id])) is not None
    assert rule.detect(Facts(**FIRES[rule.id], failed=True)) is None


@pytest.mark.parametrize(("request_text", "places"), [
    ("Round to two decimal places.", 2), ("a float with two decimal places", 2), ("up to 3 decimal points", 3),
    ("a number with a maximum of three decimal places", 3), ("rounded off to 4 digits", 4),
    ("in whole minutes", 0), ("p to 4 decimals and r to 2 decimals", None), ("no rounding asked", None),
    ("The code has 3 digits", None)])
def test_the_decimals_a_request_asks_for_however_it_says_it(request_text: str, places: int | None) -> None:
    assert places_asked(request_text) == places
