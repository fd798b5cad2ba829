"""The simple tier of scripts/eval.py: short, concrete requests of the kinds people give a code interpreter.

Each task carries a known-good output and known-bad ones (the wrong answers a weak system gives: the input echoed,
a neighbouring number, a dump that merely contains the answer); tests/eval/test_eval_checks.py holds every check to
them.
"""

from __future__ import annotations

import csv
import io
import json

from eval_checks import (
    all_of,
    answer_letter,
    answer_number,
    answer_numbers,
    answer_text,
    any_of,
    csv_file,
    file_contains,
    file_lines,
    is_dir,
    json_file,
    png,
    prints,
    prints_folder,
    prints_in_order,
    prints_none_of,
    prints_today,
    tiny_png,
)
from eval_judge import Example, Task, number_task

E = Example
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
DATA = "3\n1\n4\n1\n5\n9\n2\n6\n"  # 8 lines: a `cat` ends on 6, not on the count
FOUR_FILES = {"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "notes.md": "n\n"}
LS_L = ("total 16\n-rw-r--r-- 1 me me 2 Mar  4 12:04 a.txt\n-rw-r--r-- 1 me me 2 Mar  4 12:04 b.txt\n"
        "-rw-r--r-- 1 me me 2 Mar  4 12:04 c.txt\n-rw-r--r-- 1 me me 2 Mar  4 12:04 notes.md\n")
PNG_STUB = b"\x89PNG\r\n\x1a\n"  # the signature alone: no image

_sales = list(csv.DictReader(io.StringIO(SALES)))
_amounts = [float(r["amount"]) for r in _sales]
_north = sorted(r["date"] for r in _sales if r["region"] == "North")
_config = json.loads(CONFIG)


def _config_debug(data: object) -> bool:
    return isinstance(data, dict) and data["debug"] is True and all(data[k] == _config[k] for k in _config
                                                                     if k != "debug")


TASKS: list[Task] = [
    # arithmetic
    number_task("sum_1_100", "arith", ("Print the sum of the integers from 1 to 100.",), 5050,
                good=E("The sum of the integers from 1 to 100 is 5,050\n"),
                bad=(E(" ".join(map(str, range(1, 101))) + "\n"), E("5049\n"))),
    number_task("factorial_10", "arith", ("Print 10 factorial.",), 3628800,
                bad=(E("362880\n"), E("1 2 6 24 120 720 5040 40320 362880 3628800\n"))),
    number_task("power_2_20", "arith", ("Print 2 to the power of 20.",), 2**20, bad=(E("2 ** 20 = 40\n"),)),
    Task("primes_below_50", "arith", ("Print the prime numbers below 50.",),
         answer_numbers(2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47),
         E("[2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47]\n"),
         (E(" ".join(map(str, range(2, 50))) + "\n"), E("[2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43]\n"))),
    number_task("fibonacci_20", "arith", ("Print the 20th Fibonacci number, where the 1st and 2nd are both 1.",),
                6765, good=E("The 20th Fibonacci number is 6765\n"),
                bad=(E("4181\n"), E("1 1 2 3 5 8 13 21 34 55 89 144 233 377 610 987 1597 2584 4181 6765\n"))),
    number_task("average", "arith", ("Print the average of 3, 7, 8, 12 and 20.",), 10,
                good=E("Average: 10.0\n"), bad=(E("50\n"), E("[3, 7, 8, 12, 20]\n"))),
    number_task("sqrt_2", "arith", ("Print the square root of 2 rounded to 4 decimal places.",), 2**0.5, tol=5e-5,
                bad=(E("1.41\n"), E("2\n"))),
    number_task("gcd", "arith", ("Print the greatest common divisor of 84 and 120.",), 12,
                good=E("gcd(84, 120) = 12\n"), bad=(E("6\n"), E("84 120\n"))),
    number_task("divisible_by_7", "arith",
                ("How many integers from 1 to 1000 are divisible by 7? Print the count.",), 142,
                good=E("142 integers from 1 to 1000 are divisible by 7\n"),
                bad=(E("\n".join(map(str, range(1, 1001))) + "\n"), E("143\n"))),
    number_task("fahrenheit", "arith",
                ("Convert 100 degrees Fahrenheit to Celsius and print it rounded to 2 decimals.",),
                (100 - 32) * 5 / 9, tol=0.006, good=E("100°F = 37.78°C\n"), bad=(E("212\n"), E("37.7\n"))),
    number_task("compound_interest", "arith",
                ("Print the balance of 1000 dollars at 5% interest compounded yearly after 10 years, rounded to 2 "
                 "decimals.",), 1000 * 1.05**10, tol=0.006, good=E("Balance: $1,628.89\n"),
                bad=(E("1500.00\n"), E("1050.0\n1102.5\n1157.63\n1215.51\n1276.28\n"))),
    # strings
    Task("reverse", "string", ("Print the string 'interpreter' reversed.",), answer_text("reterpretni"),
         E("reterpretni\n"), (E("interpreter\n"), E("reterpretn\n"))),
    number_task("vowels", "string",
                ("Count the vowels in 'The quick brown fox jumps over the lazy dog' and print the count.",), 11,
                bad=(E("{'a': 1, 'e': 3, 'i': 1, 'o': 4, 'u': 2}\n"), E("9\n"))),
    Task("upper", "string", ("Print 'hello world' in upper case.",), prints("HELLO WORLD", case=True),
         E("HELLO WORLD\n"), (E("hello world\n"), E("Hello World\n"))),
    Task("palindrome", "string", ("Check if 'racecar' is a palindrome and print True or False.",),
         all_of(prints("True", case=True), prints_none_of("False")), E("True\n"), (E("False\n"), E("True False\n"))),
    number_task("word_count", "string", ("Print the number of words in 'the cat sat on the mat with the hat'.",), 9,
                bad=(E("35\n"), E("['the', 'cat', 'sat', 'on', 'the', 'mat', 'with', 'the', 'hat']\n"))),
    Task("most_common_letter", "string", ("Print the most common letter in 'bookkeeper'.",), answer_letter("e"),
         E("The most common letter is 'e' (3 times)\n"),
         (E("Counter({'e': 3, 'o': 2, 'k': 2, 'b': 1, 'p': 1, 'r': 1})\n"), E("o\n"))),
    Task("title_case", "string", ("Print 'the lord of the rings' in title case.",),  # str.title() or English style
         any_of(prints("The Lord Of The Rings", case=True), prints("The Lord of the Rings", case=True)),
         E("The Lord Of The Rings\n"), (E("the lord of the rings\n"), E("THE LORD OF THE RINGS\n"))),
    Task("sort_words", "string", ("Sort the words 'pear apple fig banana' alphabetically and print them.",),
         prints_in_order("apple", "banana", "fig", "pear"), E("['apple', 'banana', 'fig', 'pear']\n"),
         (E("pear apple fig banana\n"), E("pear fig banana apple\n"))),
    Task("replace", "string", ("Replace every 'cat' with 'dog' in 'the cat saw another cat' and print the result.",),
         prints("the dog saw another dog"), E("the dog saw another dog\n"),
         (E("the dog saw another cat\n"), E("the cat saw another cat\n"))),
    # files
    Task("write_file", "file", ("Write the text 'hello from interp' to a file named hello.txt.",),
         file_contains("hello.txt", "hello from interp"), E("", {"hello.txt": "hello from interp\n"}),
         (E("hello from interp\n"), E("", {"hello.txt": "hello\n"}))),
    number_task("count_lines", "file", ("Count the lines in notes.txt and print the number.",), NOTES.count("\n"),
                good=E("notes.txt has 7 lines\n"), setup={"notes.txt": NOTES},
                bad=(E("6\n"), E("1 buy milk\n2 call Anna\n3 fix the bike\n5 write report\n6 pay rent\n"))),
    number_task("count_words", "file", ("Print the number of words in poem.txt.",), len(POEM.split()),
                setup={"poem.txt": POEM}, bad=(E("6\n"), E("108\n"))),
    Task("longest_line", "file", ("Print the longest line of lines.txt.",),
         answer_text("a much longer line than the others here"), E("a much longer line than the others here\n"),
         (E("medium length line\n"), E("39\n")), setup={"lines.txt": LINES}),
    Task("append_line", "file", ("Append the line 'done' to log.txt.",),
         file_lines("log.txt", ["started", "working", "done"]), E("", {"log.txt": "started\nworking\ndone\n"}),
         (E("", {"log.txt": "done\n"}), E("done\n")), setup={"log.txt": "started\nworking\n"}),
    Task("write_numbers", "file", ("Write the numbers 1 to 10 to numbers.txt, one per line.",),
         file_lines("numbers.txt", [str(i) for i in range(1, 11)]),
         E("", {"numbers.txt": "".join(f"{i}\n" for i in range(1, 11))}),
         (E("", {"numbers.txt": "1 2 3 4 5 6 7 8 9 10\n"}), E("", {"numbers.txt": "".join(f"{i}\n" for i in
                                                                                          range(10))}))),
    number_task("count_word", "file", ("How many times does the word 'cat' appear in story.txt? Print the count.",),
                STORY.count("cat"), setup={"story.txt": STORY}, good=E("'cat' appears 3 times\n"),
                bad=(E("2\n"), E("24\n"))),
    # CSV
    number_task("csv_rows", "csv", ("How many data rows are in sales.csv, not counting the header? Print the number.",),
                len(_sales), setup={"sales.csv": SALES}, bad=(E("7\n"), E("4\n"))),
    number_task("csv_sum", "csv", ("Print the total of the amount column in sales.csv.",), sum(_amounts),
                tol=0.006, setup={"sales.csv": SALES}, good=E("Total amount: 629.0\n"),
                bad=(E("120\n90\n45\n210\n65\n99\n"), E("530\n"))),
    number_task("csv_average", "csv", ("Print the average of the amount column in sales.csv.",),
                sum(_amounts) / len(_amounts), tol=0.006, setup={"sales.csv": SALES},
                bad=(E("629\n"), E("89.857\n"))),
    Task("csv_max", "csv", ("Which product in sales.csv has the highest amount? Print its name.",),
         answer_text("gizmo"), E("gizmo\n"), (E("widget\n"), E("gizmo 210\nwidget 120\n")),
         setup={"sales.csv": SALES}),
    Task("csv_filter", "csv", ("Write the rows of sales.csv whose region is North to north.csv, with the header.",),
         csv_file("north.csv", lambda rows: sorted(r["date"] for r in rows) == _north
                  and all(r["region"] == "North" for r in rows)),
         E("", {"north.csv": "".join(line + "\n" for line in SALES.splitlines() if "North" in line or "date" in line)}),
         (E("", {"north.csv": SALES}), E("", {"north.csv": "".join(line + "\n" for line in SALES.splitlines()
                                                                    if "North" in line)})),
         setup={"sales.csv": SALES}),
    Task("csv_write", "csv",
         ("Write a CSV file people.csv with columns name and age and two rows: Ann 31 and Bob 27.",),
         csv_file("people.csv", lambda rows: [(r["name"], r["age"]) for r in rows] == [("Ann", "31"), ("Bob", "27")]),
         E("", {"people.csv": "name,age\nAnn,31\nBob,27\n"}),
         (E("", {"people.csv": "Ann,31\nBob,27\n"}), E("name,age\nAnn,31\nBob,27\n"))),
    # JSON
    Task("json_field", "json", ("Print the version field of config.json.",), answer_text("1.4.2"),
         E("1.4.2\n"), (E("demo\n"), E("1.4\n")), setup={"config.json": CONFIG}),
    Task("json_keys", "json", ("Print the keys of config.json.",),
         all_of(prints(*_config), prints_none_of("demo", "8080")),
         E("dict_keys(['name', 'version', 'debug', 'ports'])\n"), (E("['name', 'version']\n"),),
         setup={"config.json": CONFIG}),
    number_task("json_count", "json", ("Print the number of users in users.json.",), 5, setup={"users.json": USERS},
                good=E("There are 5 users\n"), bad=(E("10\n"), E("{'name': 'Eve', 'age': 19}\n"))),
    Task("json_filter", "json", ("Print the names of the users in users.json who are older than 30.",),
         all_of(prints("Ann", "Cleo", case=True), prints_none_of("Bob", "Dan", "Eve")), E("['Ann', 'Cleo']\n"),
         (E("['Ann', 'Cleo', 'Dan']\n"), E("['Cleo']\n")), setup={"users.json": USERS}),
    Task("json_write", "json", ("Save the dictionary {'a': 1, 'b': 2} as JSON to data.json.",),
         json_file("data.json", lambda data: data == {"a": 1, "b": 2}), E("", {"data.json": '{"a": 1, "b": 2}'}),
         (E("", {"data.json": "{'a': 1, 'b': 2}"}), E('{"a": 1, "b": 2}\n'))),
    Task("json_modify", "json", ("In config.json, set debug to true and save the file.",),
         json_file("config.json", _config_debug), E("", {"config.json": CONFIG.replace("false", "true")}),
         (E("", {"config.json": '{"debug": true}'}), E(CONFIG.replace("false", "true"))),
         setup={"config.json": CONFIG}),
    # several turns: a later turn uses what an earlier one defined
    number_task("multi_var", "multi", ("Set x to 12.", "Print x times 3."), 36, bad=(E("12\n"), E("123\n"))),
    number_task("multi_func", "multi", ("Define a function square(n) that returns n * n.", "Print square(13)."), 169,
                bad=(E("26\n"), E("<function square at 0x7f>\n"))),
    number_task("multi_list", "multi", ("Make a list called nums with the numbers 4, 8, 15, 16, 23, 42.",
                                        "Print the sum of nums."), 108, bad=(E("[4, 8, 15, 16, 23, 42]\n"), E("66\n"))),
    number_task("multi_dict", "multi", ("Create a dictionary called prices with apple 1.5 and bread 3.25.",
                                        "Print the price of bread from prices."), 3.25,
                bad=(E("1.5\n"), E("{'apple': 1.5, 'bread': 3.25}\n4.75\n"))),
    number_task("multi_file", "multi", ("Write 'alpha beta gamma' to words.txt.",
                                        "Read words.txt and print how many words it has."), 3,
                check=all_of(file_contains("words.txt", "alpha beta gamma"), answer_number(3)),
                good=E("3\n", {"words.txt": "alpha beta gamma\n"}),
                bad=(E("3\n"), E("16\n", {"words.txt": "alpha beta gamma\n"}))),
    Task("multi_three", "multi", ("Set name to 'Ada'.", "Set greeting to 'Hello, ' + name.", "Print greeting."),
         prints("Hello, Ada", case=True), E("Hello, Ada\n"), (E("Hello, name\n"), E("Ada\n"))),
    # shell
    number_task("shell_count_files", "shell", ("Use a shell command to count the files in this folder.",), 4,
                setup=FOUR_FILES, good=E("4\n"), bad=(E(LS_L), E("a.txt b.txt c.txt notes.md\n"))),
    Task("shell_list_txt", "shell", ("Use a shell command to list the .txt files in this folder.",),
         all_of(prints("a.txt", "b.txt"), prints_none_of("notes.md")), E("a.txt\nb.txt\n"),
         (E("a.txt\nb.txt\nnotes.md\n"), E("a.txt\n")), setup={"a.txt": "a\n", "b.txt": "b\n", "notes.md": "n\n"}),
    number_task("shell_grep", "shell", ("Use a shell command to count the lines containing ERROR in app.log.",),
                APP_LOG.count("ERROR"), setup={"app.log": APP_LOG},
                bad=(E("ERROR disk full\nERROR disk full\nERROR timeout\n"), E("7 app.log\n"))),
    number_task("shell_lines", "shell", ("Use a shell command to count the lines in data.txt.",), DATA.count("\n"),
                setup={"data.txt": DATA}, good=E("8 data.txt\n"), bad=(E("7 data.txt\n"), E("31\n"))),
    Task("shell_mkdir", "shell", ("Use a shell command to create a folder named build.",), is_dir("build"),
         E("", {"build/.keep": ""}), (E("", {"build": ""}), E("mkdir build\n"))),
    Task("shell_pwd", "shell", ("Use a shell command to print the working directory.",), prints_folder,
         E("{folder}\n"), (E("work\n"), E("/\n"))),
    Task("shell_date", "shell", ("Use a shell command to print today's date.",), prints_today, E("{today}\n"),
         (E(LS_L), E("1970-01-01\n"))),
    # plots
    Task("plot_line", "plot", ("Plot y = x squared for x from 0 to 10 and save it to plot.png.",), png("plot.png"),
         E("", {"plot.png": tiny_png()}), (E("", {"plot.png": PNG_STUB}), E("", {"plot.jpg": b""}))),
    Task("plot_bar", "plot",
         ("Make a bar chart of the values 3, 5 and 2 labelled a, b and c and save it as bars.png.",),
         png("bars.png"), E("", {"bars.png": tiny_png()}),
         (E("", {"bars.png": b"not an image"}), E("<Figure size 640x480>\n"))),
    Task("plot_sine", "plot", ("Plot sin(x) from 0 to 2*pi and save the figure to sine.png.",), png("sine.png"),
         E("", {"sine.png": tiny_png()}), (E("", {"sine.png": PNG_STUB}),)),
]
