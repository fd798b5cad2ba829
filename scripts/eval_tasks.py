"""The tasks of scripts/eval.py: short, concrete requests of the kinds people give a code interpreter.

A task has a name, a kind, files to create in its scratch folder before it starts, the user's turns, and a check over
what its executed code printed (the outputs of all its executions, joined) or wrote to the folder. Checks look for the
answer, not for a format: numbers are compared as numbers, text without regard to case unless case is the point.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

Check = Callable[[str, Path], bool]


@dataclass(frozen=True)
class Task:
    name: str
    kind: str
    turns: tuple[str, ...]
    check: Check
    setup: Mapping[str, str] = field(default_factory=dict)

    def passes(self, output: str, folder: Path) -> bool:
        """The check, with files the code left unreadable or malformed counted as a failure."""
        try:
            return self.check(output, folder)
        except (OSError, ValueError, csv.Error):
            return False


# --- checks -------------------------------------------------------------------------------------------------------

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def numbers(text: str) -> list[float]:
    """Every number in the text, with thousands separators (5,050) read as part of the number."""
    return [float(n) for n in _NUMBER.findall(_THOUSANDS.sub("", text))]


def prints_number(value: float, tol: float = 1e-9) -> Check:
    return lambda out, _folder: any(abs(n - value) <= tol for n in numbers(out))


def prints_numbers(*values: float) -> Check:
    return lambda out, _folder: set(values) <= set(numbers(out))


def prints(*needles: str, case: bool = False) -> Check:
    def check(out: str, _folder: Path) -> bool:
        text = out if case else out.lower()
        return all((n if case else n.lower()) in text for n in needles)

    return check


def prints_none_of(*needles: str) -> Check:
    return lambda out, _folder: not any(n.lower() in out.lower() for n in needles)


def prints_in_order(*needles: str) -> Check:
    def check(out: str, _folder: Path) -> bool:
        positions = [out.lower().find(n.lower()) for n in needles]
        return -1 not in positions and positions == sorted(positions)

    return check


def prints_word(word: str) -> Check:
    """The word on its own, not inside another word (a single letter, say)."""
    pattern = re.compile(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])")
    return lambda out, _folder: bool(pattern.search(out))


def read_text(folder: Path, name: str) -> str | None:
    path = folder / name
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None


def file_contains(name: str, *needles: str) -> Check:
    def check(_out: str, folder: Path) -> bool:
        text = read_text(folder, name)
        return text is not None and all(n.lower() in text.lower() for n in needles)

    return check


def file_lines(name: str, expected: list[str]) -> Check:
    def check(_out: str, folder: Path) -> bool:
        text = read_text(folder, name)
        return text is not None and [line.strip() for line in text.strip().splitlines()] == expected

    return check


def json_file(name: str, test: Callable[[object], bool]) -> Check:
    def check(_out: str, folder: Path) -> bool:
        text = read_text(folder, name)
        try:
            return text is not None and test(json.loads(text))
        except (json.JSONDecodeError, KeyError, TypeError, IndexError):
            return False

    return check


def csv_rows(name: str) -> Callable[[Path], list[dict[str, str]] | None]:
    def rows(folder: Path) -> list[dict[str, str]] | None:
        text = read_text(folder, name)
        if text is None:
            return None
        reader = csv.DictReader(io.StringIO(text))
        return [{k.strip().lower(): (v or "").strip() for k, v in row.items() if k} for row in reader]

    return rows


def png(name: str) -> Check:
    def check(_out: str, folder: Path) -> bool:
        path = folder / name
        return path.is_file() and path.read_bytes()[:8] == PNG_MAGIC

    return check


def is_dir(name: str) -> Check:
    return lambda _out, folder: (folder / name).is_dir()


def all_of(*checks: Check) -> Check:
    return lambda out, folder: all(c(out, folder) for c in checks)


def any_of(*checks: Check) -> Check:
    return lambda out, folder: any(c(out, folder) for c in checks)


def prints_folder(out: str, folder: Path) -> bool:
    return str(folder) in out or str(folder.resolve()) in out


def prints_this_year(out: str, _folder: Path) -> bool:
    return str(datetime.date.today().year) in out


# --- setup files --------------------------------------------------------------------------------------------------

NOTES = "buy milk\ncall Anna\nfix the bike\n\nwrite report\npay rent\nwater plants\n"
POEM = (
    "The fog comes\non little cat feet.\nIt sits looking\nover harbor and city\n"
    "on silent haunches\nand then moves on.\n"
)
LINES = "short\na much longer line than the others here\nmedium length line\ntiny\n"
STORY = (
    "The cat sat by the door. A dog barked at the cat.\n"
    "Later the bird flew away, and the cat went to sleep.\n"
)
SALES = (
    "date,product,region,amount\n"
    "2024-01-03,widget,North,120\n"
    "2024-01-04,gadget,South,90\n"
    "2024-01-05,widget,East,45\n"
    "2024-01-06,gizmo,North,210\n"
    "2024-01-07,gadget,West,65\n"
    "2024-01-08,doohickey,North,99\n"
)
CONFIG = json.dumps({"name": "demo", "version": "1.4.2", "debug": False, "ports": [8080, 8081]}, indent=2) + "\n"
USERS = json.dumps([
    {"name": "Ann", "age": 34},
    {"name": "Bob", "age": 27},
    {"name": "Cleo", "age": 41},
    {"name": "Dan", "age": 30},
    {"name": "Eve", "age": 19},
], indent=2) + "\n"
APP_LOG = "INFO start\nERROR disk full\nINFO retry\nERROR disk full\nWARNING slow\nERROR timeout\nINFO stop\n"
DATA = "3\n1\n4\n1\n5\n"

_sales = list(csv.DictReader(io.StringIO(SALES)))
_amounts = [float(r["amount"]) for r in _sales]
_north = [r for r in _sales if r["region"] == "North"]
_config = json.loads(CONFIG)


def _north_csv(folder: Path) -> bool:
    rows = csv_rows("north.csv")(folder)
    return rows is not None and sorted(r.get("date", "") for r in rows) == sorted(r["date"] for r in _north)


def _people_csv(folder: Path) -> bool:
    rows = csv_rows("people.csv")(folder)
    return rows is not None and [(r.get("name"), r.get("age")) for r in rows] == [("Ann", "31"), ("Bob", "27")]


def _config_debug(data: object) -> bool:
    if not isinstance(data, dict):
        return False
    return data["debug"] is True and all(data[k] == _config[k] for k in _config if k != "debug")


# --- the suite ----------------------------------------------------------------------------------------------------

TASKS: list[Task] = [
    # arithmetic
    Task("sum_1_100", "arith", ("Print the sum of the integers from 1 to 100.",), prints_number(5050)),
    Task("factorial_10", "arith", ("Print 10 factorial.",), prints_number(3628800)),
    Task("power_2_20", "arith", ("Print 2 to the power of 20.",), prints_number(2**20)),
    Task("primes_below_50", "arith", ("Print the prime numbers below 50.",),
         all_of(prints_numbers(2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47),
                lambda out, _f: not {9.0, 21.0, 25.0, 27.0, 49.0} & set(numbers(out)))),
    Task("fibonacci_20", "arith", ("Print the 20th Fibonacci number, where the 1st and 2nd are both 1.",),
         prints_number(6765)),
    Task("average", "arith", ("Print the average of 3, 7, 8, 12 and 20.",), prints_number(10)),
    Task("sqrt_2", "arith", ("Print the square root of 2 rounded to 4 decimal places.",),
         prints_number(2**0.5, tol=5e-5)),
    Task("gcd", "arith", ("Print the greatest common divisor of 84 and 120.",), prints_number(12)),
    Task("divisible_by_7", "arith", ("How many integers from 1 to 1000 are divisible by 7? Print the count.",),
         prints_number(142)),
    Task("fahrenheit", "arith", ("Convert 100 degrees Fahrenheit to Celsius and print it rounded to 2 decimals.",),
         prints_number((100 - 32) * 5 / 9, tol=0.006)),
    Task("compound_interest", "arith",
         ("Print the balance of 1000 dollars at 5% interest compounded yearly after 10 years, rounded to 2 "
          "decimals.",), prints_number(1000 * 1.05**10, tol=0.006)),
    # strings
    Task("reverse", "string", ("Print the string 'interpreter' reversed.",), prints("reterpretni")),
    Task("vowels", "string",
         ("Count the vowels in 'The quick brown fox jumps over the lazy dog' and print the count.",),
         prints_number(11)),
    Task("upper", "string", ("Print 'hello world' in upper case.",), prints("HELLO WORLD", case=True)),
    Task("palindrome", "string", ("Check if 'racecar' is a palindrome and print True or False.",),
         all_of(prints("True", case=True), prints_none_of("False"))),
    Task("word_count", "string", ("Print the number of words in 'the cat sat on the mat with the hat'.",),
         prints_number(9)),
    Task("most_common_letter", "string", ("Print the most common letter in 'abracadabra'.",), prints_word("a")),
    Task("title_case", "string", ("Print 'the lord of the rings' in title case.",),  # str.title() or English style
         any_of(prints("The Lord Of The Rings", case=True), prints("The Lord of the Rings", case=True))),
    Task("sort_words", "string", ("Sort the words 'pear apple fig banana' alphabetically and print them.",),
         prints_in_order("apple", "banana", "fig", "pear")),
    Task("replace", "string", ("Replace every 'cat' with 'dog' in 'the cat saw another cat' and print the result.",),
         prints("the dog saw another dog")),
    # files
    Task("write_file", "file", ("Write the text 'hello from interp' to a file named hello.txt.",),
         file_contains("hello.txt", "hello from interp")),
    Task("count_lines", "file", ("Count the lines in notes.txt and print the number.",),
         prints_number(NOTES.count("\n")), setup={"notes.txt": NOTES}),
    Task("count_words", "file", ("Print the number of words in poem.txt.",),
         prints_number(len(POEM.split())), setup={"poem.txt": POEM}),
    Task("longest_line", "file", ("Print the longest line of lines.txt.",),
         prints("a much longer line than the others here"), setup={"lines.txt": LINES}),
    Task("append_line", "file", ("Append the line 'done' to log.txt.",),
         file_lines("log.txt", ["started", "working", "done"]), setup={"log.txt": "started\nworking\n"}),
    Task("write_numbers", "file", ("Write the numbers 1 to 10 to numbers.txt, one per line.",),
         file_lines("numbers.txt", [str(i) for i in range(1, 11)])),
    Task("count_word", "file", ("How many times does the word 'cat' appear in story.txt? Print the count.",),
         prints_number(STORY.count("cat")), setup={"story.txt": STORY}),
    # CSV
    Task("csv_rows", "csv", ("How many data rows are in sales.csv, not counting the header? Print the number.",),
         prints_number(len(_sales)), setup={"sales.csv": SALES}),
    Task("csv_sum", "csv", ("Print the total of the amount column in sales.csv.",),
         prints_number(sum(_amounts), tol=0.006), setup={"sales.csv": SALES}),
    Task("csv_average", "csv", ("Print the average of the amount column in sales.csv.",),
         prints_number(sum(_amounts) / len(_amounts), tol=0.006), setup={"sales.csv": SALES}),
    Task("csv_max", "csv", ("Which product in sales.csv has the highest amount? Print its name.",),
         prints("gizmo"), setup={"sales.csv": SALES}),
    Task("csv_filter", "csv", ("Write the rows of sales.csv whose region is North to north.csv, with the header.",),
         lambda _out, folder: _north_csv(folder), setup={"sales.csv": SALES}),
    Task("csv_write", "csv",
         ("Write a CSV file people.csv with columns name and age and two rows: Ann 31 and Bob 27.",),
         lambda _out, folder: _people_csv(folder)),
    # JSON
    Task("json_field", "json", ("Print the version field of config.json.",), prints("1.4.2"),
         setup={"config.json": CONFIG}),
    Task("json_keys", "json", ("Print the keys of config.json.",), prints(*_config), setup={"config.json": CONFIG}),
    Task("json_count", "json", ("Print the number of users in users.json.",), prints_number(5),
         setup={"users.json": USERS}),
    Task("json_filter", "json", ("Print the names of the users in users.json who are older than 30.",),
         all_of(prints("Ann", "Cleo", case=True), prints_none_of("Bob", "Dan", "Eve")), setup={"users.json": USERS}),
    Task("json_write", "json", ("Save the dictionary {'a': 1, 'b': 2} as JSON to data.json.",),
         json_file("data.json", lambda data: data == {"a": 1, "b": 2})),
    Task("json_modify", "json", ("In config.json, set debug to true and save the file.",),
         json_file("config.json", _config_debug), setup={"config.json": CONFIG}),
    # several turns: a later turn uses what an earlier one defined
    Task("multi_var", "multi", ("Set x to 12.", "Print x times 3."), prints_number(36)),
    Task("multi_func", "multi", ("Define a function square(n) that returns n * n.", "Print square(13)."),
         prints_number(169)),
    Task("multi_list", "multi", ("Make a list called nums with the numbers 4, 8, 15, 16, 23, 42.",
                                 "Print the sum of nums."), prints_number(108)),
    Task("multi_dict", "multi", ("Create a dictionary called prices with apple 1.5 and bread 3.25.",
                                 "Print the price of bread from prices."), prints_number(3.25)),
    Task("multi_file", "multi", ("Write 'alpha beta gamma' to words.txt.",
                                 "Read words.txt and print how many words it has."),
         all_of(file_contains("words.txt", "alpha beta gamma"), prints_number(3))),
    Task("multi_three", "multi", ("Set name to 'Ada'.", "Set greeting to 'Hello, ' + name.", "Print greeting."),
         prints("Hello, Ada", case=True)),
    # shell
    Task("shell_count_files", "shell", ("Use a shell command to count the files in this folder.",),
         prints_number(4), setup={"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "notes.md": "n\n"}),
    Task("shell_list_txt", "shell", ("Use a shell command to list the .txt files in this folder.",),
         all_of(prints("a.txt", "b.txt"), prints_none_of("notes.md")),
         setup={"a.txt": "a\n", "b.txt": "b\n", "notes.md": "n\n"}),
    Task("shell_grep", "shell", ("Use a shell command to count the lines containing ERROR in app.log.",),
         prints_number(APP_LOG.count("ERROR")), setup={"app.log": APP_LOG}),
    Task("shell_lines", "shell", ("Use a shell command to count the lines in data.txt.",),
         prints_number(DATA.count("\n")), setup={"data.txt": DATA}),
    Task("shell_mkdir", "shell", ("Use a shell command to create a folder named build.",), is_dir("build")),
    Task("shell_pwd", "shell", ("Use a shell command to print the working directory.",), prints_folder),
    Task("shell_date", "shell", ("Use a shell command to print today's date.",), prints_this_year),
    # plots
    Task("plot_line", "plot", ("Plot y = x squared for x from 0 to 10 and save it to plot.png.",), png("plot.png")),
    Task("plot_bar", "plot",
         ("Make a bar chart of the values 3, 5 and 2 labelled a, b and c and save it as bars.png.",),
         png("bars.png")),
    Task("plot_sine", "plot", ("Plot sin(x) from 0 to 2*pi and save the figure to sine.png.",), png("sine.png")),
]
