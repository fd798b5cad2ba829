"""The on_error rules (interp/rules/errors/), each on good inputs (it fires, with its finding's variant and text) and
bad ones (it does not), without a kernel: the facts come in as values and callables. The real kernel's share is in
test_rules_errors_kernel.py."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

import pytest

from interp.common.events import ExecutionDone
from interp.common.extract import code_blocks
from interp.prompts import Prompts
from interp.rules import Engine, Facts, Finding, Fired, Rule, Scope
from interp.rules.errors import RULES
from interp.rules.errors.parts import MAX_CHARS, described, expressions, failing_line, parts
from interp.rules.errors.undefined import MAX_NAMES, defined_names
from interp.rules.registry import by_id
from interp.turn.feedback import Feedback

PROMPTS = Prompts.load()
BY_ID = by_id()
FOLDER = {"sales.csv": "a,b\n", "notes.txt": "x", ".hidden": "x", "data/": ""}


@dataclass(frozen=True)
class Case:
    """A failed execution as one rule sees it. `disk`: the files of the working directory (a name ending in / is a
    folder); `cwd`: the working directory, under the test's folder; `{folder}` in the error is the test's folder."""

    rule: str
    error: str
    code: str = ""
    variant: str | None = None  # the finding's variant; None: the rule does not fire
    says: tuple[str, ...] = ()  # what its text holds
    exact: str = ""  # its whole text
    files: tuple[tuple[str, str], ...] = ()
    names: tuple[str, ...] = ()
    disk: Mapping[str, str | bytes] = field(default_factory=lambda: FOLDER)
    cwd: str = ""
    installed: tuple[str, ...] = ()
    language: str = "python"
    output: str = ""

    def facts(self, folder: Path) -> Facts:
        for name, text in self.disk.items():
            if name.endswith("/"):
                (folder / name).mkdir()
            elif isinstance(text, bytes):
                (folder / name).write_bytes(text)
            else:
                (folder / name).write_text(text)
        return Facts(code=self.code, language=self.language, output=self.output,
                     error=self.error.replace("{folder}", str(folder)), files=self.files,
                     defined=lambda: sorted(self.names), where=lambda: folder / self.cwd,
                     importable=lambda module: module in self.installed)


def fire(rule: str, facts: Facts) -> Fired | None:
    """What one rule says on these facts, through the engine and the shipped templates."""
    found = Engine([BY_ID[rule]], PROMPTS.rules).run("on_error", facts)
    return found[0] if found else None


NOT_FOUND = "Traceback (most recent call last):\n...\nFileNotFoundError: [Errno 2] No such file or directory: '{}'"
FILES_HERE = ("There is no sale.csv. Did you mean sales.csv? Files in the working directory: data/, notes.txt, "
              "sales.csv.")
FLOAT = "Traceback (most recent call last):\n...\nValueError: could not convert string to float: '{}'"
CELL_FLOAT = ("Traceback (most recent call last):\nCell In[1], line 6\n      5     reader = csv.DictReader(file)\n"
              "----> 6     total = sum(float(row['amount']) for row in reader)\n\n"
              "Cell In[1], line 6, in <genexpr>(.0)\n----> 6 import csv\n\n"
              "ValueError: could not convert string to float: '$1,200.00'")
SLICE = ("Cell In[1], line 9\n----> 9         hour = int(re.search(r'\\d{2}:\\d{2}', line).group(0)[11:13])\n\n"
         "ValueError: invalid literal for int() with base 10: ''")
MISSING_KEY = ("Traceback (most recent call last):\nCell In[1], line 9\n      8 for customer in orders:\n----> 9     "
               "total[customer['customer']['name']] += sum(i['price'] * i['qty'] for i in customer['items'])\n\n"
               "KeyError: 'Ann'")
LOAD = ("Cell In[1], line 2\n      1 import json\n----> 2 grades = json.load('grades.json')\n\nFile ~/json/"
        "__init__.py:293, in load(fp, cls)\n--> 293     return loads(fp.read(),\n"
        "AttributeError: 'str' object has no attribute 'read'")
REGEX = ("Cell In[1], line 10\n---> 10 first = re.match(time_format, first_line).group()\n\n"
         "AttributeError: 'NoneType' object has no attribute 'group'")
REGEX_CODE = "time_format = '%Y-%m-%d %H:%M:%S'\nfirst = re.match(time_format, first_line).group()"
LITERAL_REGEX = ("---> 3 t = re.search('%H:%M', line).group(0)\n"
                 "AttributeError: 'NoneType' object has no attribute 'group'")
WRITER = ("Cell In[1], line 6\n----> 6         writer = csv.DictWriter(f)\n\n"
          "TypeError: DictWriter.__init__() missing 1 required positional argument: 'fieldnames'")
WRITER_CODE = ("import csv\nwith open('expenses.csv') as f:\n    reader = csv.DictReader(f)\n"
               "    with open('clean.csv', 'w') as out:\n        writer = csv.DictWriter(out)\n"
               "        writer.writeheader()\n        for row in reader:\n"
               "            writer.writerow({'vendor': row['vendor'], 'amount': row['amount']})")
CLOSED = ("Cell In[2], line 1\n----> 1 sales = list(sales)\n\nFile ~/csv.py:97, in DictReader.fieldnames(self)\n"
          "---> 97         self._fieldnames = next(self.reader)\nValueError: I/O operation on closed file.")
CLOSED_LOOP = "Cell In[3], line 6\n----> 6     for row in reader:\n\nValueError: I/O operation on closed file."
CLOSED_TEXT = "----> 3 print(f.read())\n\nValueError: I/O operation on closed file."
GREP = "The command failed with exit status 1."
PD = "----> 5 df = pd.read_csv(path)\nNameError: name 'pd' is not defined"
NOT_UTF8 = ("Cell In[1], line 2\n----> 2 df = pd.read_csv('caf\u00e9s.csv')\n...\nUnicodeDecodeError: 'utf-8' codec "
            "can't decode byte 0xe9 in position 9: invalid continuation byte")
WINDOWS = "name,city\nLa Fl\u00e8che \u2013 caf\u00e9,S\u00e3o Paulo\n".encode("cp1252")  # cp1252 has the dash
LATIN = ("name,note\n" + "A,\u00e9t\u00e9\n" * 30 + "B,\x81\n").encode("latin-1")  # 0x81: no cp1252 character

FIRES = [
    *(Case("missing_file", error, variant="near_here", exact=FILES_HERE) for error in (
        NOT_FOUND.format("sale.csv"), "ls: cannot access 'sale.csv': No such file or directory",
        "cat: sale.csv: No such file or directory")),
    Case("missing_file", NOT_FOUND.format("data/2023.csv"), variant="near_there",
         says=("Files in {folder}/data: 2024.csv.",), disk={**FOLDER, "data/2024.csv": ""}),
    Case("missing_file", NOT_FOUND.format("nope/deeper/x.csv"), variant="far_here", says=("sales.csv",)),
    Case("missing_file", NOT_FOUND.format("veracruz_2016.csv"), variant="near_here",
         disk={"veracruz 2016.csv": "", "notes.txt": ""},
         exact="There is no veracruz_2016.csv. Did you mean 'veracruz 2016.csv'? Files in the working directory: "
               "'veracruz 2016.csv', notes.txt."),
    Case("not_utf8", NOT_UTF8, "import pandas as pd\ndf = pd.read_csv('caf\u00e9s.csv')", variant="",
         disk={"caf\u00e9s.csv": WINDOWS},
         exact="caf\u00e9s.csv is not UTF-8: its text reads as cp1252. Read it with encoding='cp1252' "
               "(`open('caf\u00e9s.csv', encoding='cp1252')`, or pandas' `pd.read_csv('caf\u00e9s.csv', "
               "encoding='cp1252')`), not with errors ignored, which changes its text."),
    Case("not_utf8", NOT_UTF8, "rows = open('data/x.csv').read()", variant="", disk={"data/": "", "data/x.csv": LATIN},
         says=("data/x.csv is not UTF-8: its text reads as latin-1.", "open('data/x.csv', encoding='latin-1')")),
    Case("not_utf8", NOT_UTF8, "python3 count.py", variant="", language="shell", files=(("caf\u00e9s.csv", "csv"),),
         disk={"caf\u00e9s.csv": WINDOWS}, says=("caf\u00e9s.csv is not UTF-8: its text reads as cp1252.",)),
    Case("not_utf8", NOT_UTF8, "p = \"it's.csv\"\nopen(p).read()", variant="", disk={"it's.csv": WINDOWS},
         says=("open(\"it's.csv\", encoding='cp1252')",)),
    Case("missing_file", NOT_FOUND.format("x.csv"), variant="empty_here", disk={},
         exact="There is no x.csv: the working directory is empty."),
    Case("missing_name", "NameError: name 'totl' is not defined", variant="near", names=("total", "df"),
         exact="Nothing named totl is defined. Did you mean total? Names defined in the session: df, total."),
    Case("missing_name", "NameError: name 'df' is not defined", variant="none",
         exact="Nothing named df is defined: the session has no variables yet, so define it first."),
    Case("missing_name", "NameError: name 'zzz' is not defined", variant="far",
         names=tuple(f"v{i:03}" for i in range(MAX_NAMES + 5)), says=("and 5 more.",)),
    Case("unimported_module", "NameError: name 'json' is not defined", variant="cell",
         exact="json is a standard module that the code never imported: put `import json` at its top."),
    Case("unimported_module", "Traceback (most recent call last):\nFile {folder}/report.py:2\n----> 2 "
         "print(json.dumps(x))\n\nNameError: name 'json' is not defined", variant="file",
         says=("json is a standard module that report.py never imports.", "open('report.py', 'w')",
               "%run report.py")),
    Case("unimported_module", "File {folder}/report.py:2\nNameError: name 'json' is not defined", variant="file",
         cwd="other", says=("open('{folder}/report.py', 'w')",)),  # outside the working directory: its whole path
    Case("unimported_module", "Cell In[3], line 10\n---> 10         hour = datetime.strptime(stamp, '%H:%M:%S').hour"
         "\n\nNameError: name 'datetime' is not defined", variant="cell",
         exact="datetime is a standard module that the code never imported: put `from datetime import datetime` "
               "at its top."),
    Case("unimported_module", "----> 1 print(datetime.date(2024, 1, 1))\nNameError: name 'datetime' is not defined",
         variant="cell", says=("put `import datetime` at",)),
    Case("module_alias", PD, variant="installed", installed=("pandas",), files=(("weather.csv", "csv"),),
         exact="pd is the usual short name of pandas, which the code never imported: put `import pandas as pd` at "
               "its top."),
    Case("module_alias", PD, variant="missing", files=(("weather.csv", "csv"),),
         exact="pd is the usual short name of pandas, which is not installed here: the code cannot use pd. Do without "
               "it, reading the data with the standard library, for example:\n```python\nimport csv\nrows = "
               "list(csv.DictReader(open('weather.csv')))\n```"),
    Case("module_alias", "----> 1 print(len(pl.read_csv('weather.csv')))\nNameError: name 'pl' is not defined",
         variant="missing_frame", files=(("weather.csv", "frame"),), installed=("pandas",),
         exact="pl is the usual short name of polars, which is not installed here: the code cannot use pl. Do without "
               "it, reading the data with pandas, for example:\n```python\nimport pandas as pd\ndf = "
               "pd.read_csv('weather.csv')\n```"),
    Case("module_alias", PD, variant="missing_alone", says=("the code cannot use pd. Do without it.",)),
    Case("module_alias", "----> 3 plt.plot(x)\nNameError: name 'plt' is not defined", variant="installed",
         installed=("matplotlib",), says=("`import matplotlib.pyplot as plt`",)),
    Case("file_as_name", "Cell In[1], line 1\n----> 1 print(len([o for o in orders.json if o['city'] == 'Oslo']))\n\n"
         "NameError: name 'orders' is not defined", variant="", disk={**FOLDER, "orders.json": "[]"},
         exact="orders.json is a file in the working directory, not a Python name: read it from disk first, for "
               "example:\n```python\nimport json\norders = json.load(open('orders.json'))\n```"),
    Case("file_as_name", "----> 1 total = sum(sales.csv['amount'])\nNameError: name 'sales' is not defined",
         variant="", says=("sales = list(csv.DictReader(open('sales.csv')))",)),
    Case("file_as_name", "----> 1 total = sum(sales.csv['amount'])\nNameError: name 'sales' is not defined",
         variant="", installed=("pandas",), says=("import pandas as pd\nsales = pd.read_csv('sales.csv')",)),
    Case("file_as_name", "----> 1 print(notes.txt)\nNameError: name 'notes' is not defined", variant="",
         says=("notes = open('notes.txt').read()",)),
    *(Case("unreadable_number", FLOAT.format(value), variant=variant, says=says) for value, variant, says in [
        ("$1,200.00", "chars_thousands", ("float() cannot read '$1,200.00': it holds '$' and ',' besides the digits. "
                                          "Here ',' separates thousands. Clean each value before converting it, every "
                                          "character at once, for example float(value.replace('$', '').replace(',', "
                                          "'').strip()).",)),
        ("2,49", "chars_decimal", ("float() cannot read '2,49': it holds ',' besides the digits. Here ',' is the "
                                   "decimal point. Clean each value before converting it, every character at once, "
                                   "for example float(value.replace(',', '.').strip()).",)),
        ("$1.200.00", "chars", ("it holds '$' besides the digits. Clean each value before converting it, every "
                                "character at once, for example float(value.replace('$', '').strip()).",)),
        ("2024-05-01 12", "date", ("it is a piece of a date or a time, not a number. Read the whole timestamp with "
                                   "datetime", "datetime.strptime(stamp, '%Y-%m-%d %H:%M:%S')")),
        ("10:02", "when", ("it is a time of day, not a number. Read it with datetime (from datetime import datetime), "
                           "for example datetime.strptime(value.strip(), '%H:%M')",)),
        ("2024-05-01", "when", ("datetime.strptime(value.strip(), '%Y-%m-%d')",)),
        ("7 kg/m", "parts", ("float() cannot read '7 kg/m': it holds 'k' and 'g' and '/' and 'm' between its digits, "
                             "so it is not one number. Split it into the numbers it holds",)),
        ("1/5/5/1", "parts", ("it holds '/' between its digits, so it is not one number",)),
        ("€1.200", "chars", ("it holds '€' besides the digits. Clean each value before converting it, every "
                             "character at once, for example float(value.replace('€', '').strip()).",)),
        ("amount", "none", ("'amount' is not a number at all: a header line or a label was read as a value.",)),
        ("Bob", "none", ("'Bob' is not a number at all: a header line or a label was read as a value.",)),
        ("", "empty", ("The value is empty: a blank line or a missing field",)),
        ("1h 20m", "parts", ("it holds 'h' and 'm' between its digits",)),
        ("h", "none", ("'h' is not a number at all",)),
    ]),
    Case("unreadable_number", CELL_FLOAT, variant="chars_thousands",
         says=("float(row['amount'].replace('$', '').replace(',', '').strip()).",)),
    Case("unreadable_number", "Cell In[1], line 10\n      9         for row in reader:\n---> 10             "
         "writer.writerow([row['v'], float(row['amount'])])\n\nValueError: could not convert string to float: '$5'",
         variant="chars", says=("float(row['amount'].replace('$', '').strip()).",)),  # an arrow at line 10
    Case("unreadable_number", "----> 3 x = float(a) + float(b)\nValueError: could not convert string to float: '$5'",
         variant="chars", says=("float(value.replace('$', '').strip()).",)),  # which one? neither
    Case("unreadable_number", "ValueError: invalid literal for int() with base 10: '3.5'", variant="whole",
         exact="int() reads whole numbers only, and '3.5' is not one: use float() for it."),
    Case("unreadable_number", "ValueError: invalid literal for int() with base 10: '1,024'", variant="chars_thousands",
         says=("int() cannot read '1,024': it holds ','", "for example int(value.replace(',', '').strip()).")),
    Case("unreadable_number", "Cell In[1], line 9\n----> 9         hour = int(re.search(r'\\d{2}:\\d{2}:\\d{2}', "
         "line).group())\n\nValueError: invalid literal for int() with base 10: '10:02:13'", variant="when",
         says=("it is a time of day",
               "datetime.strptime(re.search('\\\\d{2}:\\\\d{2}:\\\\d{2}', line).group().strip(), '%H:%M:%S')")),
    Case("unreadable_number", SLICE, variant="slice_whole",
         exact="The value is empty: it was cut with [11:13] from re.search('\\\\d{2}:\\\\d{2}', line).group(0), and a "
               "slice that starts at or past the end of its string gives ''. Its positions count from the start of "
               "the string it cuts, not from the start of the line. If they are positions in line, cut line itself: "
               "line[11:13]."),
    Case("unreadable_number", SLICE.replace("re.search(r'\\d{2}:\\d{2}', line).group(0)[11:13]", "parts[1][11:13]"),
         variant="slice", says=("parts[1]", "not from the start of the line.")),  # sliced as it is
    Case("unreadable_number", SLICE.replace("line).group(0)", "line + rest).group(0)"), variant="slice",
         says=("not from the start of the line.",)),  # taken from two variables: which one is not known
    Case("unreadable_number", SLICE.replace(".group(0)[11:13]", ".group(1)"), variant="empty",
         exact="The value is empty: a blank line or a missing field was read as a value. Skip the rows whose value "
               "is empty."),
    Case("one_pass", "Traceback (most recent call last):\nCell In[1], line 7\n      6     total = "
         "sum(float(r['amount']) for r in reader)\n----> 7     average = total / len(reader)\n\n"
         "TypeError: object of type 'DictReader' has no len()", variant="rows",
         says=("rows = list(reader)", "len(rows)")),
    Case("one_pass", "----> 3 plt.plot(data['date'])\n\nTypeError: 'DictReader' object is not subscriptable",
         variant="rows", says=("rows = list(data)", "[row['column'] for row in rows]")),
    Case("one_pass", "----> 2 print(len(squares))\nTypeError: object of type 'generator' has no len()", variant="items",
         says=("A generator gives", "items = list(squares)")),
    Case("missing_key", MISSING_KEY, variant="add",
         exact="total[customer['customer']['name']] += ... reads the value total already holds for the key before "
               "adding to it, and total holds nothing for 'Ann' yet. Give a key its start the first time: "
               "total[customer['customer']['name']] = total.get(customer['customer']['name'], 0) + ..., or make total "
               "a collections.defaultdict(int) before the loop."),
    Case("missing_key", "----> 4     by_city[o['city']].append(o)\n\nKeyError: 'Oslo'", variant="append",
         says=("by_city.setdefault(o['city'], []).append(...)",)),
    Case("load_of_name", LOAD, variant="quoted",
         exact="json.load() reads an open file, and it was given 'grades.json', a str: the file's name. Open the file "
               "and give it that: with open('grades.json') as f: grades = json.load(f)."),
    Case("load_of_name", LOAD.replace("grades = json.load('grades.json')", "print(json.load(path))"), variant="held",
         says=("If path is a file's name", "data = json.load(f)", "json.loads(path) reads it")),
    Case("string_expected", "----> 8 matches = re.findall(pattern, lines)\n\nFile ~/.pyenv/versions/3.11.7/lib/"
         "python3.11/re/__init__.py:216, in findall(pattern, string, flags)\n--> 216     return _compile(pattern, "
         "flags).findall(string)\n\nTypeError: expected string or bytes-like object, got 'list'", variant="",
         says=("re.findall, re.search and re.match read one string, and lines is a",
               "for line in lines: re.findall(pattern, line)", "'\\n'.join(lines)")),
    Case("strptime_regex", REGEX, REGEX_CODE, variant="",
         exact="'%Y-%m-%d %H:%M:%S' is a format for datetime.strptime, not a regular expression: re reads %Y as the "
               "characters % and Y, so it matches nothing here. Read a timestamp with datetime.strptime(text, "
               "'%Y-%m-%d %H:%M:%S') (give it only the timestamp's part of the line), or find one with a pattern such "
               "as r'\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}'."),
    Case("strptime_regex", LITERAL_REGEX, variant="", says=("re reads %H as the characters % and H",)),
    Case("misplaced_attribute", "----> 7 d = start + datetime.timedelta(days=1)\nAttributeError: type object "
         "'datetime.datetime' has no attribute 'timedelta'", "from datetime import datetime\nstart = datetime(2024, 3, "
         "1)", variant="on_class_imported",
         exact="datetime in this code is the class datetime.datetime (as `from datetime import datetime` names it), "
               "not the module datetime: timedelta is in the module. Put `from datetime import timedelta` at the top "
               "and write `timedelta(...)`."),
    Case("misplaced_attribute", "AttributeError: type object 'datetime.datetime' has no attribute 'timedelta'",
         variant="on_class", says=("(as the code uses it)",)),
    Case("misplaced_attribute", "AttributeError: module 'datetime' has no attribute 'strptime'", "import datetime",
         variant="on_module_alike",
         exact="strptime is not in the module datetime: it belongs to the class datetime.datetime. Write `from "
               "datetime import datetime` at the top, then `datetime.strptime(...)`, or `datetime.datetime.strptime"
               "(...)` with `import datetime` as it is."),
    Case("misplaced_attribute", "AttributeError: module 'datetime' has no attribute 'today'", variant="on_module_alike",
         says=("class datetime.datetime",)),  # the class named like its module, of the two that have it
    Case("misplaced_attribute", "AttributeError: module 'decimal' has no attribute 'from_float'",
         variant="on_module", says=("then `Decimal.from_float(...)`.",)),
    Case("writer_columns", WRITER, WRITER_CODE, variant="known",
         exact="csv.DictWriter() needs the names of the columns it writes, in their order: writer = "
               "csv.DictWriter(out, fieldnames=['vendor', 'amount']). Each dict given to writer.writerow() has those "
               "keys."),
    Case("writer_columns", WRITER, WRITER_CODE.replace("{'vendor': row['vendor'], 'amount': row['amount']}", "row"),
         variant="known", says=("fieldnames=reader.fieldnames)",)),  # the rows copied whole: the reader's
    Case("writer_columns", WRITER, "import csv\nw = csv.DictWriter(open('x.csv', 'w'))\nw.writerow(data)",
         variant="unknown", says=("w = csv.DictWriter(open('x.csv', 'w'), fieldnames=['column', ...])",)),
    Case("closed_file", CLOSED, "sales = list(sales)", variant="rows", files=(("sales.csv", "csv"),),
         exact="sales reads from a file that is closed: a with open(...) as f: block closes f where the block ends, in "
               "an earlier code too, and nothing can be read from it after that. Open the file again and take its "
               "rows once, as a list: with open('sales.csv') as f: sales = list(csv.DictReader(f)); then use sales, "
               "after the block too (a list can be read again and again)."),
    Case("closed_file", CLOSED_LOOP, "with open('north.csv', 'w') as f:\n    w = csv.writer(f)\n    for row in "
         "reader:\n        w.writerow(row)", variant="rows", files=(("sales.csv", "csv"),),
         says=("with open('sales.csv') as f: reader = list(csv.DictReader(f))",)),  # not north.csv, written
    Case("closed_file", CLOSED_TEXT, "with open('a.txt') as f:\n    pass\nprint(f.read())", variant="lines",
         says=("with open('a.txt') as f: lines = f.read().splitlines()",)),
    Case("closed_file", CLOSED_TEXT, "print(f.read())", variant="lines",
         says=("with open(path) as f:",)),  # no file known by name
    *(Case("grep_none", GREP, code, variant="", language="shell",
           says=("grep ends with exit status 1 when no line matches",)) for code in ("ls src/ | grep TODO",
                                                                                    "grep -c TODO a.txt")),
]

SILENT = [
    Case("not_utf8", NOT_UTF8, "df = pd.read_csv('caf\u00e9s.csv')", disk={"caf\u00e9s.csv": "a\n\u00e9\n"}),  # UTF-8
    Case("not_utf8", NOT_UTF8, "df = pd.read_csv('caf\u00e9s.csv')", disk={"caf\u00e9s.csv": b"PK\x03\x04\0\0"}),
    Case("not_utf8", NOT_UTF8, "df = pd.read_csv('other.csv')", disk={"caf\u00e9s.csv": WINDOWS}),  # not named
    Case("not_utf8", NOT_UTF8.replace("'utf-8'", "'ascii'"), "df = pd.read_csv('caf\u00e9s.csv')",
         disk={"caf\u00e9s.csv": WINDOWS}),
    Case("not_utf8", "ValueError: x", "df = pd.read_csv('caf\u00e9s.csv')", disk={"caf\u00e9s.csv": WINDOWS}),
    Case("missing_file", "ValueError: could not convert string to float: 'x'"),
    Case("missing_file", "PermissionError: [Errno 13] Permission denied: 'sales.csv'"),
    Case("missing_name", "TypeError: unsupported operand"),
    Case("unimported_module", "NameError: name 'df' is not defined"),
    Case("unimported_module", "TypeError: unsupported operand"),
    Case("module_alias", "NameError: name 'rows' is not defined", installed=("pandas",)),
    Case("file_as_name", "----> 1 print(report.json)\nNameError: name 'report' is not defined"),  # no such file
    Case("file_as_name", "----> 1 print(orders)\nNameError: name 'orders' is not defined",
         disk={**FOLDER, "orders.json": "[]"}),
    Case("unreadable_number", "ValueError: math domain error"),
    Case("unreadable_number", "TypeError: could not convert string to float: 'x'"),
    Case("one_pass", "TypeError: 'int' object is not subscriptable"),  # not a reader: no list helps
    Case("one_pass", "TypeError: object of type 'NoneType' has no len()"),
    Case("one_pass", "ValueError: object of type 'generator' has no len()"),
    Case("missing_key", "----> 4     print(totals['Ann'])\n\nKeyError: 'Ann'"),  # a read, not an add
    Case("missing_key", "----> 4     total['Ann'] += 1\n\nTypeError: x"),
    Case("missing_key", "----> 4     count += 1\n\nKeyError: 'Ann'"),
    Case("missing_key", "----> 4     seen[k].add(x)\n\nKeyError: 'a'"),  # a set's add: no list to start
    Case("load_of_name", LOAD.replace("'read'", "'readline'")),
    Case("load_of_name", LOAD.replace("json.load(", "parse(")),
    Case("string_expected", "TypeError: expected string or bytes-like object, got 'int'"),
    Case("string_expected", "TypeError: can only concatenate str (not \"list\") to str"),
    Case("strptime_regex", LITERAL_REGEX.replace("%H:%M", "\\d+:\\d+")),  # a real pattern
    Case("strptime_regex", REGEX, "time_format = get()"),  # the pattern is not known
    Case("strptime_regex", "AttributeError: 'int' object has no attribute 'group'", REGEX_CODE),
    *(Case("misplaced_attribute", error) for error in (
        "AttributeError: type object 'datetime.datetime' has no attribute 'nope'",  # nowhere
        "AttributeError: module 'collections' has no attribute 'most_common'",  # a Counter's, not the class's
        "AttributeError: module 'numpy' has no attribute 'timedelta'",  # not a standard module
        "AttributeError: 'str' object has no attribute 'timedelta'",
        "AttributeError: module 'this' has no attribute 'x'")),
    Case("writer_columns", "TypeError: f() missing 1 required positional argument: 'fieldnames'", WRITER_CODE),
    Case("writer_columns", WRITER.replace("'fieldnames'", "'f'"), WRITER_CODE),
    Case("closed_file", "----> 1 x = 1\nValueError: I/O operation on closed file.", "x = 1"),
    Case("closed_file", "----> 1 rows = list(r)\nValueError: math domain error"),
    Case("grep_none", GREP, "ls src/ | grep TODO", language="shell", output="x\n"),  # it printed something
    Case("grep_none", GREP, "ls nope", language="shell"),
    Case("grep_none", GREP, "egrep x", language="shell"),
    Case("grep_none", "The command failed with exit status 2.", "grep x a", language="shell"),
    Case("grep_none", GREP, "ls src/ | grep TODO", language="python"),  # a shell command's status only
    Case("writer_columns", WRITER, "csv.DictWriter(out)", language="shell"),  # its code is read as Python
]


@pytest.mark.parametrize("case", FIRES, ids=[f"{case.rule}-{i}" for i, case in enumerate(FIRES)])
def test_a_rule_fires_on_its_mistake_with_its_finding(case: Case, tmp_path: Path) -> None:
    found = fire(case.rule, case.facts(tmp_path))
    assert found is not None and found.finding.variant == case.variant, found
    template = PROMPTS.rules[f"{case.rule}.{case.variant}" if case.variant else case.rule]
    placeholders = {m["named"] or m["braced"] for m in template.pattern.finditer(template.template)} - {None}
    assert placeholders <= set(found.finding.values)  # every placeholder filled
    if case.exact:
        assert found.text == case.exact.replace("{folder}", str(tmp_path))
    for fragment in case.says:
        assert fragment.replace("{folder}", str(tmp_path)) in found.text


@pytest.mark.parametrize("case", SILENT, ids=[f"{case.rule}-{i}" for i, case in enumerate(SILENT)])
def test_a_rule_stays_silent_on_other_errors(case: Case, tmp_path: Path) -> None:
    assert fire(case.rule, case.facts(tmp_path)) is None


def test_the_code_to_copy_for_a_script_is_one_block_that_mends_the_file(tmp_path: Path) -> None:
    error = (f"Traceback (most recent call last):\nFile {tmp_path / 'report.py'}:2\n----> 2 print(json.dumps(x))\n\n"
             "NameError: name 'json' is not defined")
    found = fire("unimported_module", Facts(error=error, where=lambda: tmp_path))
    assert found is not None
    [block] = code_blocks(found.text)
    assert "open('report.py', 'w')" in block.code and "%run report.py" in block.code


def test_the_kernel_is_not_asked_for_other_errors() -> None:
    def asked(*args: object) -> list[str]:
        raise AssertionError("asked the kernel")
    facts = Facts(error="TypeError: unsupported operand", defined=asked, where=asked, evaluate=asked, importable=asked)
    assert Engine(RULES, PROMPTS.rules).run("on_error", facts) == []


def test_the_names_offered_are_those_clean_code_bound_at_its_top_level() -> None:
    code = "import os.path, json as j\nfrom csv import *\nx, (y, _z) = 1, (2, 3)\nwith open('a') as f:\n    w = 1\n" \
           "def g():\n    inner = 1\nclass C:\n    pass\nfor i in []:\n    pass"
    assert defined_names(code) == {"os", "j", "x", "y", "f", "g", "C", "i"}
    assert defined_names("x = (") == set()


TOP_LEVEL = """Traceback (most recent call last):
Cell In[1], line 6
      4 for line in lines:
      5     if 'ERROR' in line:
----> 6         hour = int(line[11:13])
      7 print(hour)

ValueError: invalid literal for int() with base 10: ''"""
IN_FUNCTION = """Traceback (most recent call last):
Cell In[2], line 4
----> 4 average(values)

Cell In[2], line 2, in average(xs)
----> 2     return sum(xs) / len(xs)

ZeroDivisionError: division by zero"""
IN_LIBRARY = """Traceback (most recent call last):
Cell In[3], line 2
----> 2 when = datetime.strptime(stamp, '%Y-%m-%d')

File /usr/lib/python3.11/_strptime.py:568, in _strptime_datetime(cls, data_string, format)
--> 568 tt, fraction, gmtoff_fraction = _strptime(data_string, format)

ValueError: unconverted data remains:  10:02"""


def test_the_line_is_the_top_level_of_a_cell_and_never_a_function_body_or_a_file() -> None:
    assert failing_line(TOP_LEVEL) == "        hour = int(line[11:13])"
    assert failing_line(IN_LIBRARY) == "when = datetime.strptime(stamp, '%Y-%m-%d')"
    assert failing_line(IN_FUNCTION) is None  # xs is the function's: the session's xs, if any, is another
    assert failing_line("Traceback (most recent call last):\nFile /tmp/report.py:2\n----> 2 x = y\nNameError") is None
    assert failing_line("  File \"<string>\", line 1\nSyntaxError: invalid syntax") is None


def test_the_parts_are_the_values_on_the_line_innermost_first() -> None:
    assert parts("        hour = int(re.search(r'\\d{2}', line).group(0)[11:13])") == [
        "re", "line", "re.search(r'\\d{2}', line)", "re.search(r'\\d{2}', line).group(0)",
        "re.search(r'\\d{2}', line).group(0)[11:13]", "int(re.search(r'\\d{2}', line).group(0)[11:13])"]
    assert parts("total += float(row['amount'])") == ["row", "row['amount']", "float(row['amount'])", "total"]
    assert parts("elif a[i] > b:") == ["a", "i", "a[i]", "b"]  # a block's header is read with an empty body
    assert parts("for key in data['items'].keys():") == ["data", "data['items']", "data['items'].keys()"]
    assert parts("x = (") == [] and parts("print('done')") == []


def test_nothing_that_could_change_anything_or_run_long_is_evaluated() -> None:
    assert parts("x = stack.pop() + int(s)") == ["stack", "s", "int(s)"]  # stack.pop() would change stack
    assert parts("n = len(open(path).read())") == ["path"]
    assert parts("y = 'a' * n + str(m ** k)") == ["n", "m", "k"]  # 'a' * 10**9 would fill the memory
    assert parts("total = sum(float(r['x']) for r in rows)") == ["rows"]  # r is the generator's, not the session's
    assert parts("f = sorted(d, key=lambda k: d[k])") == ["d"]
    assert parts("print(next(it))") == ["it"]


def test_each_part_is_described_on_a_line_of_bounded_length() -> None:
    assert described({"line": "'10:02'", "gone": "x"}, ["line", "line[11:13]"]) == "line = '10:02'"
    assert described({"w": "<_csv.writer object at 0x7f82>", "n": "3"}, ["w", "n"]) == "n = 3"  # a default repr
    long = described({"s": "'" + "a" * 500 + "'"}, ["s"])
    assert len(long) == MAX_CHARS and long.endswith(" ...")


def test_the_kernel_expression_leaves_out_functions_and_modules_and_bounds_containers() -> None:
    [expression] = expressions(["v"]).values()
    assert eval(expression, {"v": ""}) == "''"
    assert eval(expression, {"v": 2.5}) == "2.5"
    assert eval(expression, {"v": {"a": "1"}}) == "dict of 1 items: {'a': '1'}"
    assert len(eval(expression, {"v": list(range(100_000))})) < 100
    for unwanted in (len, Path, __import__("re")):
        with pytest.raises(ZeroDivisionError):
            eval(expression, {"v": unwanted})


def test_indexing_a_defaultdict_is_not_evaluated_for_it_would_add_the_key() -> None:
    from collections import defaultdict

    guarded = expressions(["counts[word]", "plain[word]", "word"])
    counts: defaultdict[str, int] = defaultdict(int)
    scope = {"counts": counts, "plain": {"cat": 2}, "word": "cat"}
    with pytest.raises(ZeroDivisionError):
        eval(guarded["counts[word]"], scope)
    assert dict(counts) == {}  # the guard ran before the index: no key added
    assert eval(guarded["plain[word]"], scope) == "2" and eval(guarded["word"], scope) == "'cat'"


def kernel_of(scope: dict[str, object]) -> Callable[[dict[str, str]], dict[str, str]]:
    """A stand-in for Kernel.evaluate: each expression evaluated in `scope`, a string as its own text and anything
    else as its repr; none of those that raise."""
    def evaluate(asked: dict[str, str]) -> dict[str, str]:
        found = {}
        for key, expression in asked.items():
            try:
                value = eval(expression, dict(scope))
            except Exception:
                continue
            found[key] = value if isinstance(value, str) else repr(value)
        return found
    return evaluate


def test_the_failing_line_s_parts_are_said_from_the_kernel_s_values() -> None:
    evaluate = kernel_of({"line": "2024-05-01 10:02"})
    found = fire("line_parts", Facts(error=TOP_LEVEL, evaluate=evaluate))
    assert found is not None and found.text == ("When it failed, the parts of the failing line held:\n```text\n"
                                                "line = '2024-05-01 10:02'\nline[11:13] = '10'\n"
                                                "int(line[11:13]) = 10\n```")
    assert fire("line_parts", Facts(error=IN_FUNCTION, evaluate=evaluate)) is None
    assert fire("line_parts", Facts(error=TOP_LEVEL, evaluate=kernel_of({}))) is None  # nothing the kernel holds
    assert fire("line_parts", Facts(error=TOP_LEVEL, language="shell", evaluate=evaluate)) is None


ATTRIBUTE = ("Cell In[4], line 1\n----> 1 print(df.colums)\n\n"
             "AttributeError: 'DataFrame' object has no attribute 'colums'")


@pytest.mark.parametrize(("closest", "has", "variant", "text"), [
    ("('pandas', ['columns'])", "['pandas']", "closest", "`df` has no `colums`; its closest names: `columns`."),
    ("('pandas', [])", "[]", "alone", "`df` has no `colums`."),
    ("('pandas', [])", "['numpy', 'pandas']", "elsewhere", "`df` has no `colums`; `colums` is in `numpy`."),
    ("('pandas', ['columns', 'column'])", "['scipy']", "closest_and_elsewhere",
     "`df` has no `colums`; its closest names: `columns`, `column`; `colums` is in `scipy`."),
])
def test_an_attribute_a_library_lacks_is_said_in_the_kernel_s_words(closest: str, has: str, variant: str,
                                                                     text: str) -> None:
    found = fire("library_attribute", Facts(error=ATTRIBUTE, evaluate=lambda asked: {"closest": closest, "has": has}))
    assert found is not None and (found.finding.variant, found.text) == (variant, text)
    builtin = Facts(error=ATTRIBUTE, evaluate=lambda asked: {"closest": "('builtins', ['count'])", "has": "[]"})
    assert fire("library_attribute", builtin) is None  # the session's own or Python's object: not a library's


KEY_IN_PANDAS = ("Cell In[2], line 1\n----> 1 s = df['WINDSPEED']\n\nFile ~/site-packages/pandas/core/frame.py:4113, "
                 "in DataFrame.__getitem__(self, key)\nKeyError: {key!r}")


@pytest.mark.parametrize(("key", "columns", "variant", "text"), [
    ("WINDSPEED", "['DATE TIME', ' WINDSPEED', ' DIR']", "key_spaced", "WINDSPEED is not a column of `df`: its column "
     "is ' WINDSPEED', with spaces around the name. Strip the names once after reading the file, `df.columns = "
     "df.columns.str.strip()`, then use 'WINDSPEED'."),
    ("WINDSPEED ", "['DATE TIME', 'WINDSPEED  ']", "key_spaced", "WINDSPEED  is not a column of `df`: its column is "
     "'WINDSPEED  ', with spaces around the name. Strip the names once after reading the file, `df.columns = "
     "df.columns.str.strip()`, then use 'WINDSPEED'."),
    # the key has the spaces, not the column: the column as it is written
    (" DIR", "['DATE TIME', 'DIR']", "key_written", "`df` has no column ' DIR'; its columns write the name otherwise. "
     "Rename them once after reading the file, `df = df.rename(columns={'DIR': ' DIR'})`, and keep the names the code "
     "uses; or write 'DIR' where the code writes ' DIR'. Its columns: 'DIR', 'DATE TIME'."),
    ("Pop", "['country', 'year', 'pop']", "key_written", "`df` has no column 'Pop'; its columns write the name "
     "otherwise. Rename them once after reading the file, `df = df.rename(columns={'pop': 'Pop'})`, and keep the names "
     "the code uses; or write 'pop' where the code writes 'Pop'. Its columns: 'pop', 'country', 'year'."),
    (["wind_speed", "air_pressure"], "['time', 'wind speed', 'air pressure']", "key_written", "`df` has no column "
     "'wind_speed' or 'air_pressure'; its columns write the name otherwise. Rename them once after reading the file, "
     "`df = df.rename(columns={'wind speed': 'wind_speed', 'air pressure': 'air_pressure'})`, and keep the names the "
     "code uses; or write 'wind speed' where the code writes 'wind_speed' and 'air pressure' where the code writes "
     "'air_pressure'. Its columns: 'wind speed', 'time', 'air pressure'."),
    ("None of [Index(['Pop'], dtype='object')] are in the [columns]", "['pop', 'year']", "key_written", "`df` has no "
     "column 'Pop'; its columns write the name otherwise. Rename them once after reading the file, `df = "
     "df.rename(columns={'pop': 'Pop'})`, and keep the names the code uses; or write 'pop' where the code writes "
     "'Pop'. Its columns: 'pop', 'year'."),
    # a key of the line that pandas did not reach (it raises for the first) is read too
    ("Pop", "['pop', 'WindSpeed']", "key_written", "`df` has no column 'Pop' or 'WINDSPEED'; its columns write the "
     "name otherwise. Rename them once after reading the file, `df = df.rename(columns={'pop': 'Pop', 'WindSpeed': "
     "'WINDSPEED'})`, and keep the names the code uses; or write 'pop' where the code writes 'Pop' and 'WindSpeed' "
     "where the code writes 'WINDSPEED'. Its columns: 'pop', 'WindSpeed'."),
    # one column holds the key's name: a likely one, said as a guess, with the columns
    (["home_runs"], "['salary', 'number_of_runs', 'number_of_home_runs']", "key_within", "['home_runs'] is not a "
     "column of `df`; its column 'number_of_home_runs' holds that name. If that is the column meant, write "
     "'number_of_home_runs' where the code writes 'home_runs'. Its columns, the closest first: 'number_of_home_runs', "
     "'number_of_runs', 'salary'."),
    ("None of [Index(['home', 'x'], dtype='object')] are in the [columns]", "['year', 'home_runs']", "key_within",
     "['home', 'x'] is not a column of `df`; its column 'home_runs' holds that name. If that is the column meant, "
     "write 'home_runs' where the code writes 'home'. Its columns, the closest first: 'home_runs', 'year'."),
    # several columns hold it, or none does: the columns, the closest first
    ("weight", "['Length', 'Height', 'Whole weight', 'Shell weight']", "key", "weight is not a column of `df`. Its "
     "columns, the closest first: 'Whole weight', 'Shell weight', 'Height', 'Length'. Use one of these names exactly "
     "as written."),
    ("TMIN_F", "['station', 'datetime', 'TMAX_F']", "key", "TMIN_F is not a column of `df`. Its columns, the closest "
     "first: 'TMAX_F', 'station', 'datetime'. Use one of these names exactly as written."),
    ("wind", "['DATE TIME', 'WINDSPEEDS']", "key_within", "wind is not a column of `df`; its column 'WINDSPEEDS' "
     "holds that name. If that is the column meant, write 'WINDSPEEDS' where the code writes 'wind'. Its columns, the "
     "closest first: 'WINDSPEEDS', 'DATE TIME'."),
])
def test_a_missing_column_is_told_with_the_frame_s_columns(key: str, columns: str, variant: str, text: str) -> None:
    found = fire("library_frame", Facts(error=KEY_IN_PANDAS.format(key=key), evaluate=lambda asked: {"df": columns}))
    assert found is not None and (found.finding.variant, found.text) == (variant, text)


SKLEARN_NAN = ("Cell In[3], line 1\n----> 1 model.fit(X, y)\n\nFile ~/site-packages/sklearn/utils/validation.py:1, in "
               "f()\nValueError: Input X contains NaN.\nLinearRegression does not accept missing values encoded as NaN "
               "natively.")
LABELS = ("Cell In[3], line 1\n----> 1 model.fit(X, y)\n\nFile ~/site-packages/sklearn/utils/multiclass.py:1, in f()\n"
          "ValueError: Unknown label type: continuous.")
TEXT_SUMMED = ("Cell In[3], line 1\n----> 1 X.mean()\n\nFile ~/site-packages/pandas/core/nanops.py:1, in f()\n"
               "TypeError: Could not convert string 'southwestsoutheast' to numeric")
DATE_FORMAT = ("Cell In[3], line 1\n----> 1 X['d'] = pd.to_datetime(X['y'].astype(str) + X['m'], format='%Y%b')\n\n"
               "File ~/site-packages/pandas/core/tools/datetimes.py:1, in f()\n"
               "ValueError: time data \"2006.0Mar\" doesn't match format \"%Y%b\", at position 0.")
LENGTH = ("Cell In[3], line 1\n----> 1 X.columns = ['a', 'b']\n\nFile ~/site-packages/pandas/core/internals/base.py:1, "
          "in f()\nValueError: Length mismatch: Expected axis has 1 elements, new values have 2 elements")


@pytest.mark.parametrize(("error", "frames", "variant", "advice"), [
    (SKLEARN_NAN, "X: 4 rows; columns and dtypes: a (float64, 1 missing)", "dtypes_missing", "`df = df.dropna(subset"),
    (SKLEARN_NAN, "X: 4 rows; columns and dtypes: a (float64, 1 missing), b (object)", "dtypes_missing", "dropna"),
    (LABELS, "X: 4 rows; columns and dtypes: a (float64)", "dtypes_alone", ""),  # nothing to advise: the data alone
    (LABELS, "X: 4 rows; columns and dtypes: a (float64, 1 missing)", "dtypes_alone", ""),  # not about the NaN
    (LABELS, "X: 4 rows; columns and dtypes: a (object)", "dtypes_alone", ""),  # text, but not what failed
    (TEXT_SUMMED, "X: 4 rows; columns and dtypes: a (object)", "dtypes", "holds text"),
    (DATE_FORMAT, "X: 4 rows; columns and dtypes: y (int64), m (object)", "dtypes_alone", ""),
    (LENGTH, "X: 4 rows; columns and dtypes: a (object)", "dtypes_alone", ""),
])
def test_the_advice_with_a_frame_s_dtypes_follows_the_error_and_the_dtypes(error: str, frames: str, variant: str,
                                                                           advice: str) -> None:
    found = fire("library_frame", Facts(error=error, evaluate=lambda asked: {"X": frames}))
    assert found is not None and found.finding.variant == variant
    assert found.text.startswith(f"The data the line uses, as the kernel holds it:\n{frames}")
    assert advice in found.text and (advice or found.text.endswith(frames))


def test_the_dtypes_of_a_frame_come_without_numeric_only_when_no_method_takes_it() -> None:
    error = ("Cell In[5], line 1\n----> 1 x = df + 1\n\nFile ~/site-packages/pandas/core/ops.py:1, in f()\n"
             "TypeError: can only concatenate str (not \"int\") to str")
    found = fire("library_frame", Facts(error=error, evaluate=lambda asked: {"df": "df: 2 rows; columns and dtypes: "
                                                                                   "Name (object)"}))
    assert found is not None and found.finding.variant == "dtypes"
    assert found.text.startswith("The data the line uses, as the kernel holds it:\ndf: 2 rows; columns and dtypes: "
                                 "Name (object)\nA column of dtype object holds text")
    assert found.text.endswith("or convert the column first.")


def feedback(without: tuple[str, ...] = (), first: tuple[Rule, ...] = ()) -> Feedback:
    """A session's feedback with all its on_error rules but those left out (after the rules `first`, whose templates
    say their id), and a kernel that holds `row`."""
    templates = {**PROMPTS.rules, **{rule.id: Template(f"{rule.id} fired.") for rule in first}}
    return Feedback(PROMPTS, False, Engine([*first, *RULES], templates, without),
                    evaluate=kernel_of({"line": "2024-05-01 10:02:13", "row": {"amount": "1h 20m"}}))


UNIT_ERROR = ExecutionDone("python", "total = float(row['amount'])", "error", "", "Cell In[1], line 2\n----> 2 total = "
                           "float(row['amount'])\n\nValueError: could not convert string to float: '1h 20m'", 0.0)


def test_an_error_gets_the_first_rule_that_fires_then_the_failing_line_s_parts() -> None:
    said = feedback().execution(UNIT_ERROR)
    number = said.index("it holds 'h' and 'm' between its digits")
    held = said.index("When it failed, the parts of the failing line")
    assert number < held and "row['amount'] = '1h 20m'" in said and "header line" not in said
    without = feedback(without=("unreadable_number",)).execution(UNIT_ERROR)
    assert "between its digits" not in without and "row['amount'] = '1h 20m'" in without


def _any_error(facts: Facts) -> Finding | None:
    """Fires on every error."""
    return Finding() if facts.error else None


def test_the_first_rule_that_fires_is_the_one_said() -> None:
    guess = Rule("guess", "on_error", _any_error, Scope(languages=()))
    said = feedback(first=(guess,)).execution(UNIT_ERROR)
    assert "guess fired." in said and "between its digits" not in said


def test_a_shell_command_gets_grep_s_meaning_and_no_failing_line() -> None:
    said = feedback().execution(ExecutionDone("shell", "ls | grep TODO", "error", "", GREP, 0.0))
    assert said.count("grep ends with exit status 1") == 1 and "parts of the failing line" not in said
