"""The on_error rules with a real kernel: the library rules read the kernel that ran the failing code, and in real
sessions (a scripted model, a real kernel) the model is told each rule's help, which the journal records as a
`rule_fired`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from conftest import error_of, records, run_interp, run_scripted, write_script

from interp.common.extract import code_blocks
from interp.prompts import Prompts
from interp.rules import Engine, Facts, Fired
from interp.rules.registry import by_id
from interp.runtime.kernel import Kernel

PROMPTS = Prompts.load()
REPORT_PY = 'data = {"apples": 3, "pears": 5}\nprint(json.dumps({"total": sum(data.values())}))\n'


def fire(rule: str, facts: Facts) -> Fired | None:
    found = Engine([by_id()[rule]], PROMPTS.rules).run("on_error", facts)
    return found[0] if found else None


def said_about(rule: str, error: str, kernel: Kernel) -> str | None:
    """What a rule says about an error of code the kernel ran."""
    found = fire(rule, Facts(error=error, evaluate=kernel.evaluate))
    return found.text if found else None


@pytest.fixture(scope="module")
def frame(kernel: Kernel, tmp_path_factory: pytest.TempPathFactory) -> Kernel:
    """The kernel, holding a pandas frame `df` read from t.csv and a scikit-learn model."""
    pytest.importorskip("pandas")
    folder = tmp_path_factory.mktemp("data")
    (folder / "t.csv").write_text("Name,Country,Fare,Age\nA,Switzerland,7.25,22\nB,France,71.28,38\n")
    error_of(kernel, f"import pandas as pd\ndf = pd.read_csv({str(folder / 't.csv')!r})\nfrom sklearn.linear_model "
                     "import LinearRegression\nmodel = LinearRegression()\n1 / 0")
    return kernel


def test_an_unknown_keyword_gets_the_installed_signature_and_the_closest_parameter(frame: Kernel) -> None:
    error = error_of(frame, "pd.read_csv('t.csv', sepp=';')")
    said = said_about("library_call", error, frame)
    assert said is not None and "The installed version of `pd.read_csv` takes:" in said
    assert "read_csv(filepath_or_buffer" in said and "The closest parameter to `sepp` is `sep`." in said


def test_a_missing_argument_gets_the_signature(frame: Kernel) -> None:
    error = error_of(frame, "from sklearn.metrics import mean_squared_error\nmean_squared_error([1, 2])")
    said = said_about("library_call", error, frame)
    assert said is not None and "mean_squared_error(y_true, y_pred" in said


def test_an_attribute_a_library_object_lacks_gets_its_closest_names(frame: Kernel) -> None:
    error = error_of(frame, "print(df.colums)")
    said = said_about("library_attribute", error, frame)
    assert said is not None and "`df` has no `colums`" in said and "`columns`" in said
    error = error_of(frame, "import numpy as np\nnp.float_one")
    said = said_about("library_attribute", error, frame)
    assert said is not None and "`np` has no `float_one`" in said


def test_a_missing_column_gets_the_frame_s_columns_closest_first(frame: Kernel) -> None:
    error = error_of(frame, "print(df['Fair'].mean())")
    said = said_about("library_frame", error, frame)
    assert said is not None and said.startswith("Fair is not a column of `df`. Its columns, the closest first: "
                                                "'Fare'")


def test_a_column_named_with_spaces_around_it_gets_how_to_strip_the_names(kernel: Kernel, tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    (tmp_path / "w.csv").write_text("DATE TIME, WINDSPEED, DIR\n01/01/2015 00:00,2.72,288\n")
    read = f"import pandas as pd\nw = pd.read_csv({str(tmp_path / 'w.csv')!r})\n"
    error = error_of(kernel, read + "print(w['WINDSPEED'])")
    said = said_about("library_frame", error, kernel)
    assert said is not None and "its column is ' WINDSPEED'" in said
    error_of(kernel, f"{said.split('`')[3]}\nprint(w['WINDSPEED'].iloc[0])\n1 / 0")  # the advice, as the model runs it
    assert kernel.evaluate({"v": "float(w['WINDSPEED'].iloc[0])"})["v"] == "2.72"


def test_a_numeric_operation_on_text_gets_the_dtypes_and_numeric_only(frame: Kernel) -> None:
    error = error_of(frame, "print(df.corr())")
    said = said_about("library_frame", error, frame)
    assert said is not None
    assert "df: 2 rows; columns and dtypes: Name (object), Country (object), Fare (float64)" in said
    assert "`df.corr` takes `numeric_only=True`" in said
    assert "header" not in said


@pytest.mark.parametrize("selection", ["w['Wind_Speed']", "w[['Wind_Speed']]", "w[['Wind_Speed', 'time']]",
                                       "w.dropna(subset=['Wind_Speed'])"])
def test_a_column_written_otherwise_is_named_as_the_frame_writes_it(kernel: Kernel, tmp_path: Path,
                                                                      selection: str) -> None:
    pytest.importorskip("pandas")
    (tmp_path / "s.csv").write_text("time,wind speed\n1,2.5\n")
    read = f"import pandas as pd\nw = pd.read_csv({str(tmp_path / 's.csv')!r})\n"
    said = said_about("library_frame", error_of(kernel, read + f"print({selection})"), kernel)
    assert said is not None and said.startswith(
        "`w` has no column 'Wind_Speed'; its columns write the name otherwise. Rename them once after reading the "
        "file, `w = w.rename(columns={'wind speed': 'Wind_Speed'})`, and keep the names the code uses; or write "
        "'wind speed' where the code writes 'Wind_Speed'.")
    advised = selection.replace("Wind_Speed", "wind speed")  # either advice, as the model runs it: it reads the column
    assert error_of(kernel, f"print({advised})\n1 / 0").rstrip().endswith("ZeroDivisionError: division by zero")
    renamed = f"{said.split('`')[3]}\nprint({selection})\n1 / 0"
    assert error_of(kernel, read + renamed).rstrip().endswith("ZeroDivisionError: division by zero")


def test_a_call_that_takes_no_missing_values_gets_their_count_and_how_to_drop_them(kernel: Kernel,
                                                                                    tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    (tmp_path / "m.csv").write_text("x,y\n1,2\n2,\n3,6\n4,8\n")
    read = (f"import pandas as pd\nfrom sklearn.linear_model import LinearRegression\n"
            f"m = pd.read_csv({str(tmp_path / 'm.csv')!r})\n")
    said = said_about("library_frame", error_of(kernel, read + "LinearRegression().fit(m[['x']], m['y'])"), kernel)
    assert said is not None and "m: 4 rows; columns and dtypes: x (int64), y (float64, 1 missing)" in said
    assert "`df = df.dropna(subset=[...])`" in said and "object" not in said
    error_of(kernel, "m = m.dropna(subset=['x', 'y'])\nfit = LinearRegression().fit(m[['x']], m['y'])\n1 / 0")
    assert kernel.evaluate({"slope": "round(float(fit.coef_[0]), 2)"})["slope"] == "2.0"


@pytest.mark.parametrize("code", [
    "x = {'a': 1}\nprint(x['b'])",  # a KeyError of a dict, not raised inside a library
    "def f(a):\n    return a\nf(1, 2)",  # the user's own function
    "class C:\n    pass\nC().missing",  # the user's own class
    "int('x')",  # a ValueError outside any library
    "pd.read_csv('t.csv').missing_attr",  # the object comes from a call: nothing plain to ask about
])
def test_errors_that_are_not_about_a_library_get_nothing(frame: Kernel, code: str) -> None:
    error = error_of(frame, code)
    for rule in ("library_call", "library_attribute", "library_frame"):
        assert said_about(rule, error, frame) is None, rule


def test_an_error_inside_a_function_is_not_read_from_the_session_s_names(frame: Kernel) -> None:
    error = error_of(frame, "def g():\n    return df['fare']\ng()")
    assert said_about("library_frame", error, frame) is None


@pytest.mark.parametrize(("code", "says"), [
    ("df = pd.read_csv('t.csv', sepp=',')", "The closest parameter to `sepp` is `sep`."),
    ("print(df.colums)", "its closest names: `columns`"),
    ("print(df['fare'].mean())", "`df` has no column 'fare'; its columns write the name otherwise. Rename them "
                                 "once after reading the file, `df = df.rename(columns={'Fare': 'fare'})`"),
    ("print(df.corr())", "`df.corr` takes `numeric_only=True`"),
])
def test_the_model_is_told_what_the_kernel_knows(tmp_path: Path, env: dict[str, str], code: str, says: str) -> None:
    pytest.importorskip("pandas")
    (tmp_path / "t.csv").write_text("Name,Country,Fare\nA,Switzerland,7.25\nB,France,71.28\n")
    setup = "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
    result, inputs = run_scripted(tmp_path, env, [f"```python\n{setup}{code}\n```", "I cannot."], "Go.")
    assert says in inputs[1], result.stdout
    assert "csv.DictReader" not in inputs[1] and "header line" not in inputs[1]


def test_in_a_real_session_the_model_is_shown_what_the_failing_line_held(tmp_path: Path, env: dict[str, str]) -> None:
    failing = ("```python\nstack = [1, 2]\nfor line in ['2024-05-01 10:02:33 ERROR x']:\n"
               "    hour = stack.pop() + int(line[30:32])\n```")
    script = write_script(tmp_path, [failing, "```python\nprint(stack)\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "the hour"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    calls = records(journal, "model_call")
    shown = calls[1]["input_tail"]["content"]
    assert "When it failed, the parts of the failing line held:" in shown
    assert "line = '2024-05-01 10:02:33 ERROR x'" in shown
    assert "line[30:32] = ''" in shown and "stack = list of 1 items: [1]" in shown and "stack.pop() =" not in shown
    assert "[1]" in calls[2]["input_tail"]["content"]  # the probe popped nothing: the code's own pop() did


def test_in_the_real_kernel_the_code_to_copy_mends_the_script(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "report.py").write_text(REPORT_PY)
    found = fire("unimported_module", Facts(error=f"File {tmp_path / 'report.py'}:2\nNameError: name 'json' is not "
                                                 "defined", where=lambda: tmp_path))
    assert found is not None
    hint = found.text
    script = write_script(tmp_path, ["```python\n%run report.py\n```", hint[hint.index("```"):], "Fixed."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal),
                         "report.py crashes. Fix it and run it."], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = [r["content"] for r in records(journal, "user") if r.get("kind") == "feedback"]
    assert "json is a standard module that report.py never imports." in told[0]  # the kernel's traceback read
    assert (tmp_path / "report.py").read_text() == "import json\n" + REPORT_PY
    assert '{"total": 8}' in told[1]


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


def test_grep_that_matched_nothing_is_told_so(tmp_path: Path, env: dict[str, str]) -> None:
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


def test_the_real_kernel_tells_a_short_name_of_a_module_that_is_not_installed(tmp_path: Path,
                                                                             env: dict[str, str]) -> None:
    (tmp_path / "weather.csv").write_text("date,temperature\n2024-06-01,18.5\n")
    failing = "```python\nprint(len(pl.read_csv('weather.csv')))\n```"
    fixed = "```python\nimport csv\nrows = list(csv.DictReader(open('weather.csv')))\nprint(len(rows))\n```"
    result, told = run_scripted(tmp_path, env, [failing, fixed, "One row."], "How many rows has weather.csv?")
    assert result.returncode == 0, result.stderr
    # weather.csv was shown in pandas' terms (frames.py): pandas reads it.
    said = ("which the code never imported" if importlib.util.find_spec("polars") else
            "which is not installed here: the code cannot use pl. Do without it, reading the data with pandas, for "
            "example:\n```python\nimport pandas as pd\ndf = pd.read_csv('weather.csv')")
    assert f"pl is the usual short name of polars, {said}" in told[1]


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


def test_a_failed_run_s_help_is_journaled_as_the_rules_that_fired(tmp_path: Path, env: dict[str, str]) -> None:
    failing = ("```python\norders = [('Ann', 3), ('Bob', 2)]\ntotal = {}\nfor name, amount in orders:\n"
               "    total[name] += amount\n```")
    fixed = failing.replace("total[name] += amount", "total[name] = total.get(name, 0) + amount")
    result, told_model = run_scripted(tmp_path, env, [failing, fixed, "Ann 3, Bob 2."], "each one's total")
    assert result.returncode == 0, result.stderr
    fired = records(tmp_path / "j.jsonl", "rule_fired")
    assert [(r["rule"], r["phase"], r["variant"]) for r in fired] == [("missing_key", "on_error", "add"),
                                                                      ("line_parts", "on_error", "")]
    assert fired[0]["finding"] == {"name": "total", "key": "name", "value": "'Ann'"}
    assert "total[name] += ... reads the value total already holds" in told_model[1]
    assert "name = 'Ann'" in fired[1]["finding"]["values"] and "name = 'Ann'" in told_model[1]


def test_a_file_read_as_utf8_that_is_not_gets_its_encoding_from_the_real_error(tmp_path: Path,
                                                                               env: dict[str, str]) -> None:
    pytest.importorskip("pandas")
    (tmp_path / "shops.csv").write_bytes("shop,city\nCaf\u00e9 \u2013 Nord,Li\u00e8ge\nB\u00e4r,K\u00f6ln\n"
                                         .encode("cp1252"))
    failing = "```python\nimport pandas as pd\nshops = pd.read_csv('shops.csv')\nprint(len(shops))\n```"
    fixed = failing.replace("'shops.csv'", "'shops.csv', encoding='cp1252'")
    result, told = run_scripted(tmp_path, env, [failing, fixed, "2 shops."], "How many shops are in the shops file?")
    assert result.returncode == 0, result.stderr
    assert "UnicodeDecodeError: 'utf-8' codec can't decode" in told[1]
    assert ("shops.csv is not UTF-8: its text reads as cp1252. Read it with encoding='cp1252' (`open('shops.csv', "
            "encoding='cp1252')`, or pandas' `pd.read_csv('shops.csv', encoding='cp1252')`)") in told[1]
    assert [r["rule"] for r in records(tmp_path / "j.jsonl", "rule_fired")][0] == "not_utf8"
    assert "2" in told[2]
