"""The harder tier of scripts/eval.py: real work on files the harness makes before the first turn.

Messy files (amounts written "$1,200", blank lines, semicolons and decimal commas), logs to summarize, nested JSON,
buggy scripts to fix and rerun (checked by running the fixed file in a fresh Python), shell pipelines over folders,
analyses over several requests that build on variables, date and unit arithmetic, and plots (a whole, valid PNG).
Every expected value below is computed from the files, so that the data and the answer cannot drift apart.
"""

from __future__ import annotations

import collections
import datetime
import json
import statistics

from eval_checks import (
    all_of,
    answer_for,
    answer_number,
    answer_numbers,
    answer_text,
    csv_file,
    file_lacks,
    json_file,
    png,
    prints,
    prints_in_order,
    prints_none_of,
    python_passes,
    script_prints,
    tiny_png,
)
from eval_judge import Example, Task, number_task

E = Example

# --- messy files ----------------------------------------------------------------------------------------------------

EXPENSES = (
    'vendor,amount,date\nAcme,"$1,200.00",2024-03-01\n\nBolt Co, $35.50 ,2024-03-02\nAcme,$7,2024-03-05\n\n'
    'Cargo Ltd,"$2,049.99",2024-03-09\nBolt Co,$310,2024-03-12\n'
)
_EXPENSES = [("Acme", 1200.0), ("Bolt Co", 35.5), ("Acme", 7.0), ("Cargo Ltd", 2049.99), ("Bolt Co", 310.0)]
TODO = "  buy milk\n\n   \ncall Anna\n\t\nfix the bike  \n\n\nwrite report\n"
CONTACTS = "Ann@Example.com\n bob@example.com\nann@example.com \n\nCLEO@example.org\nbob@EXAMPLE.com\ndan@example.net\n"
PRICES = "item;price\nbread;2,49\nmilk;1,09\ncheese;7,5\napples;3,20\n"
_PRICES = [2.49, 1.09, 7.5, 3.20]


def _clean_expenses(rows: list[dict[str, str]]) -> bool:
    got = [(r["vendor"], float(r["amount"])) for r in rows]
    return len(got) == len(_EXPENSES) and all(v == w and abs(a - b) < 0.005 for (v, a), (w, b) in
                                              zip(got, _EXPENSES, strict=True))


# --- logs -----------------------------------------------------------------------------------------------------------

SERVER_LOG = """2024-05-01 09:58:02 INFO service started
2024-05-01 10:02:13 ERROR db timeout
2024-05-01 10:15:40 WARNING slow query 2.3s
2024-05-01 10:47:05 ERROR db timeout
2024-05-01 11:05:00 INFO request served
2024-05-01 11:20:31 ERROR disk full
2024-05-01 11:21:02 ERROR disk full
2024-05-01 11:40:10 WARNING retrying
2024-05-01 11:59:59 ERROR disk full
2024-05-01 12:10:00 INFO request served
2024-05-01 12:30:45 INFO shutdown
"""
_server = [line.split(" ", 3) for line in SERVER_LOG.splitlines()]
_levels = collections.Counter(level for _, _, level, _ in _server)
_error_hours = collections.Counter(int(t[:2]) for _, t, level, _ in _server if level == "ERROR")
_span = (datetime.datetime.fromisoformat(" ".join(_server[-1][:2]))
         - datetime.datetime.fromisoformat(" ".join(_server[0][:2])))

ACCESS = [("10.0.0.1", "GET", "/", 200, 512), ("10.0.0.2", "GET", "/api", 500, 0),
          ("10.0.0.2", "GET", "/api", 200, 1024), ("192.168.1.7", "POST", "/login", 302, 128),
          ("10.0.0.1", "GET", "/about", 200, 2048), ("10.0.0.2", "GET", "/api", 500, 0),
          ("10.0.0.2", "GET", "/api", 200, 1024), ("192.168.1.7", "GET", "/", 404, 256),
          ("10.0.0.1", "GET", "/api", 500, 0)]
ACCESS_LOG = "".join(f'{ip} - - [01/May/2024:10:{i:02}:01 +0000] "{verb} {path} HTTP/1.1" {status} {size}\n'
                     for i, (ip, verb, path, status, size) in enumerate(ACCESS))
AUTH_LOG = """May  1 10:00:01 host sshd[101]: Accepted password for alice from 10.0.0.5
May  1 10:01:12 host sshd[102]: Failed password for bob from 10.0.0.6
May  1 10:02:30 host sshd[103]: Accepted publickey for carol from 10.0.0.7
May  1 10:05:00 host sshd[104]: Accepted password for alice from 10.0.0.5
May  1 10:07:45 host sshd[105]: Failed password for dave from 10.0.0.8
May  1 10:09:10 host sshd[106]: Accepted password for bob from 10.0.0.6
"""
_accepted = {line.split(" for ")[1].split()[0] for line in AUTH_LOG.splitlines() if "Accepted" in line}

# --- nested JSON ----------------------------------------------------------------------------------------------------

_ORDERS = [
    {"id": 1, "customer": {"name": "Ann", "city": "Oslo"},
     "items": [{"sku": "A1", "qty": 2, "price": 9.99}, {"sku": "B2", "qty": 1, "price": 24.5}]},
    {"id": 2, "customer": {"name": "Bob", "city": "Bergen"}, "items": [{"sku": "A1", "qty": 5, "price": 9.99}]},
    {"id": 3, "customer": {"name": "Ann", "city": "Oslo"},
     "items": [{"sku": "C3", "qty": 3, "price": 4.25}, {"sku": "B2", "qty": 2, "price": 24.5}]},
    {"id": 4, "customer": {"name": "Cleo", "city": "Oslo"}, "items": []},
]
ORDERS = json.dumps(_ORDERS, indent=2) + "\n"
_order_total = {o["id"]: sum(i["qty"] * i["price"] for i in o["items"]) for o in _ORDERS}
_spent: dict[str, float] = collections.defaultdict(float)
for _o in _ORDERS:
    _spent[_o["customer"]["name"]] += _order_total[_o["id"]]
_sku_qty = collections.Counter()
for _o in _ORDERS:
    for _i in _o["items"]:
        _sku_qty[_i["sku"]] += _i["qty"]
_SETTINGS = {"app": {"name": "shop", "debug": False},
             "database": {"host": "db.local", "port": 5432,
                          "replicas": [{"host": "r1.local", "port": 5432}, {"host": "r2.local", "port": 5434}]},
             "features": {"search": {"enabled": True, "backend": "es"}}}
SETTINGS = json.dumps(_SETTINGS, indent=2) + "\n"
_POSTS = [{"title": "Intro", "tags": ["python", "data"]}, {"title": "Flask", "tags": ["python", "web"]},
          {"title": "Ownership", "tags": ["rust"]}, {"title": "Models", "tags": ["python", "data", "ml"]},
          {"title": "Dashboards", "tags": ["web", "data"]}, {"title": "CSV", "tags": ["data"]}]
POSTS = json.dumps(_POSTS, indent=2) + "\n"
_PEOPLE = [{"name": "Ann", "email": "ann@x.org"}, {"name": "Bob"}, {"name": "Cleo", "email": None},
           {"name": "Dan", "email": "dan@x.org"}, {"name": "Eve"}]
PEOPLE = json.dumps(_PEOPLE, indent=2) + "\n"


def _port_5433(data: object) -> bool:
    want = json.loads(SETTINGS)
    want["database"]["port"] = 5433
    return data == want


def _totals(data: object) -> bool:
    return isinstance(data, dict) and set(data) == set(_spent) and all(
        abs(float(data[k]) - v) < 0.005 for k, v in _spent.items())


# --- buggy scripts --------------------------------------------------------------------------------------------------

STATS_PY = ("values = [4, 8, 15, 16, 23, 42]\naverage = sum(values) / (len(values) - 1)\n"
            "print(\"average:\", average)\n")
GREET_PY = 'def greet(name)\n    return "Hello, " + name\n\n\nprint(greet("World"))\n'
COUNT_PY = "n = 5\nfor i in range(1, n):\n    print(i)\n"
REPORT_PY = 'data = {"apples": 3, "pears": 5}\nprint(json.dumps({"total": sum(data.values())}))\n'
MATHUTIL_PY = "def is_even(n):\n    return n % 2 == 1\n"
SUM_ORDERS_PY = ('import csv\n\ntotal = 0\nwith open("orders.csv") as f:\n    for row in csv.DictReader(f):\n'
                 '        total += row["amount"]\nprint("total:", total)\n')
ORDERS_CSV = "id,amount\n1,12.50\n2,30\n3,7.25\n"

# --- folders --------------------------------------------------------------------------------------------------------

PROJECT = {"project/main.py": "print('hi')\n", "project/util.py": "X = 1\n", "project/pkg/__init__.py": "",
           "project/pkg/core.py": "def f():\n    pass\n", "project/pkg/tests/test_core.py": "def test():\n    pass\n",
           "project/README.md": "# project\n", "project/setup.cfg": "[metadata]\n", "project/old.py.bak": "x\n"}
DATA_DIR = {"data/a.bin": "x" * 100, "data/c.txt": "y" * 300, "data/sub/b.bin": "z" * 5000,
            "data/sub/deep/d.log": "w" * 1200}
DOCS = {"docs/a.txt": "alpha\nbeta\ngamma\n", "docs/b.txt": "line\n" * 10, "docs/e.txt": "one\ntwo\nthree\nfour\n",
        "docs/c.md": "# c\n\nmore\ntext\nend\n"}
SRC = {"src/app.py": "def main():\n    # TODO: handle errors\n    pass\n", "src/lib/db.py": "CONN = None  # TODO\n",
       "src/lib/cache.py": "CACHE = {}\n", "src/README.md": "Source code.\n"}
WORDS = "apple\nbanana\napple\ncherry\nbanana\napple\ndate\n"
INBOX = {"inbox/a.eml": "", "inbox/b.eml": "hi\n", "inbox/c.eml": "", "inbox/d.txt": "", "inbox/sub/e.eml": ""}
MEDIA = {f"media/{name}": "x\n" for name in ("a.jpg", "b.jpg", "c.jpg", "d.png", "e.png", "f.gif")}

# --- analyses over several turns ------------------------------------------------------------------------------------

SALES = """date,region,product,amount
2024-02-03,North,widget,120.00
2024-02-17,South,gadget,80.50
2024-03-01,North,gizmo,210.00
2024-03-05,East,widget,45.25
2024-03-12,South,widget,99.99
2024-03-28,North,gadget,60.00
2024-04-02,East,gizmo,150.00
2024-04-15,West,widget,75.75
2024-04-30,North,widget,130.00
"""
_sales = [line.split(",") for line in SALES.splitlines()[1:]]
_march = sum(float(r[3]) for r in _sales if r[0].startswith("2024-03"))
_regions: dict[str, float] = collections.defaultdict(float)
for _r in _sales:
    _regions[_r[1]] += float(_r[3])
ESSAY = "The cat and the dog. The cat ran; the dog sat. A cat!\n"
GRADES = json.dumps({"Ann": [90, 85, 77], "Bob": [88, 92, 95], "Cleo": [70, 99, 80]}) + "\n"
NUMBERS = "12\n7\n3\n21\n9\n15\n"
WEATHER = ("date,temperature,humidity\n2024-06-01,18.5,60\n2024-06-02,21.0,55\n2024-06-03,19.2,70\n"
           "2024-06-04,23.8,50\n2024-06-05,22.1,65\n")

# --- dates and units ------------------------------------------------------------------------------------------------

_d = datetime.date
TIMES = "1h 20m\n45m\n2h 5m 30s\n30s\n"
_march_weekdays = sum(_d(2024, 3, day).weekday() < 5 for day in range(1, 32))

_TEMPS = [21.5, 23.0, 19.75, 25.25, 22.0]
_TEMP_CSV = "day,temp\n" + "".join(f"{day},{t}\n" for day, t in enumerate(_TEMPS, 1))

HARD_TASKS: list[Task] = [
    # messy files
    number_task("messy_total", "messy", ("Print the total of the amount column in expenses.csv.",),
                sum(a for _, a in _EXPENSES), tol=0.006, setup={"expenses.csv": EXPENSES},
                good=E("Total: $3,602.49\n"), bad=(E("1200.0\n35.5\n7.0\n2049.99\n310.0\n"), E("1552.5\n"))),
    Task("messy_max_vendor", "messy", ("Which vendor in expenses.csv has the largest single amount? Print it.",),
         answer_text("Cargo Ltd", without=("Acme", "Bolt")), E("Cargo Ltd\n"),
         (E("Bolt Co\n"), E("Acme\n")), setup={"expenses.csv": EXPENSES}),
    Task("messy_clean_csv", "messy",
         ("Write expenses_clean.csv from expenses.csv with the columns vendor and amount only, the amounts as plain "
          "numbers (no $ or commas) and no blank lines.",),
         csv_file("expenses_clean.csv", _clean_expenses),
         E("", {"expenses_clean.csv": "vendor,amount\n" + "".join(f"{v},{a}\n" for v, a in _EXPENSES)}),
         (E("", {"expenses_clean.csv": "vendor,amount\nAcme,1\nBolt Co,35.5\nAcme,7\nCargo Ltd,2\nBolt Co,310\n"}),
          E("", {"expenses_clean.csv": EXPENSES})), setup={"expenses.csv": EXPENSES}),
    number_task("messy_nonblank", "messy", ("How many lines of todo.txt are not blank? Print the count.",),
                sum(bool(line.strip()) for line in TODO.splitlines()), setup={"todo.txt": TODO},
                bad=(E("9\n"), E("8\n"))),
    number_task("messy_emails", "messy",
                ("How many distinct email addresses are in contacts.txt, ignoring case and surrounding spaces? "
                 "Print the count.",), len({c.strip().lower() for c in CONTACTS.splitlines() if c.strip()}),
                setup={"contacts.txt": CONTACTS}, bad=(E("6\n"), E("7\n"))),
    number_task("messy_semicolon", "messy",
                ("prices.csv separates fields with ';' and uses a comma as the decimal point. Print the total of "
                 "its price column.",), sum(_PRICES), tol=0.006, setup={"prices.csv": PRICES},
                bad=(E("13\n"), E("2,49\n1,09\n7,5\n3,20\n"))),
    # logs
    Task("log_levels", "log", ("Print how many lines of each level (INFO, WARNING, ERROR) server.log has.",),
         answer_for(dict(_levels)), E("Counter({'ERROR': 5, 'INFO': 4, 'WARNING': 2})\n"),
         (E("INFO 3\nWARNING 2\nERROR 5\n"), E("11\n")), setup={"server.log": SERVER_LOG}),
    number_task("log_error_hour", "log",
                ("In which hour of the day (0 to 23) did server.log record the most ERROR lines? Print the hour.",),
                _error_hours.most_common(1)[0][0], setup={"server.log": SERVER_LOG}, good=E("Hour: 11\n"),
                bad=(E("10\n"), E("{10: 2, 11: 3}\n"))),
    Task("log_first_error", "log", ("Print the timestamp of the first ERROR line in server.log.",),
         answer_text("10:02:13", without=("10:47:05",)), E("2024-05-01 10:02:13\n"),
         (E("2024-05-01 09:58:02\n"), E("2024-05-01 11:59:59\n")), setup={"server.log": SERVER_LOG}),
    number_task("log_span", "log",
                ("How many whole minutes passed between the first and the last line of server.log? Print the "
                 "number.",), _span.seconds // 60, setup={"server.log": SERVER_LOG},
                bad=(E("153\n"), E("2:32:43\n"))),
    Task("log_top_ip", "log", ("Which IP address made the most requests in access.log? Print it.",),
         answer_text("10.0.0.2", without=("10.0.0.1", "192.168")), E("10.0.0.2\n"),
         (E("10.0.0.1\n"), E("Counter({'10.0.0.2': 4, '10.0.0.1': 3, '192.168.1.7': 2})\n")),
         setup={"access.log": ACCESS_LOG}),
    number_task("log_500s", "log", ("How many requests in access.log got the status 500? Print the count.",),
                sum(a[3] == 500 for a in ACCESS), setup={"access.log": ACCESS_LOG},
                bad=(E("500\n"), E("9\n"))),
    number_task("log_bytes", "log", ("Print the total number of bytes sent, the last field of each line of "
                                     "access.log.",), sum(a[4] for a in ACCESS), setup={"access.log": ACCESS_LOG},
                good=E("Total bytes: 4,992\n"), bad=(E("0\n"), E("2048\n"))),
    number_task("log_users", "log",
                ("How many distinct users logged in successfully according to auth.log? Print the count.",),
                len(_accepted), setup={"auth.log": AUTH_LOG},
                bad=(E("4\n"), E("['alice', 'carol', 'alice', 'bob']\n"))),
    # nested JSON
    number_task("json_orders_total", "json", ("Print the total value of all orders in orders.json (quantity times "
                                              "price, over all items).",), sum(_order_total.values()), tol=0.006,
                setup={"orders.json": ORDERS}, bad=(E("79.48\n"), E("13\n"))),
    Task("json_customer_totals", "json",
         ("Write totals.json: an object mapping each customer's name in orders.json to the total they spent.",),
         json_file("totals.json", _totals), E("", {"totals.json": json.dumps(_spent)}),
         (E("", {"totals.json": json.dumps({"Ann": 44.48, "Bob": 49.95, "Cleo": 0})}), E(json.dumps(_spent))),
         setup={"orders.json": ORDERS}),
    Task("json_top_sku", "json", ("Which sku in orders.json was ordered in the largest total quantity? Print it.",),
         answer_text(_sku_qty.most_common(1)[0][0], without=("B2", "C3")), E("A1\n"),
         (E("B2\n"), E("{'A1': 7, 'B2': 3, 'C3': 3}\n")), setup={"orders.json": ORDERS}),
    number_task("json_oslo", "json", ("How many orders in orders.json came from customers in Oslo? Print the count.",),
                sum(o["customer"]["city"] == "Oslo" for o in _ORDERS), setup={"orders.json": ORDERS},
                bad=(E("2\n"), E("4\n"))),
    Task("json_deep_field", "json", ("Print the host of the second database replica in settings.json.",),
         answer_text("r2.local", without=("r1.local", "db.local")), E("r2.local\n"),
         (E("r1.local\n"), E("[{'host': 'r1.local', 'port': 5432}, {'host': 'r2.local', 'port': 5434}]\n")),
         setup={"settings.json": SETTINGS}),
    Task("json_update_nested", "json",
         ("In settings.json, set the database port to 5433 and save the file, keeping everything else as it is.",),
         json_file("settings.json", _port_5433), E("", {"settings.json": SETTINGS.replace('"port": 5432,\n    "r',
                                                                                           '"port": 5433,\n    "r')}),
         (E("", {"settings.json": json.dumps({"database": {"port": 5433}})}),
          E("", {"settings.json": SETTINGS.replace("5432", "5433")})), setup={"settings.json": SETTINGS}),
    Task("json_top_tag", "json", ("Which tag appears in the most posts in posts.json? Print it.",),
         answer_text("data", without=("python", "web")), E("data\n"), (E("python\n"), E("['python', 'data']\n")),
         setup={"posts.json": POSTS}),
    number_task("json_no_email", "json",
                ("How many people in people.json have no email (the key missing or null)? Print the count.",),
                sum(not p.get("email") for p in _PEOPLE), setup={"people.json": PEOPLE}, bad=(E("2\n"), E("1\n"))),
    # buggy scripts: fix the file, run it
    number_task("fix_average", "fix", ("stats.py prints the wrong average of its list. Fix the bug in stats.py, "
                                       "then run the file.",), 18,
                check=all_of(answer_number(18), script_prints("stats.py", answer_number(18))),
                good=E("average: 18.0\n", {"stats.py": STATS_PY.replace("(len(values) - 1)", "len(values)")}),
                bad=(E("average: 21.6\n"), E("18\n")), setup={"stats.py": STATS_PY}),
    Task("fix_syntax", "fix", ("greet.py does not run. Fix it, then run it.",),
         all_of(answer_text("Hello, World"), script_prints("greet.py", answer_text("Hello, World"))),
         E("Hello, World\n", {"greet.py": GREET_PY.replace("(name)", "(name):")}),
         (E("Hello, World\n"), E("SyntaxError: expected ':'\n")), setup={"greet.py": GREET_PY}),
    Task("fix_off_by_one", "fix",
         ("count.py should print the numbers 1 to 5, one per line, but it stops at 4. Fix the file and run it.",),
         all_of(answer_numbers(1, 2, 3, 4, 5), script_prints("count.py", answer_numbers(1, 2, 3, 4, 5)),
                file_lacks("count.py", "range(1, n)")),
         E("1\n2\n3\n4\n5\n", {"count.py": COUNT_PY.replace("range(1, n)", "range(1, n + 1)")}),
         (E("1\n2\n3\n4\n"), E("1\n2\n3\n4\n5\n", {"count.py": "for i in [1, 2, 3, 4]:\n    print(i)\n"})),
         setup={"count.py": COUNT_PY}),
    Task("fix_import", "fix", ("report.py crashes. Fix it and run it.",),
         all_of(answer_text('"total": 8'), script_prints("report.py", answer_text('"total": 8'))),
         E('{"total": 8}\n', {"report.py": "import json\n" + REPORT_PY}),
         (E("NameError: name 'json' is not defined\n"), E('{"total": 8}\n')), setup={"report.py": REPORT_PY}),
    Task("fix_module", "fix", ("is_even in mathutil.py gives wrong answers. Fix the file, then import it and print "
                               "is_even(4) and is_even(7).",),
         all_of(prints_in_order("True", "False"), python_passes(
             "from mathutil import is_even; assert is_even(4) and not is_even(7) and is_even(0) and not is_even(-3)")),
         E("True\nFalse\n", {"mathutil.py": MATHUTIL_PY.replace("== 1", "== 0")}),
         (E("False\nTrue\n"), E("True\nFalse\n")), setup={"mathutil.py": MATHUTIL_PY}),
    number_task("fix_types", "fix", ("sum_orders.py crashes. Fix it so that it prints the total amount of orders.csv, "
                                     "then run it.",), 49.75,
                check=all_of(answer_number(49.75), script_prints("sum_orders.py", answer_number(49.75))),
                good=E("total: 49.75\n", {"sum_orders.py": SUM_ORDERS_PY.replace('row["amount"]',
                                                                                  'float(row["amount"])')}),
                bad=(E("total: 49.75\n"), E("TypeError: unsupported operand type(s)\n")),
                setup={"sum_orders.py": SUM_ORDERS_PY, "orders.csv": ORDERS_CSV}),
    # shell pipelines over folders
    number_task("shell_count_py", "shell", ("Use a shell command to count the .py files under project/, in all its "
                                            "subfolders.",), 5, setup=PROJECT, bad=(E("8\n"), E("2\n"))),
    Task("shell_largest", "shell", ("Use a shell command to find the largest file under data/, subfolders included, "
                                    "and print its name.",),
         answer_text("b.bin", without=("d.log", "c.txt")), E("5000 data/sub/b.bin\n"),
         (E("c.txt\n"), E("d.log\n")), setup=DATA_DIR),
    number_task("shell_txt_lines", "shell", ("Use a shell command to count the lines of all the .txt files in docs/ "
                                             "together.",), 17, setup=DOCS, good=E(" 3 docs/a.txt\n 10 docs/b.txt\n"
                                                                                  " 4 docs/e.txt\n17 total\n"),
                bad=(E(" 3 docs/a.txt\n 10 docs/b.txt\n 4 docs/e.txt\n"), E("22\n"))),
    Task("shell_todo", "shell", ("Use a shell command to list the files under src/ that contain TODO.",),
         all_of(prints("app.py", "db.py"), prints_none_of("cache.py", "README")), E("src/app.py\nsrc/lib/db.py\n"),
         (E("src/app.py\n"), E("src/app.py\nsrc/lib/cache.py\nsrc/lib/db.py\n")), setup=SRC),
    number_task("shell_distinct_words", "shell", ("Use a shell pipeline to print the number of distinct words in "
                                                  "words.txt (one word per line).",), 4, setup={"words.txt": WORDS},
                bad=(E("7\n"), E("3 apple\n2 banana\n1 cherry\n1 date\n"))),
    Task("shell_top_word", "shell", ("Use a shell pipeline to print the most frequent word in words.txt and how many "
                                     "times it appears.",), all_of(answer_for({"apple": 3}), answer_text("apple")),
         E("      3 apple\n"), (E("      2 banana\n"), E("apple\n")), setup={"words.txt": WORDS}),
    number_task("shell_empty_files", "shell", ("Use a shell command to count the empty files under inbox/, "
                                               "subfolders included.",), 4, setup=INBOX, bad=(E("3\n"), E("5\n"))),
    Task("shell_extensions", "shell", ("Use a shell pipeline to count the files in media/ by extension.",),
         answer_for({"jpg": 3, "png": 2, "gif": 1}), E("      3 jpg\n      2 png\n      1 gif\n"),
         (E("6\n"), E("jpg 2\npng 2\ngif 1\n")), setup=MEDIA),
    # analyses over several turns
    number_task("multi_march", "multi", ("Load sales.csv into a variable called sales.",
                                         "Keep only the rows from March 2024 in a variable called march.",
                                         "Print the total amount of march."), _march, tol=0.006,
                setup={"sales.csv": SALES}, bad=(E("4\n"), E(f"{sum(float(r[3]) for r in _sales):.2f}\n"))),
    Task("multi_regions", "multi", ("Load sales.csv into a variable called sales.",
                                    "Print the total amount per region of sales."),
         answer_for(dict(_regions), tol=0.006), E("".join(f"{k}: {v:.2f}\n" for k, v in _regions.items())),
         (E("North 4\nSouth 2\nEast 2\nWest 1\n"), E("North 520\nSouth 80.5\nEast 195.25\nWest 75.75\n")),
         setup={"sales.csv": SALES}),
    Task("multi_celsius", "multi", ("Define a function celsius(f) that converts degrees Fahrenheit to Celsius.",
                                    "Make a list temps_f with the values 32, 212 and 98.6.",
                                    "Print the Celsius values of temps_f, rounded to 1 decimal."),
         answer_numbers(0, 100, 37, tol=0.051), E("[0.0, 100.0, 37.0]\n"),
         (E("[32, 212, 98.6]\n"), E("[0.0, 100.0]\n"), E("[-17.8, 0.0, 100.0, 37.0]\n"))),
    Task("multi_words", "multi", ("Read essay.txt into a variable called text.",
                                  "Count how often each word occurs in text, ignoring case and punctuation, into a "
                                  "dictionary called counts.",
                                  "Print the three most common words in counts with their counts."),
         answer_for({"the": 4, "cat": 3, "dog": 2}), E("[('the', 4), ('cat', 3), ('dog', 2)]\n"),
         (E("[('the', 2), ('cat', 3), ('dog', 2)]\n"), E("[('cat', 3), ('dog', 2), ('and', 1)]\n")),
         setup={"essay.txt": ESSAY}),
    number_task("multi_balance", "multi", ("Set balance to 100.", "Add 25.50 to balance.", "Subtract 40 from balance.",
                                           "Print balance."), 85.5, bad=(E("125.5\n"), E("100\n"))),
    Task("multi_grades", "multi", ("Load grades.json into a variable called grades.",
                                   "Compute each student's average grade into a dictionary called averages.",
                                   "Print the name of the student with the highest average."),
         answer_text("Bob", without=("Ann", "Cleo")), E("Bob\n"),
         (E("Cleo\n"), E("{'Ann': 84.0, 'Bob': 91.67, 'Cleo': 83.0}\n")), setup={"grades.json": GRADES}),
    number_task("multi_median", "multi", ("Read the numbers in numbers.txt into a list called data.",
                                          "Print the median of data."),
                statistics.median(int(n) for n in NUMBERS.split()), setup={"numbers.txt": NUMBERS},
                bad=(E("9\n"), E("11.166666666666666\n"))),
    # dates and units
    number_task("date_days_between", "date", ("How many days are there from 2024-01-15 to 2024-03-01? Print the "
                                              "number.",), (_d(2024, 3, 1) - _d(2024, 1, 15)).days,
                bad=(E("45\n"), E("1 month, 15 days\n"))),
    Task("date_weekday", "date", ("What day of the week was 2000-01-01? Print its name.",),
         answer_text(_d(2000, 1, 1).strftime("%A")), E("Saturday\n"), (E("Sunday\n"), E("5\n"))),
    Task("date_add", "date", ("Print the date 90 days after 2024-11-15, as YYYY-MM-DD.",),
         answer_text((_d(2024, 11, 15) + datetime.timedelta(days=90)).isoformat()),
         E(f"{_d(2024, 11, 15) + datetime.timedelta(days=90)}\n"), (E("2025-02-14\n"), E("2024-11-15\n"))),
    number_task("date_age", "date", ("How old, in whole years, was someone born on 1990-07-20 on 2024-07-19? Print "
                                     "the number.",), 33, bad=(E("34\n"), E("33.99\n"))),
    number_task("date_weekdays", "date", ("How many weekdays (Monday to Friday) does March 2024 have? Print the "
                                          "number.",), _march_weekdays, bad=(E("31\n"), E("22\n"))),
    number_task("unit_speed", "unit", ("A car drives 150 miles in 2 hours 30 minutes. Print its average speed in "
                                       "km/h, rounded to 1 decimal (1 mile = 1.609344 km).",),
                150 * 1.609344 / 2.5, tol=0.051, good=E("96.6 km/h\n"), bad=(E("60.0\n"), E("241.4\n"))),
    number_task("unit_bytes", "unit", ("How many MiB is 3,500,000,000 bytes? Print it rounded to 2 decimals.",),
                3.5e9 / 2**20, tol=0.006, good=E("3,337.86 MiB\n"), bad=(E("3500.0\n"), E("3.26\n"))),
    number_task("unit_durations", "unit", ("times.txt lists durations such as '1h 20m' or '45m'. Print their total "
                                           "in minutes.",), 80 + 45 + 125.5 + 0.5, tol=0.006,
                setup={"times.txt": TIMES}, bad=(E("250.5\n"), E("4\n"))),
    # plots
    Task("plot_hist", "plot", ("Make a histogram of the amount column of sales.csv and save it to hist.png.",),
         png("hist.png"), E("", {"hist.png": tiny_png()}), (E("", {"hist.png": tiny_png()[:40]}),),
         setup={"sales.csv": SALES}),
    Task("plot_weather", "plot", ("Plot the temperature and humidity columns of weather.csv against the date on one "
                                  "chart with a legend, and save it to weather.png.",), png("weather.png"),
         E("", {"weather.png": tiny_png()}), (E("", {"weather.svg": "<svg/>"}),), setup={"weather.csv": WEATHER}),
    Task("plot_levels", "plot", ("Make a bar chart of the number of lines per level in server.log and save it to "
                                 "levels.png.",), png("levels.png"), E("", {"levels.png": tiny_png()}),
         (E("", {"levels.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 40}),), setup={"server.log": SERVER_LOG}),
    # names as they are: spaces, brackets, accents, several dots (a model writes them as it would name a file)
    number_task("name_spaced", "name", ("What is the mean of the temp column? The data is in veracruz 2016.csv. Print "
                                        "it rounded to 2 decimals.",), statistics.mean(_TEMPS), tol=0.006,
                setup={"veracruz 2016.csv": _TEMP_CSV, "veracruz_2015.csv": "temp\n1\n"}, bad=(E("1.00\n"),)),
    number_task("name_brackets", "name", ("How many lines of notes (final).txt are not blank? Print the count.",),
                sum(bool(line.strip()) for line in TODO.splitlines()), setup={"notes (final).txt": TODO},
                bad=(E("9\n"),)),
    number_task("name_accent", "name", ("Print the total of the price column of résumé des ventes.csv.",),
                sum(_PRICES), tol=0.006, setup={"résumé des ventes.csv": "item,price\n" + "".join(
                    f"{item},{price}\n" for item, price in zip(("bread", "milk", "cheese", "apples"), _PRICES,
                                                                strict=True))}, bad=(E("0\n"),)),
    number_task("name_dots", "name", ("Print the largest value of the temp column in readings.v2.final.csv.",),
                max(_TEMPS), setup={"readings.v2.final.csv": _TEMP_CSV, "readings.csv": "temp\n99\n"},
                bad=(E("99\n"),)),
]
