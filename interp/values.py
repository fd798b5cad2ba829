"""What a silent run left behind: code that printed nothing but set names is answered with what those names hold.

Told only "(no output)" after `march = [r for r in sales if r['date'] == '2024-03']`, a model may answer that the
rows were filtered, when the list is empty. So after a clean Python run that printed nothing, the model is shown the
type, size and a bounded repr of the last few names the code assigned at its top level, read from the kernel without
running anything the user sees (the kernel's user_expressions).

The other way a clean run can say nothing: code that only prints text typed into it (`print("2024-11-15 + 90 days =
2024-12-25")`), the small models' way of answering without computing. That code is pointed out (`typed`), unless the
request itself holds the text printed (`Print 'Hello, World'`). And output that shows only zeros or empty containers
(`INFO: 0 / WARNING: 0 / ERROR: 0`, `[]`), the printed form of a condition that matched none of the data
(`line.startswith('INFO ')` on lines that begin with a date), is pointed out as such (`nothing_found`), as an empty name
is after a silent run. And a number printed with more decimals than the request asks for (`unrounded`):
152.71666666666667 for the "whole minutes" between two times, or a float as it came for a value "rounded to 1 decimal";
and then, for whole units, that number rounded up, 153 (`rounded_up`). And a date the request gives that the code does
not use whole (`unused_dates`): `2024 - 1990` for how old someone born on 1990-07-20 was on 2024-07-19. And a date
printed alone where the request asks for a timestamp (`date_alone`). And an amount with a unit the request gives that
the code leaves out (`unused_quantities`): for the speed of a car that drives 150 miles in 2 hours 30 minutes, a
division by 2. And a request's words that code does nothing for (`unmet`): "ignoring case" with no .lower(), weekdays
with no weekday(). And a dict of units of time whose values disagree with the clock (`unit_factors`), and a conversion
the request states that the code divides by where it converts to the unit asked for (`divided_conversion`). And one
number where the request counts by a group (`one_for_groups`). And a function an earlier run defined, which the request
names and the code does not call (`unused_functions`): told to define celsius(f) and then to print "the Celsius values
of temps_f", code that prints the list as it was, rounded.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass

MAX_NAMES = 4  # the last names assigned are described, at most this many
MAX_CHARS = 160  # of one description
EMPTY = " of 0 items"  # what an empty container's description says before its repr
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_DIGITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_PLACES = re.compile(r"\b(?:rounded )?to (\d|one|two|three|four|five|six) (?:decimal|digit)s?(?: places?)?\b", re.I)
_CONVERSION = re.compile(r"\b1 ([A-Za-z]+) ?= ?(\d+(?:\.\d+)?) ?([A-Za-z]+)\b")  # 1 mile = 1.609344 km
_WHOLE = re.compile(r"\b(?:whole (?:seconds|minutes|hours|days|weeks|months|years|numbers?|units)|nearest (?:whole "
                    r"number|integer)|as an integer)\b", re.I)
_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_GROUPED = re.compile(r"\b(?:count|counts|total|totals|sum|number|how many|average|mean)\b[^.?!]*?\b(?:by|per|for "
                      r"each|of each)\s+(?!\d)([a-z]+)", re.I)
_NOT_GROUPS = {"line", "lines", "row", "rows", "record", "records", "entry", "entries", "item", "items", "the", "a"}
_TIMESTAMP = re.compile(r"\btime ?stamps?\b|\bdate and time\b", re.I)
_TIME = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")
# No one-letter units: "the 1990s" is no amount of seconds.
_TIME_WORDS = ((1, "sec secs second seconds"), (60, "min mins minute minutes"), (3600, "hr hrs hour hours"),
               (86400, "day days"), (604800, "week weeks"))  # each unit's words, its plural last
_TIME_UNITS = {unit: seconds for seconds, units in _TIME_WORDS for unit in units.split()}
_PLURAL = {seconds: units.split()[-1] for seconds, units in _TIME_WORDS}
_CLOCK = {**_TIME_UNITS, "s": 1, "m": 60, "h": 3600, "d": 86400}  # in code's dicts one letter is a unit
_OPERATIONS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_OTHER_UNITS = ("mile", "miles", "km", "kilometers", "kilometres", "meters", "metres", "kg", "grams", "pounds", "lb",
                "lbs", "liters", "litres", "gallons", "mph", "km/h", "bytes", "kb", "mb", "gb", "tb", "kib", "mib",
                "gib")
_QUANTITY = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)\s?(" + "|".join(
    sorted(map(re.escape, [*_TIME_UNITS, *_OTHER_UNITS]), key=len, reverse=True)) + r")(?![\w/])", re.I)
_EMPTY = {"[]", "{}", "()", "set()", "Counter()", "''", '""', "None"}  # an empty value as printed

# Evaluated in the kernel for each name: "list of 0 items: []". reprlib bounds the repr of a large container.
# A table (a pandas frame, anything with a shape and columns) by its shape and first columns: a repr cut in its middle
# tells nothing.
_DESCRIBE = ("(lambda v: '%s of shape %s; columns: %s' % (type(v).__name__, tuple(v.shape), ', '.join(map(str, "
             "list(v.columns)[:12])) + (', ...' if len(v.columns) > 12 else '')) if hasattr(v, 'shape') and hasattr("
             "v, 'columns') else type(v).__name__ + (' of %d items' % len(v) if hasattr(v, '__len__') and not "
             "isinstance(v, str) else '') + ': ' + __import__('reprlib').repr(v))({name})")


def assigned(code: str) -> list[str]:
    """The names the code assigns at its top level, in the order last assigned, at most MAX_NAMES (the last ones).
    A `with` block's body counts as top level: `with open('sales.csv') as f: sales = csv.DictReader(f)` is how the
    small models load a file."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    names: dict[str, None] = {}
    for node in _unwrapped(tree.body):
        targets = [*getattr(node, "targets", []), getattr(node, "target", None)]
        if isinstance(node, (ast.For, ast.AsyncFor)):
            targets = []  # a loop variable holds the last item only: not what the code set out to make
        for target in filter(None, targets):
            for name in ast.walk(target):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store) and not name.id.startswith("_"):
                    names.pop(name.id, None)
                    names[name.id] = None
    return list(names)[-MAX_NAMES:]


def _unwrapped(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements, each `with` block replaced by its body's statements."""
    return [inner for node in body
            for inner in (_unwrapped(node.body) if isinstance(node, (ast.With, ast.AsyncWith)) else [node])]


def expressions(names: list[str]) -> dict[str, str]:
    """The kernel expressions that describe these names, by name."""
    return {name: _DESCRIBE.format(name=name) for name in names}


@dataclass(frozen=True)
class Seen:
    """What the names a silent run set hold: a line each, and those that hold nothing."""

    text: str
    empty: list[str]


def seen(values: dict[str, str], names: list[str]) -> Seen | None:
    """The kernel's descriptions of these names, or None when it described none. The empty ones are named too: told
    only "march: list of 0 items", a model may answer that march is empty and stop, though the request asked for the
    March rows: an empty result is more often a wrong condition than an answer."""
    text = described(values, names)
    empty = [name for name in names if values.get(name, "").split(": ", 1)[0].endswith(EMPTY)]
    return Seen(text, empty) if text else None


def described(values: dict[str, str], names: list[str]) -> str:
    """One line per name that could be described, `name: description`, each cut to MAX_CHARS."""
    lines = []
    for name in names:
        if name in values:
            text = f"{name}: {values[name]}"
            lines.append(text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 4] + " ...")
    return "\n".join(lines)


def typed(code: str, output: str, request: str) -> bool:
    """Whether the code only printed constants typed into it (`print('5')`, `print(f"x = {3}")`), and the output
    printed is not text the request holds."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    if not tree.body or not output.strip() or output.strip() in request:
        return False
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"):
            return False
        parts = [n for n in ast.walk(call) if n is not call and n is not call.func]
        if not all(isinstance(n, (ast.Constant, ast.JoinedStr, ast.FormattedValue, ast.keyword, ast.expr_context))
                   for n in parts):
            return False
    return True


def restated(code: str, outputs: list[str]) -> bool:
    """Whether the code only prints string or number constants (`print('HELLO WORLD')`), each of which a clean run
    of the turn already printed: an answer that restates the output, written as code."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    texts = []
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"
                and not call.keywords and all(isinstance(arg, ast.Constant) for arg in call.args)):
            return False
        texts += [str(arg.value).strip() for arg in call.args if isinstance(arg, ast.Constant)]
    return bool(texts) and all(text and any(text in output for output in outputs) for text in texts)


def nothing_found(output: str) -> bool:
    """Whether the output shows only zeros or empty containers: at least one, and no other number or value."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return False
    for line in lines:
        values = _NUMBER.findall(line)
        tail = line.rsplit(":", 1)[-1].strip() if ":" in line else line
        if values and all(float(v) == 0 for v in values) and not re.search(r"\d", _NUMBER.sub("", line)):
            continue
        if tail in _EMPTY or line in _EMPTY:
            continue
        return False
    return True


@dataclass(frozen=True)
class Unrounded:
    """A number in the output with more decimals than the request asks for: what it asks (its own words), the
    number, and how many decimals it wants (0: whole units)."""

    asked: str
    number: str
    places: int


def unrounded(request: str, output: str) -> Unrounded | None:
    """Whether the last number the output shows has more decimals than the request asks for ("rounded to 2
    decimals", "in whole minutes"); a number the request itself holds is not the answer and is passed over."""
    whole = _WHOLE.search(request)
    asked = whole or _PLACES.search(request)
    if asked is None:
        return None
    wanted = 0 if whole else int(_DIGITS.get(asked[1].lower(), asked[1]))
    given = set(_NUMBER.findall(request))
    numbers = [n for n in _NUMBER.findall(output) if n not in given]
    if not numbers:
        return None
    fraction = numbers[-1].partition(".")[2]
    too_many = len(fraction) > wanted if wanted else bool(fraction.strip("0"))
    return Unrounded(asked[0], numbers[-1], wanted) if too_many else None


def rounded_up(before: Unrounded, output: str) -> str | None:
    """After whole units were asked for and `before` was shown unrounded: the output's last number when it is that
    number rounded up, which counts the last, incomplete unit as a whole one: round(152.71666666666667), 153, for
    "whole minutes", where 152 of them have passed. "The nearest whole number" asks for just that, and is left
    alone."""
    if before.places or "nearest" in before.asked.lower():
        return None
    numbers = _NUMBER.findall(output)
    previous = float(before.number)
    if not numbers or float(numbers[-1]) != math.ceil(previous) or math.ceil(previous) == math.floor(previous):
        return None
    return numbers[-1]


def one_for_groups(request: str, output: str) -> str | None:
    """The group a request counts or sums by ("count the files by extension", "how many lines of each level") when
    the output shows a single number: asked to count the files of a folder by extension, code that counts one
    extension alone answers a part of the request. "Of each line" says where the data is, not how to group it."""
    match = _GROUPED.search(request)
    if not match or match[1].lower() in _NOT_GROUPS or len(_NUMBER.findall(output)) != 1:
        return None
    return match[1]


def date_alone(request: str, output: str) -> str | None:
    """The date the output shows without a time of day, when the request asks for a timestamp: for the timestamp of
    the first ERROR line of a log whose lines begin `2024-05-01 10:02:13`, code that prints the line's first word
    prints the date alone."""
    if not _TIMESTAMP.search(request) or _TIME.search(output):
        return None
    dates = _DATE.findall(output)
    return "-".join(dates[-1]) if dates else None


@dataclass(frozen=True)
class Factors:
    """A dict of time units whose values disagree: by `name`, one `big` is `says` `small`s; it is `real` of them."""

    name: str
    big: str
    small: str
    says: str
    real: str


def unit_factors(code: str) -> Factors | None:
    """A dict the code writes out whose keys are units of time and whose values, read as what one of each is worth,
    disagree with the clock: {'h': 60, 'm': 1, 's': 0.01} makes a minute 100 seconds. Given code that weighs each
    number by its unit to fill in (hints.py), a model may fill in such a factor, and the total is a little off."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Dict)):
            continue
        worth = {}
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            unit = key.value.lower() if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""
            number = _arithmetic(value)
            if unit in _CLOCK and number:
                worth[unit] = number
        units = sorted(worth, key=lambda u: -_CLOCK[u])
        for big, small in zip(units, units[1:], strict=False):
            says, real = worth[big] / worth[small], _CLOCK[big] / _CLOCK[small]
            if abs(says - real) > 1e-6 * real:
                return Factors(ast.unparse(node.targets[0]), big, small, f"{says:g}", f"{real:g}")
    return None


@dataclass(frozen=True)
class Conversion:
    """The request says 1 `one` = `factor` `other`s, and asks for an answer in `other`."""

    one: str
    factor: str
    other: str


def divided_conversion(request: str, code: str) -> Conversion | None:
    """A conversion the request states ("1 mile = 1.609344 km") that the code divides by, though the request asks for
    the answer in the unit the factor converts to ("in km/h"): dividing turns kilometres into miles (`150 / 2.5 /
    1.609344` for the speed in km/h of a car that drove 150 miles)."""
    stated = _CONVERSION.search(request)
    rest = f"{request[:stated.start()]} {request[stated.end():]}" if stated else ""  # the request but the conversion
    if not stated or not re.search(rf"\bin {re.escape(stated[3])}\b", rest):
        return None
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    factor = float(stated[2])
    named = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and _arithmetic(node.value) == factor
             for target in node.targets if isinstance(target, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and (
                _arithmetic(node.right) == factor or isinstance(node.right, ast.Name) and node.right.id in named):
            return Conversion(stated[1], stated[2], stated[3])
    return None


def _arithmetic(node: ast.expr) -> float | None:
    """The value of a number written as constants and + - * /, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    operation = _OPERATIONS.get(type(node.op)) if isinstance(node, ast.BinOp) else None
    if isinstance(node, ast.BinOp) and operation:
        left, right = _arithmetic(node.left), _arithmetic(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Div) and not right):
            return None
        return float(operation(left, right))
    return None


def unmet(request: str, code: str, rules: dict[str, dict[str, str]], language: str = "python") -> list[str]:
    """The keys of the rules (prompts/unmet.json) for code in this language (a rule's `languages`, Python where it
    names none) whose words the request uses (`asks`) while the code holds none of what doing it takes (`code`):
    distinct emails "ignoring case" with no .lower(), weekdays with no weekday() (the days between the first and the
    last instead), files "in all its subfolders" counted from the top level alone (`ls`, os.listdir)."""
    return [key for key, rule in rules.items() if language in rule.get("languages", "python").split()
            and re.search(rule["asks"], request, re.I) and not re.search(rule["code"], code)]


def unused_quantities(request: str, code: str) -> list[str]:
    """The amounts with a unit the request gives ("30 minutes", "150 miles") whose number Python code computing the
    answer leaves out; a duration written in parts ("2 hours 30 minutes") counts as used when its total in one of its
    units (2.5, 150) is in the code. None when the code reads a file (the amounts may be the file's), and never an
    amount of 1 (a unit defined: "1 mile = 1.609344 km")."""
    quantities = [match for match in _QUANTITY.finditer(request) if float(match[1]) != 1]
    numbers = _code_numbers(code) if quantities else None
    if not numbers:
        return []
    used = {round(n, 6) for n in numbers}
    stated = {round(float(match[1]), 6) for match in quantities}
    whole: dict[str, str] = {}  # an amount that is part of a duration: the duration, and its total in its units
    for run in _durations(request):
        seconds = sum(float(match[1]) * _TIME_UNITS[match[2].lower()] for match in run)
        totals = {round(seconds / _TIME_UNITS[match[2].lower()], 6) for match in run}
        if totals & used - stated:  # a total that is not the number of another amount the request gives
            used |= {round(float(match[1]), 6) for match in run}
        # Both readings of the amount are said (2.5 hours or 150 minutes): told only that 30 minutes went unused, a
        # model may divide by 2 once more.
        ends = (run[0], run[-1])
        said = " or ".join(f"{seconds / _TIME_UNITS[m[2].lower()]:g} {_PLURAL[_TIME_UNITS[m[2].lower()]]}"
                           for m in ends)
        for match in run:
            whole[match[0]] = f"{match[0]} ({request[run[0].start():run[-1].end()]} is {said})"
    return [whole.get(match[0], match[0]) for match in quantities if round(float(match[1]), 6) not in used]


def _durations(request: str) -> list[list[re.Match[str]]]:
    """The durations written in parts: runs of amounts of time next to each other ("2 hours 30 minutes")."""
    runs: list[list[re.Match[str]]] = []
    run: list[re.Match[str]] = []
    for match in _QUANTITY.finditer(request):
        timed = match[2].lower() in _TIME_UNITS
        if timed and run and re.fullmatch(r"\s*(?:,|and)?\s*", request[run[-1].end():match.start()]):
            run.append(match)
            continue
        if len(run) > 1:
            runs.append(run)
        run = [match] if timed else []
    return runs + [run] if len(run) > 1 else runs


def _code_numbers(code: str) -> set[float] | None:
    """The numbers written in Python code; None when it does not parse or opens a file."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    nodes = list(ast.walk(tree))
    if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open" for node in nodes):
        return None
    return {float(node.value) for node in nodes if isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)}


def unused_dates(request: str, code: str) -> list[str]:
    """The ISO dates (2024-07-19) the request gives whose text the code does not hold and whose year, month and day
    are not all numbers in it (`date(2024, 7, 19)`); none when the code reads a file or the request gives none."""
    dates = {match[0]: {int(match[1]), int(match[2]), int(match[3])} for match in _DATE.finditer(request)}
    if not dates:
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open"
           for node in ast.walk(tree)):
        return []  # the dates may be the file's, read from it
    numbers = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, int)}
    return [date for date, parts in dates.items() if date not in code and not parts <= numbers]


def functions(code: str) -> set[str]:
    """The functions Python code defines at its top level."""
    try:
        return _defined(ast.parse(code))
    except (SyntaxError, ValueError):
        return set()


def _defined(tree: ast.Module) -> set[str]:
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def unused_functions(request: str, code: str, defined: set[str]) -> list[str]:
    """The functions defined earlier (`defined`) whose name the request holds as a word, in any case ("the Celsius
    values" for celsius), that the code neither calls nor names."""
    named = [name for name in sorted(defined) if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", request, re.I)]
    if not named:
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | _defined(tree)
    return [name for name in named if name not in used]
