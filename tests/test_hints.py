"""Error-specific feedback: the names and files that do exist, for the errors that misname them; what in a value
float() or int() cannot read is not a number."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from string import Template

import pytest
from conftest import records, run_interp, run_scripted, write_script

from interp.extract import code_blocks
from interp.hints import (
    MAX_NAMES,
    alias,
    closed_file,
    data_as_code,
    data_in_file,
    file_as_name,
    grep_none,
    load_of_name,
    misplaced_attribute,
    missing_file,
    missing_key,
    missing_name,
    one_pass,
    string_expected,
    strptime_regex,
    time_format,
    unimported_module,
    unreadable_number,
    writer_columns,
)
from interp.prompts import prompts_dir

TEXT = {key: Template(value) for key, value in json.loads((prompts_dir() / "hints.json").read_text()).items()}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "sales.csv").write_text("a,b\n")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    (tmp_path / "data").mkdir()
    return tmp_path


@pytest.mark.parametrize("error", [
    "Traceback (most recent call last):\n...\nFileNotFoundError: [Errno 2] No such file or directory: 'sale.csv'",
    "ls: cannot access 'sale.csv': No such file or directory",
    "cat: sale.csv: No such file or directory",
])
def test_a_missing_file_lists_the_files_that_exist(folder: Path, error: str) -> None:
    hint = missing_file(error, folder, TEXT)
    assert hint == ("There is no sale.csv. Did you mean sales.csv? Files in the working directory: data/, notes.txt, "
                    "sales.csv.")


def test_a_missing_file_in_a_subfolder_lists_that_folder(folder: Path) -> None:
    (folder / "data" / "2024.csv").write_text("")
    hint = missing_file("FileNotFoundError: [Errno 2] No such file or directory: 'data/2023.csv'", folder, TEXT)
    assert hint is not None and f"Files in {folder / 'data'}: 2024.csv." in hint


def test_a_folder_that_does_not_exist_falls_back_to_its_nearest_parent(folder: Path) -> None:
    hint = missing_file("FileNotFoundError: [Errno 2] No such file or directory: 'nope/deeper/x.csv'", folder, TEXT)
    assert hint is not None and "sales.csv" in hint


def test_an_empty_folder_is_said_to_be_empty(tmp_path: Path) -> None:
    hint = missing_file("FileNotFoundError: [Errno 2] No such file or directory: 'x.csv'", tmp_path, TEXT)
    assert hint == "There is no x.csv: the working directory is empty."


def test_other_errors_get_no_file_hint(folder: Path) -> None:
    assert missing_file("ValueError: could not convert string to float: 'x'", folder, TEXT) is None
    assert missing_file("PermissionError: [Errno 13] Permission denied: 'sales.csv'", folder, TEXT) is None


def test_a_missing_name_lists_the_names_that_exist() -> None:
    hint = missing_name("NameError: name 'totl' is not defined", lambda: ["total", "df"], TEXT)
    assert hint == "Nothing named totl is defined. Did you mean total? Names defined in the session: df, total."


def test_a_missing_name_in_an_empty_session() -> None:
    hint = missing_name("NameError: name 'df' is not defined", lambda: [], TEXT)
    assert hint == "Nothing named df is defined: the session has no variables yet, so define it first."


def test_names_are_listed_up_to_a_bound() -> None:
    names = [f"v{i:03}" for i in range(MAX_NAMES + 5)]
    hint = missing_name("NameError: name 'zzz' is not defined", lambda: names, TEXT)
    assert hint is not None and hint.endswith("and 5 more.") and "Did you mean" not in hint


REPORT_PY = 'data = {"apples": 3, "pears": 5}\nprint(json.dumps({"total": sum(data.values())}))\n'


def test_a_standard_module_never_imported_is_named(tmp_path: Path) -> None:
    assert unimported_module("NameError: name 'json' is not defined", lambda: tmp_path, TEXT) == (
        "json is a standard module that the code never imported: put `import json` at its top.")
    assert unimported_module("NameError: name 'df' is not defined", lambda: tmp_path, TEXT) is None
    assert unimported_module("TypeError: unsupported operand", lambda: tmp_path, TEXT) is None


def test_a_module_a_file_never_imports_comes_with_code_that_puts_the_import_in_the_file(tmp_path: Path) -> None:
    error = (f"Traceback (most recent call last):\nFile {tmp_path / 'report.py'}:2\n----> 2 print(json.dumps(x))\n\n"
             "NameError: name 'json' is not defined")
    hint = unimported_module(error, lambda: tmp_path, TEXT)
    assert hint is not None and hint.startswith("json is a standard module that report.py never imports.")
    [block] = code_blocks(hint)
    assert "open('report.py', 'w')" in block.code and "%run report.py" in block.code
    elsewhere = unimported_module(error, lambda: tmp_path / "other", TEXT)
    assert elsewhere is not None and f"open('{tmp_path / 'report.py'}', 'w')" in elsewhere


def test_in_the_real_kernel_the_code_to_copy_mends_the_script(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "report.py").write_text(REPORT_PY)
    hint = unimported_module(f"File {tmp_path / 'report.py'}:2\nNameError: name 'json' is not defined",
                             lambda: tmp_path, TEXT)
    assert hint is not None
    script = write_script(tmp_path, ["```python\n%run report.py\n```", hint[hint.index("```"):], "Fixed."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal),
                         "report.py crashes. Fix it and run it."], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = [r["content"] for r in records(journal, "user") if r.get("kind") == "feedback"]
    assert "json is a standard module that report.py never imports." in told[0]  # the kernel's traceback read
    assert (tmp_path / "report.py").read_text() == "import json\n" + REPORT_PY
    assert '{"total": 8}' in told[1]


def test_the_kernel_is_not_asked_for_other_errors() -> None:
    def names() -> list[str]:
        raise AssertionError("asked for names")
    assert missing_name("TypeError: unsupported operand", names, TEXT) is None


@pytest.mark.parametrize(("value", "says"), [
    ("$1,200.00", "float() cannot read '$1,200.00': it holds '$' and ',' besides the digits. Here ',' separates "
                  "thousands. Clean each value before converting it, every character at once, for example "
                  "float(value.replace('$', '').replace(',', '').strip())."),
    ("2,49", "float() cannot read '2,49': it holds ',' besides the digits. Here ',' is the decimal point. Clean each "
             "value before converting it, every character at once, for example "
             "float(value.replace(',', '.').strip())."),
    ("$1.200.00", "it holds '$' besides the digits. Clean each value before converting it, every character at once, "
                  "for example float(value.replace('$', '').strip())."),
    (" 7 kg", "float() cannot read ' 7 kg': it is a number with its unit ('kg')"),
    ("1h 20m", "it is a number with its unit ('h' and 'm'), and a value may hold several. Take numbers and units "
               "apart and weigh each number by its unit, for example:\n```python\nfactor = {'h': ..., 'm': ...}  # "
               "what one of each unit in the data is worth in the unit asked for\ntotal = sum(float(number) * "
               "factor[unit] for number, unit in re.findall(r'(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]+)', text))\n```"),
    ("h", "float() cannot read 'h': it is a unit, not a number; the code converted the unit where it meant the number "
          "written before it. Weigh each number by its unit, for example:\n```python\nfactor = {'h': ...}"),
    ("GB", "float() cannot read 'GB': it is a unit, not a number"),
    ("2024-05-01 12", "it is a piece of a date or a time, not a number. Read the whole timestamp with datetime"),
    ("10:02", "it is a time of day, not a number. Read it with datetime (from datetime import datetime), for example "
               "datetime.strptime(value.strip(), '%H:%M')"),
    ("2024-05-01 12", "datetime.strptime(stamp, '%Y-%m-%d %H:%M:%S')"),  # a piece: the whole timestamp's format
    ("2024-05-01", "datetime.strptime(value.strip(), '%Y-%m-%d')"),
    ("7 kg/m", "float() cannot read '7 kg/m': it holds 'k' and 'g' and '/' and 'm' between its digits, so it is "
               "not one number. Split it into the numbers it holds"),
    ("1/5/5/1", "it holds '/' between its digits, so it is not one number"),
    ("€1.200", "it holds '€' besides the digits. Clean each value before converting it, every character at once, "
               "for example float(value.replace('€', '').strip())."),
    ("amount", "'amount' is not a number at all: a header line or a label was read as a value."),
    ("Bob", "'Bob' is not a number at all: a header line or a label was read as a value."),  # a name, not a unit
    ("", "The value is empty: a blank line or a missing field"),
])
def test_a_value_float_cannot_read_is_said_to_hold_what_is_not_a_number(value: str, says: str) -> None:
    error = f"Traceback (most recent call last):\n...\nValueError: could not convert string to float: '{value}'"
    hint = unreadable_number(error, TEXT)
    assert hint is not None and says in hint
    assert value != "$1.200.00" or "Here" not in hint  # no advice on a comma it does not hold


def test_the_example_cleans_what_the_failing_line_converts() -> None:
    error = ("Traceback (most recent call last):\nCell In[1], line 6\n      5     reader = csv.DictReader(file)\n"
             "----> 6     total = sum(float(row['amount']) for row in reader)\n\n"
             "Cell In[1], line 6, in <genexpr>(.0)\n----> 6 import csv\n\n"
             "ValueError: could not convert string to float: '$1,200.00'")
    hint = unreadable_number(error, TEXT)
    assert hint is not None and hint.endswith("float(row['amount'].replace('$', '').replace(',', '').strip()).")
    tenth = ("Cell In[1], line 10\n      9         for row in reader:\n---> 10             writer.writerow([row['v'], "
             "float(row['amount'])])\n\nValueError: could not convert string to float: '$5'")  # a shorter arrow
    assert (unreadable_number(tenth, TEXT) or "").endswith("float(row['amount'].replace('$', '').strip()).")
    two = "----> 3 x = float(a) + float(b)\nValueError: could not convert string to float: '$5'"
    assert (unreadable_number(two, TEXT) or "").endswith("float(value.replace('$', '').strip()).")  # which one?


def test_int_is_told_apart_and_other_value_errors_get_no_hint() -> None:
    hint = unreadable_number("ValueError: invalid literal for int() with base 10: '3.5'", TEXT)
    assert hint == "int() reads whole numbers only, and '3.5' is not one: use float() for it."
    hint = unreadable_number("ValueError: invalid literal for int() with base 10: '1,024'", TEXT)
    assert hint is not None and hint.startswith("int() cannot read '1,024': it holds ','")
    assert hint.endswith("for example int(value.replace(',', '').strip()).")
    assert unreadable_number("ValueError: math domain error", TEXT) is None
    assert unreadable_number("TypeError: could not convert string to float: 'x'", TEXT) is None


def test_len_or_an_index_of_a_one_pass_reader_is_told_to_make_a_list_once() -> None:
    error = ("Traceback (most recent call last):\nCell In[1], line 7\n      6     total = sum(float(r['amount']) "
             "for r in reader)\n----> 7     average = total / len(reader)\n\n"
             "TypeError: object of type 'DictReader' has no len()")
    hint = one_pass(error, TEXT)
    assert hint is not None and "rows = list(reader)" in hint and "len(rows)" in hint
    error = "----> 3 plt.plot(data['date'])\n\nTypeError: 'DictReader' object is not subscriptable"
    hint = one_pass(error, TEXT)
    assert hint is not None and "rows = list(data)" in hint and "[row['column'] for row in rows]" in hint
    hint = one_pass("----> 2 print(len(squares))\nTypeError: object of type 'generator' has no len()", TEXT)
    assert hint is not None and hint.startswith("A generator gives") and "items = list(squares)" in hint
    assert one_pass("TypeError: 'int' object is not subscriptable", TEXT) is None  # not a reader: no list helps
    assert one_pass("TypeError: object of type 'NoneType' has no len()", TEXT) is None
    assert one_pass("ValueError: object of type 'generator' has no len()", TEXT) is None


def test_adding_to_a_key_a_dict_does_not_hold_yet_is_told_to_start_it() -> None:
    error = ("Traceback (most recent call last):\nCell In[1], line 9\n      8 for customer in orders:\n----> 9     "
             "total[customer['customer']['name']] += sum(i['price'] * i['qty'] for i in customer['items'])\n\n"
             "KeyError: 'Ann'")
    assert missing_key(error, TEXT) == (
        "total[customer['customer']['name']] += ... reads the value total already holds for the key before adding to "
        "it, and total holds nothing for 'Ann' yet. Give a key its start the first time: "
        "total[customer['customer']['name']] = total.get(customer['customer']['name'], 0) + ..., or make total a "
        "collections.defaultdict(int) before the loop.")
    hint = missing_key("----> 4     by_city[o['city']].append(o)\n\nKeyError: 'Oslo'", TEXT)
    assert hint is not None and "by_city.setdefault(o['city'], []).append(...)" in hint
    assert missing_key("----> 4     print(totals['Ann'])\n\nKeyError: 'Ann'", TEXT) is None  # a read, not an add
    assert missing_key("----> 4     total['Ann'] += 1\n\nTypeError: x", TEXT) is None
    assert missing_key("----> 4     count += 1\n\nKeyError: 'Ann'", TEXT) is None
    assert missing_key("----> 4     seen[k].add(x)\n\nKeyError: 'a'", TEXT) is None  # a set's add: no list to start


def test_a_file_name_given_to_json_load_is_told_to_open_the_file() -> None:
    error = ("Cell In[1], line 2\n      1 import json\n----> 2 grades = json.load('grades.json')\n\nFile ~/json/"
             "__init__.py:293, in load(fp, cls)\n--> 293     return loads(fp.read(),\n"
             "AttributeError: 'str' object has no attribute 'read'")
    assert load_of_name(error, TEXT) == (
        "json.load() reads an open file, and it was given 'grades.json', a str: the file's name. Open the file and "
        "give it that: with open('grades.json') as f: grades = json.load(f).")
    held = load_of_name(error.replace("grades = json.load('grades.json')", "print(json.load(path))"), TEXT)
    assert held is not None and "If path is a file's name" in held and "data = json.load(f)" in held
    assert "json.loads(path) reads it" in held
    assert load_of_name(error.replace("'read'", "'readline'"), TEXT) is None
    assert load_of_name(error.replace("json.load(", "parse("), TEXT) is None


def test_the_real_kernel_error_of_len_of_a_reader_gets_the_hint(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "sales.csv").write_text("item,amount\na,2\nb,4\n")
    failing = ("```python\nimport csv\nwith open('sales.csv') as f:\n    reader = csv.DictReader(f)\n"
               "    total = sum(float(row['amount']) for row in reader)\n    print(total / len(reader))\n```")
    fixed = ("```python\nimport csv\nwith open('sales.csv') as f:\n    rows = list(csv.DictReader(f))\n"
             "print(sum(float(row['amount']) for row in rows) / len(rows))\n```")
    script = write_script(tmp_path, [failing, fixed, "The average is 3.0."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "average amount"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = records(journal, "model_call")[1]["input_tail"]["content"]
    assert "A csv DictReader gives the rows one at a time, and once" in told and "rows = list(reader)" in told
    [block] = code_blocks(fixed)
    assert "3.0" in result.stdout and "rows = list(" in block.code


def test_the_real_kernel_error_of_adding_to_a_missing_key_gets_the_hint(tmp_path: Path, env: dict[str, str]) -> None:
    failing = ("```python\norders = [('Ann', 3), ('Bob', 2), ('Ann', 5)]\ntotal = {}\nfor name, amount in orders:\n"
               "    total[name] += amount\nprint(total)\n```")
    fixed = failing.replace("total[name] += amount", "total[name] = total.get(name, 0) + amount")
    result, told = run_scripted(tmp_path, env, [failing, fixed, "Ann 8, Bob 2."], "each one's total")
    assert result.returncode == 0, result.stderr
    assert ("total[name] += ... reads the value total already holds for the key before adding to it, and total "
            "holds nothing for 'Ann' yet. Give a key its start the first time: total[name] = total.get(name, 0) + "
            "...") in told[1]
    assert "{'Ann': 8, 'Bob': 2}" in result.stdout


def test_the_real_kernel_error_of_json_load_of_a_name_gets_the_hint(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "grades.json").write_text('{"Ann": [90, 85]}')
    failing = "```python\nimport json\ngrades = json.load('grades.json')\nprint(grades)\n```"
    fixed = "```python\nimport json\nwith open('grades.json') as f:\n    grades = json.load(f)\nprint(grades)\n```"
    result, told = run_scripted(tmp_path, env, [failing, fixed, "Loaded."], "Load grades.json into grades.")
    assert result.returncode == 0, result.stderr
    assert ("json.load() reads an open file, and it was given 'grades.json', a str: the file's name. Open the file "
            "and give it that: with open('grades.json') as f: grades = json.load(f).") in told[1]
    assert "{'Ann': [90, 85]}" in result.stdout


def test_a_file_used_as_a_name_is_told_to_be_read_from_disk(folder: Path) -> None:
    (folder / "orders.json").write_text("[]")
    error = ("Cell In[1], line 1\n----> 1 print(len([o for o in orders.json if o['city'] == 'Oslo']))\n\n"
             "NameError: name 'orders' is not defined")
    hint = file_as_name(error, lambda: folder, TEXT)
    assert hint == ("orders.json is a file in the working directory, not a Python name: read it from disk first, for "
                    "example:\n```python\nimport json\norders = json.load(open('orders.json'))\n```")
    sales = file_as_name("----> 1 total = sum(sales.csv['amount'])\nNameError: name 'sales' is not defined",
                         lambda: folder, TEXT)
    assert sales is not None and "sales = list(csv.DictReader(open('sales.csv')))" in sales
    notes = file_as_name("----> 1 print(notes.txt)\nNameError: name 'notes' is not defined", lambda: folder, TEXT)
    assert notes is not None and "notes = open('notes.txt').read()" in notes
    assert file_as_name("----> 1 print(report.json)\nNameError: name 'report' is not defined", lambda: folder,
                        TEXT) is None  # no such file: the name hint's business
    assert file_as_name("----> 1 print(orders)\nNameError: name 'orders' is not defined", lambda: folder, TEXT) is None


def test_a_name_for_data_the_request_named_in_a_file_is_told_to_read_the_file() -> None:
    error = ("Cell In[1], line 1\n----> 1 info_count = log_file.count('INFO')\n\n"
             "NameError: name 'log_file' is not defined")
    hint = data_in_file(error, "", [], [("server.log", "text")], TEXT)
    assert hint == ("Nothing named log_file is defined. The data the request is about is in server.log, on disk: the "
                    "code reads it from there, for example:\n```python\nlog_file = open('server.log').read()\n```")
    looped = "----> 3 for line in lines:\nNameError: name 'lines' is not defined"
    hint = data_in_file(looped, "", [], [("logs/server.log", "text")], TEXT)
    assert hint is not None and "lines = open('logs/server.log').read().splitlines()" in hint
    posts = "----> 1 print(posts[0]['tags'])\nNameError: name 'posts' is not defined"
    hint = data_in_file(posts, "", ["x"], [("report.py", "python"), ("posts.json", "json")], TEXT)
    assert hint is not None and "in posts.json, on disk" in hint and "posts = json.load(open('posts.json'))" in hint
    rows = data_in_file("----> 1 print(len(rows))\nNameError: name 'rows' is not defined", "", [],
                        [("sales.csv", "csv")], TEXT)
    assert rows is not None and "rows = list(csv.DictReader(open('sales.csv')))" in rows


def test_a_missing_name_that_is_not_data_from_a_named_file_gets_no_data_hint() -> None:
    error = "----> 1 print(totl)\nNameError: name 'totl' is not defined"
    assert data_in_file(error, "", ["total"], [("sales.csv", "csv")], TEXT) is None  # a misspelt name of the session's
    assert data_in_file(error, "", [], [], TEXT) is None  # the request named no file
    assert data_in_file(error, "", [], [("app.py", "python"), ("logo.png", "binary")], TEXT) is None  # no data file
    called = "----> 1 print(parse(line))\nNameError: name 'parse' is not defined"
    assert data_in_file(called, "", [], [("server.log", "text")], TEXT) is None  # a function never defined
    module = "----> 1 print(json.dumps(x))\nNameError: name 'json' is not defined"
    assert data_in_file(module, "", [], [("a.json", "json")], TEXT) is None  # a module never imported
    assert data_in_file("TypeError: unsupported operand", "", [], [("a.csv", "csv")], TEXT) is None


def test_the_real_kernel_name_error_for_a_named_log_is_told_to_read_it(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "server.log").write_text("09:00 INFO up\n10:00 ERROR down\n11:00 ERROR down\n")
    failing = "```python\nprint(log_file.count('ERROR'))\n```"
    fixed = "```python\nlog_file = open('server.log').read()\nprint(log_file.count('ERROR'))\n```"
    result, told = run_scripted(tmp_path, env, [failing, fixed, "server.log has 2 ERROR lines."],
                                "How many ERROR lines does server.log have?")
    assert result.returncode == 0, result.stderr
    assert "The data the request is about is in server.log" in told[1]
    assert "log_file = open('server.log').read()" in told[1]
    assert "2" in [line.strip() for line in result.stdout.splitlines()]


def test_a_whole_time_is_read_with_its_own_format_from_the_failing_expression() -> None:
    error = ("Cell In[1], line 9\n----> 9         hour = int(re.search(r'\\d{2}:\\d{2}:\\d{2}', line).group())\n\n"
             "ValueError: invalid literal for int() with base 10: '10:02:13'")
    hint = unreadable_number(error, TEXT)
    assert hint is not None and "it is a time of day" in hint
    assert "datetime.strptime(re.search('\\\\d{2}:\\\\d{2}:\\\\d{2}', line).group().strip(), '%H:%M:%S')" in hint


def test_datetime_used_as_the_class_is_imported_from_its_module(tmp_path: Path) -> None:
    error = ("Cell In[3], line 10\n---> 10         hour = datetime.strptime(stamp, '%H:%M:%S').hour\n\n"
             "NameError: name 'datetime' is not defined")
    hint = unimported_module(error, lambda: tmp_path, TEXT)
    assert hint == ("datetime is a standard module that the code never imported: put `from datetime import datetime` "
                    "at its top.")
    error = "----> 1 print(datetime.date(2024, 1, 1))\nNameError: name 'datetime' is not defined"
    assert "put `import datetime` at" in (unimported_module(error, lambda: tmp_path, TEXT) or "")


def test_a_list_given_to_re_is_told_to_go_line_by_line_or_be_joined() -> None:
    error = ("----> 8 matches = re.findall(pattern, lines)\n\nFile ~/.pyenv/versions/3.11.7/lib/python3.11/re/"
             "__init__.py:216, in findall(pattern, string, flags)\n--> 216     return _compile(pattern, flags)"
             ".findall(string)\n\n"
             "TypeError: expected string or bytes-like object, got 'list'")
    hint = string_expected(error, TEXT)
    assert hint is not None and hint.startswith("re.findall, re.search and re.match read one string, and lines is a")
    assert "for line in lines: re.findall(pattern, line)" in hint and "'\\n'.join(lines)" in hint
    assert string_expected("TypeError: expected string or bytes-like object, got 'int'", TEXT) is None
    assert string_expected("TypeError: can only concatenate str (not \"list\") to str", TEXT) is None


def test_strptime_of_part_of_a_timestamp_is_told_which_part_it_holds() -> None:
    error = ("Cell In[1], line 12\n---> 12 start = datetime.strptime(stamps[0], '%Y-%m-%d %H:%M:%S')\n\n"
             "ValueError: time data '2024-05-01' does not match format '%Y-%m-%d %H:%M:%S'")
    hint = time_format(error, TEXT)
    assert hint is not None and hint.startswith("'2024-05-01' holds only the '%Y-%m-%d' part of the format")
    late = error.replace("'2024-05-01'", "'10:02:13'")
    assert "holds only the '%H:%M:%S' part" in (time_format(late, TEXT) or "")
    assert time_format(error.replace("'2024-05-01'", "'yesterday'"), TEXT) is None  # no part of it
    assert time_format("ValueError: invalid literal for int() with base 10: 'x'", TEXT) is None


def test_strptime_of_a_whole_line_is_told_the_start_to_give_it(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "server.log").write_text("2024-05-01 09:58:02 INFO service started\n")
    failing = ("```python\nfrom datetime import datetime\nlines = open('server.log').read().splitlines()\n"
               "start = datetime.strptime(lines[0], '%Y-%m-%d %H:%M:%S')\nprint(start)\n```")
    fixed = failing.replace("lines[0],", "lines[0][:19],")
    script = write_script(tmp_path, [failing, fixed, "It started at 09:58:02."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--no-preview-files", "--model", f"script:{script}", "--transcript", str(journal),
                         "When did the log start?"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = records(journal, "model_call")[1]["input_tail"]["content"]
    assert ("strptime read '%Y-%m-%d %H:%M:%S' at the start of the string, and the string goes on with 'INFO service "
            "started', which the format does not describe. Give it only the start the format describes: "
            "lines[0][:19].") in told
    assert "2024-05-01 09:58:02" in result.stdout


def test_grep_that_matched_nothing_is_told_so(tmp_path: Path, env: dict[str, str]) -> None:
    failed = "The command failed with exit status 1."
    assert grep_none("ls src/ | grep TODO", "", failed, TEXT) is not None
    assert grep_none("grep -c TODO a.txt", "", failed, TEXT) is not None
    assert grep_none("ls src/ | grep TODO", "x\n", failed, TEXT) is None  # it printed something
    assert grep_none("ls nope", "", failed, TEXT) is None and grep_none("egrep x", "", failed, TEXT) is None
    assert grep_none("grep x a", "", "The command failed with exit status 2.", TEXT) is None
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("# TODO: tests\n")
    script = write_script(tmp_path, ["```bash\nls src/ | grep TODO\n```", "```bash\ngrep -rl TODO src/\n```",
                                     "src/app.py has a TODO."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--no-preview-files", "--model", f"script:{script}", "--transcript", str(journal),
                         "Which files under src/ contain TODO?"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = records(journal, "model_call")[1]["input_tail"]["content"]
    assert "grep ends with exit status 1 when no line matches" in told and "src/app.py" in result.stdout


def test_an_empty_slice_read_as_a_number_is_told_where_its_positions_count_from() -> None:
    error = ("Cell In[1], line 9\n----> 9         hour = int(re.search(r'\\d{2}:\\d{2}', line).group(0)[11:13])\n\n"
             "ValueError: invalid literal for int() with base 10: ''")
    hint = unreadable_number(error, TEXT)
    cut = "re.search('\\\\d{2}:\\\\d{2}', line).group(0)"
    assert hint == (f"The value is empty: it was cut with [11:13] from {cut}, and a slice that starts at or past the "
                    "end of its string gives ''. Its positions count from the start of the string it cuts, not from "
                    "the start of the line. If they are positions in line, cut line itself: line[11:13].")
    parts = error.replace("re.search(r'\\d{2}:\\d{2}', line).group(0)[11:13]", "parts[1][11:13]")
    hint = unreadable_number(parts, TEXT)  # a variable sliced as it is: nothing else to cut
    assert hint is not None and hint.endswith("not from the start of the line.") and "parts[1]" in hint
    two = error.replace("line).group(0)", "line + rest).group(0)")
    hint = unreadable_number(two, TEXT)  # taken from two variables: which one is not known
    assert hint is not None and hint.endswith("not from the start of the line.")
    plain = error.replace(".group(0)[11:13]", ".group(1)")
    assert unreadable_number(plain, TEXT) == TEXT["number_empty"].substitute()


def test_the_real_kernel_error_of_a_unit_converted_as_a_number_gets_the_weighing_example(
        tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "times.txt").write_text("1h 20m\n45m\n")
    failing = ("```python\nimport re\ntext = open('times.txt').read()\nprint(sum(int(n) * 60 + int(u) for n, u in "
               "re.findall(r'(\\d+)\\s*([a-z]+)', text)))\n```")
    fixed = ("```python\nimport re\nfactor = {'h': 60, 'm': 1}\ntext = open('times.txt').read()\nprint(sum(float(n) * "
             "factor[u] for n, u in re.findall(r'(\\d+)\\s*([a-z]+)', text)))\n```")
    result, told = run_scripted(tmp_path, env, [failing, fixed, "125 minutes in all."],
                                "Print the total of times.txt in minutes.")
    assert result.returncode == 0, result.stderr
    assert "int() cannot read 'h': it is a unit, not a number" in told[1] and "factor = {'h': ...}" in told[1]
    assert "125.0" in result.stdout


def test_the_real_kernel_error_of_an_empty_slice_suggests_cutting_the_line(tmp_path: Path,
                                                                           env: dict[str, str]) -> None:
    (tmp_path / "server.log").write_text("2024-05-01 10:02:13 ERROR db\n2024-05-01 11:20:31 ERROR disk\n")
    failing = ("```python\nimport re\nhours = []\nfor line in open('server.log'):\n"
               "    hours.append(int(re.search(r'\\d{2}:\\d{2}:\\d{2}', line).group(0)[11:13]))\nprint(hours)\n```")
    fixed = "```python\nprint([int(line[11:13]) for line in open('server.log')])\n```"
    result, told = run_scripted(tmp_path, env, [failing, fixed, "Hours 10 and 11."],
                                "Print the hour of each line of server.log.")
    assert result.returncode == 0, result.stderr
    assert "If they are positions in line, cut line itself: line[11:13]." in told[1]
    assert "[10, 11]" in result.stdout


def test_a_module_s_short_name_is_imported_when_installed_and_done_without_when_not() -> None:
    error = "----> 5 df = pd.read_csv(path)\nNameError: name 'pd' is not defined"
    installed = alias(error, lambda module: True, [("weather.csv", "csv")], TEXT)
    assert installed == ("pd is the usual short name of pandas, which the code never imported: put `import pandas as "
                         "pd` at its top.")
    missing = alias(error, lambda module: False, [("weather.csv", "csv")], TEXT)
    assert missing == ("pd is the usual short name of pandas, which is not installed here: the code cannot use pd. Do "
                       "without it, reading the data with the standard library, for example:\n```python\nimport "
                       "csv\nrows = list(csv.DictReader(open('weather.csv')))\n```")
    alone = alias(error, lambda module: False, [], TEXT)
    assert alone is not None and alone.endswith("the code cannot use pd. Do without it.")
    plt = alias("----> 3 plt.plot(x)\nNameError: name 'plt' is not defined", lambda module: module == "matplotlib",
                [], TEXT)
    assert plt is not None and "`import matplotlib.pyplot as plt`" in plt
    assert alias("NameError: name 'rows' is not defined", lambda module: True, [], TEXT) is None
    assert data_in_file(error, "", [], [("weather.csv", "csv")], TEXT) is None  # a short name is no data


def test_the_real_kernel_tells_a_short_name_of_a_module_that_is_not_installed(tmp_path: Path,
                                                                             env: dict[str, str]) -> None:
    (tmp_path / "weather.csv").write_text("date,temperature\n2024-06-01,18.5\n")
    failing = "```python\nprint(len(pl.read_csv('weather.csv')))\n```"
    fixed = "```python\nimport csv\nrows = list(csv.DictReader(open('weather.csv')))\nprint(len(rows))\n```"
    result, told = run_scripted(tmp_path, env, [failing, fixed, "One row."], "How many rows has weather.csv?")
    assert result.returncode == 0, result.stderr
    said = ("which the code never imported" if importlib.util.find_spec("polars") else
            "which is not installed here: the code cannot use pl. Do without it, reading the data with the standard "
            "library, for example:\n```python\nimport csv\nrows = list(csv.DictReader(open('weather.csv')))")
    assert f"pl is the usual short name of polars, {said}" in told[1]


def test_a_name_the_failing_code_assigns_itself_gets_no_data_hint() -> None:
    error = "----> 17 d = int(last_time.split()[1])\nNameError: name 'last_time' is not defined"
    code = "m = re.match(p, line)\nif m:\n    last_time = m.group()\nd = int(last_time.split()[1])"
    assert data_in_file(error, code, [], [("server.log", "text")], TEXT) is None  # its `if` did not run
    assert data_in_file(error, "d = int(last_time.split()[1])", [], [("server.log", "text")], TEXT) is not None


def test_a_strptime_format_given_to_re_is_told_apart() -> None:
    error = ("Cell In[1], line 10\n---> 10 first = re.match(time_format, first_line).group()\n\n"
             "AttributeError: 'NoneType' object has no attribute 'group'")
    code = "time_format = '%Y-%m-%d %H:%M:%S'\nfirst = re.match(time_format, first_line).group()"
    assert strptime_regex(error, code, TEXT) == (
        "'%Y-%m-%d %H:%M:%S' is a format for datetime.strptime, not a regular expression: re reads %Y as the "
        "characters % and Y, so it matches nothing here. Read a timestamp with datetime.strptime(text, "
        "'%Y-%m-%d %H:%M:%S') (give it only the timestamp's part of the line), or find one with a pattern such as "
        "r'\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}'.")
    literal = "---> 3 t = re.search('%H:%M', line).group(0)\nAttributeError: 'NoneType' object has no attribute 'group'"
    hint = strptime_regex(literal, "", TEXT)
    assert hint is not None and "re reads %H as the characters % and H" in hint
    assert strptime_regex(literal.replace("%H:%M", "\\d+:\\d+"), "", TEXT) is None  # a real pattern
    assert strptime_regex(error, "time_format = get()", TEXT) is None  # the pattern is not known
    assert strptime_regex("AttributeError: 'int' object has no attribute 'group'", code, TEXT) is None


def test_the_real_kernel_error_of_a_strptime_format_given_to_re_gets_the_hint(tmp_path: Path,
                                                                              env: dict[str, str]) -> None:
    (tmp_path / "server.log").write_text("2024-05-01 09:58:02 INFO up\n2024-05-01 12:30:45 INFO down\n")
    failing = ("```python\nimport re\nlines = open('server.log').read().splitlines()\nfmt = '%Y-%m-%d %H:%M:%S'\n"
               "first = re.match(fmt, lines[0]).group()\nprint(first)\n```")
    fixed = "```python\nprint(lines[0][:19])\n```"
    result, told = run_scripted(tmp_path, env, [failing, fixed, "It began at 09:58:02."],
                                "When does server.log begin?")
    assert result.returncode == 0, result.stderr
    assert "'%Y-%m-%d %H:%M:%S' is a format for datetime.strptime, not a regular expression" in told[1]


def test_a_name_looked_up_on_the_wrong_one_of_a_module_and_its_class_is_told_where_it_is() -> None:
    error = "----> 7 d = start + datetime.timedelta(days=1)\nAttributeError: type object 'datetime.datetime' has no " \
            "attribute 'timedelta'"
    hint = misplaced_attribute(error, "from datetime import datetime\nstart = datetime(2024, 3, 1)", TEXT)
    assert hint == ("datetime in this code is the class datetime.datetime (as `from datetime import datetime` names "
                    "it), not the module datetime: timedelta is in the module. Put `from datetime import timedelta` at "
                    "the top and write `timedelta(...)`.")
    hint = misplaced_attribute("AttributeError: module 'datetime' has no attribute 'strptime'", "import datetime", TEXT)
    assert hint is not None and "it belongs to the class datetime.datetime" in hint
    assert "`from datetime import datetime` at the top, then `datetime.strptime(...)`" in hint
    today = misplaced_attribute("AttributeError: module 'datetime' has no attribute 'today'", "", TEXT) or ""
    assert "class datetime.datetime" in today  # the class named like its module, of the two that have it
    for other in ("AttributeError: type object 'datetime.datetime' has no attribute 'nope'",  # nowhere
                  "AttributeError: module 'collections' has no attribute 'most_common'",  # a Counter's, not the class's
                  "AttributeError: module 'numpy' has no attribute 'timedelta'",  # not a standard module
                  "AttributeError: 'str' object has no attribute 'timedelta'",
                  "AttributeError: module 'this' has no attribute 'x'"):
        assert misplaced_attribute(other, "", TEXT) is None, other


def test_the_real_kernel_error_of_a_module_name_on_its_class_gets_the_hint(tmp_path: Path,
                                                                         env: dict[str, str]) -> None:
    failing = ("```python\nfrom datetime import datetime\nstart = datetime(2024, 3, 1)\n"
               "days = [start + datetime.timedelta(days=d) for d in range(31)]\n"
               "print(sum(d.weekday() < 5 for d in days))\n```")
    fixed = ("```python\nfrom datetime import timedelta\ndays = [start + timedelta(days=d) for d in range(31)]\n"
             "print(sum(d.weekday() < 5 for d in days))\n```")
    result, told = run_scripted(tmp_path, env, [failing, fixed, "21 weekdays."], "Weekdays in March 2024?")
    assert result.returncode == 0, result.stderr
    assert "datetime in this code is the class datetime.datetime (as `from datetime import datetime` names it)" \
        in told[1]
    assert "21" in told[2]


def test_a_dict_writer_without_fieldnames_is_told_the_columns_it_writes() -> None:
    error = ("Cell In[1], line 6\n----> 6         writer = csv.DictWriter(f)\n\n"
             "TypeError: DictWriter.__init__() missing 1 required positional argument: 'fieldnames'")
    code = ("import csv\nwith open('expenses.csv') as f:\n    reader = csv.DictReader(f)\n"
            "    with open('clean.csv', 'w') as out:\n        writer = csv.DictWriter(out)\n"
            "        writer.writeheader()\n        for row in reader:\n"
            "            writer.writerow({'vendor': row['vendor'], 'amount': row['amount']})")
    assert writer_columns(error, code, TEXT) == (
        "csv.DictWriter() needs the names of the columns it writes, in their order: writer = csv.DictWriter(out, "
        "fieldnames=['vendor', 'amount']). Each dict given to writer.writerow() has those keys.")
    copied = writer_columns(error, code.replace("{'vendor': row['vendor'], 'amount': row['amount']}", "row"), TEXT)
    assert copied is not None and "fieldnames=reader.fieldnames)" in copied  # the rows copied whole: the reader's
    unknown = writer_columns(error, "import csv\nw = csv.DictWriter(open('x.csv', 'w'))\nw.writerow(data)", TEXT)
    assert unknown is not None and "w = csv.DictWriter(open('x.csv', 'w'), fieldnames=['column', ...])" in unknown
    assert writer_columns("TypeError: f() missing 1 required positional argument: 'fieldnames'", code, TEXT) is None
    assert writer_columns(error.replace("'fieldnames'", "'f'"), code, TEXT) is None


def test_reading_a_closed_file_is_told_to_open_it_again_and_keep_a_list() -> None:
    error = ("Cell In[2], line 1\n----> 1 sales = list(sales)\n\nFile ~/csv.py:97, in DictReader.fieldnames(self)\n"
             "---> 97         self._fieldnames = next(self.reader)\nValueError: I/O operation on closed file.")
    assert closed_file(error, "sales = list(sales)", [("sales.csv", "csv")], TEXT) == (
        "sales reads from a file that is closed: a with open(...) as f: block closes f where the block ends, in an "
        "earlier code too, and nothing can be read from it after that. Open the file again and take its rows once, as "
        "a list: with open('sales.csv') as f: sales = list(csv.DictReader(f)); then use sales, after the block too (a "
        "list can be read again and again).")
    loop = "Cell In[3], line 6\n----> 6     for row in reader:\n\nValueError: I/O operation on closed file."
    code = "with open('north.csv', 'w') as f:\n    w = csv.writer(f)\n    for row in reader:\n        w.writerow(row)"
    hint = closed_file(loop, code, [("sales.csv", "csv")], TEXT)
    assert hint is not None and "with open('sales.csv') as f: reader = list(csv.DictReader(f))" in hint  # not north
    text = "----> 3 print(f.read())\n\nValueError: I/O operation on closed file."
    hint = closed_file(text, "with open('a.txt') as f:\n    pass\nprint(f.read())", [], TEXT)
    assert hint is not None and "with open('a.txt') as f: lines = f.read().splitlines()" in hint
    hint = closed_file(text, "print(f.read())", [], TEXT)
    assert hint is not None and "with open(path) as f:" in hint  # no file known by name
    assert closed_file("----> 1 x = 1\nValueError: I/O operation on closed file.", "x = 1", [], TEXT) is None
    assert closed_file("----> 1 rows = list(r)\nValueError: math domain error", "", [], TEXT) is None


def test_the_real_kernel_error_of_a_reader_of_a_closed_file_gets_the_hint(tmp_path: Path,
                                                                         env: dict[str, str]) -> None:
    (tmp_path / "sales.csv").write_text("item,amount\na,2\nb,4\n")
    made = "```python\nimport csv\nwith open('sales.csv') as f:\n    sales = csv.DictReader(f)\n```"
    failing = "```python\nsales = list(sales)\nprint(len(sales))\n```"
    fixed = "```python\nwith open('sales.csv') as f:\n    sales = list(csv.DictReader(f))\nprint(len(sales))\n```"
    result, told = run_scripted(tmp_path, env, [made, failing, fixed, "2 rows."], "Load sales.csv into sales.")
    assert result.returncode == 0, result.stderr
    assert ("sales reads from a file that is closed: a with open(...) as f: block closes f where the block ends"
            in told[2])
    assert "with open('sales.csv') as f: sales = list(csv.DictReader(f))" in told[2]
    assert "2" in told[3]


def test_the_real_kernel_error_of_a_dict_writer_without_fieldnames_gets_the_hint(tmp_path: Path,
                                                                                 env: dict[str, str]) -> None:
    (tmp_path / "sales.csv").write_text("item,amount\na,2\nb,4\n")
    failing = ("```python\nimport csv\nwith open('sales.csv') as f, open('big.csv', 'w') as out:\n"
               "    writer = csv.DictWriter(out)\n    writer.writeheader()\n    for row in csv.DictReader(f):\n"
               "        if int(row['amount']) > 3:\n            writer.writerow({'item': row['item']})\n```")
    fixed = failing.replace("csv.DictWriter(out)", "csv.DictWriter(out, fieldnames=['item'])")
    result, told = run_scripted(tmp_path, env, [failing, fixed, "Wrote big.csv."], "Write big.csv: items over 3.")
    assert result.returncode == 0, result.stderr
    assert "writer = csv.DictWriter(out, fieldnames=['item'])" in told[1]
    assert (tmp_path / "big.csv").read_text().split() == ["item", "b"]


LOG = ("2024-05-01 09:58:02 INFO service started\n2024-05-01 10:02:13 ERROR db timeout\n"
       "2024-05-01 10:15:40 WARNING slow query 2.3s\n")


def test_a_block_that_is_the_named_file_written_out_is_told_to_read_the_file(tmp_path: Path) -> None:
    (tmp_path / "server.log").write_text(LOG)
    (tmp_path / "greet.py").write_text("def greet(name)\n    return 'Hello, ' + name\n")
    error = ("Cell In[1], line 1\n    INFO: 2024-05-01 09:58:02 INFO service started\n               ^\n"
             "SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix")
    relabelled = "INFO: 2024-05-01 09:58:02 INFO service started\nERROR: 2024-05-01 10:02:13 ERROR db timeout"
    hint = data_as_code(error, relabelled, [("server.log", "text")], lambda: tmp_path, TEXT)
    assert hint is not None and hint.startswith("That block is not Python: its lines are server.log's lines")
    assert "with open('server.log') as f:\n    server_lines = f.read().splitlines()" in hint
    assert data_as_code(error, LOG.splitlines()[0], [("server.log", "text")], lambda: tmp_path, TEXT) is not None
    code = "for line in open('server.log'):\n    if 'ERROR' in line\n        print(line)"  # code, a colon missing
    assert data_as_code("SyntaxError: expected ':'", code, [("server.log", "text")], lambda: tmp_path, TEXT) is None
    half = "level = 'INFO'\ncount = 0\nprint(level count)\n# 2024-05-01 09:58:02 INFO service started"
    assert data_as_code("SyntaxError: invalid syntax", half, [("server.log", "text")], lambda: tmp_path, TEXT) is None
    assert data_as_code("NameError: name 'INFO' is not defined", relabelled, [("server.log", "text")],
                        lambda: tmp_path, TEXT) is None  # it parsed: not this
    script = "def greet(name)\n    return 'Hello, ' + name"
    assert data_as_code("SyntaxError: expected ':'", script, [("greet.py", "python")], lambda: tmp_path, TEXT) is None
    assert data_as_code(error, relabelled, [("gone.log", "text")], lambda: tmp_path, TEXT) is None
    (tmp_path / "settings.json").write_text('{\n  "database": {\n    "host": "db.local",\n    "port": 5432\n  }\n}\n')
    pasted = 'start: {"database": {"host": "db.local", "port": 5432}}'
    hint = data_as_code("SyntaxError: invalid syntax", pasted, [("settings.json", "json")], lambda: tmp_path, TEXT)
    assert hint is not None and "import json\nsettings = json.load(open('settings.json'))" in hint  # JSON: loaded


def test_the_real_kernel_error_of_a_file_written_out_as_code_gets_the_hint(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    (tmp_path / "server.log").write_text(LOG)
    written = ("```python\nINFO: 2024-05-01 09:58:02 INFO service started\n"
               "ERROR: 2024-05-01 10:02:13 ERROR db timeout\n```")
    fixed = ("```python\nwith open('server.log') as f:\n    server_lines = f.read().splitlines()\n"
             "print(sum('ERROR' in line for line in server_lines))\n```")
    result, told = run_scripted(tmp_path, env, [written, fixed, "1 ERROR line."],
                                "How many ERROR lines has server.log? Print the count.")
    assert result.returncode == 0, result.stderr
    assert "SyntaxError" in told[1] and "That block is not Python: its lines are server.log's lines" in told[1]
    assert "1" in told[2]
