"""Notes on what a clean run's output shows against what the request asks: text typed into the code and printed, only
zeros and empty values, a number with more decimals than asked and then that number rounded up, a date without its
time, one number where the request counts by a group."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from interp.rules.base import Finding, Rule, Scope
from interp.rules.facts import Facts

ANY = Scope(languages=())  # the output's notes hold for code in any language
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_DIGITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_PLACES = re.compile(r"\b(?:rounded )?to (\d|one|two|three|four|five|six) (?:decimal|digit)s?(?: places?)?\b", re.I)
_WHOLE = re.compile(r"\b(?:whole (?:seconds|minutes|hours|days|weeks|months|years|numbers?|units)|nearest (?:whole "
                    r"number|integer)|as an integer)\b", re.I)
DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_GROUPED = re.compile(r"\b(?:count|counts|total|totals|sum|number|how many|average|mean)\b[^.?!]*?\b(?:by|per|for "
                      r"each|of each)\s+(?!\d)([a-z]+)", re.I)
_NOT_GROUPS = {"line", "lines", "row", "rows", "record", "records", "entry", "entries", "item", "items", "the", "a"}
_TIMESTAMP = re.compile(r"\btime ?stamps?\b|\bdate and time\b", re.I)
_TIME = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")
_EMPTY = {"[]", "{}", "()", "set()", "Counter()", "''", '""', "None"}  # an empty value as printed


def fence(facts: Facts) -> str:
    """The fence the model writes the code's language with: bash for shell commands."""
    return "bash" if facts.language == "shell" else facts.language


def only_typed(facts: Facts) -> bool:
    """Whether clean Python code only printed constants typed into it (`print('5')`, `print(f"x = {3}")`), and the
    output printed is not text the request holds (`Print 'Hello, World'`). Such code answers without computing, so
    the notes that weigh what the code did with the request are not said after it."""
    tree, output = facts.tree, facts.output.strip()
    if facts.failed or tree is None or not tree.body or not output or output in facts.sent:
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


def _typed(facts: Facts) -> Finding | None:
    """Code that only printed text typed into it (`print("2024-11-15 + 90 days = 2024-12-25")`) computed nothing: the
    text is the writer's guess, not a result, and the output cannot show whether it is right. Code that computes it
    can."""
    return Finding() if only_typed(facts) else None


def nothing_found(output: str) -> bool:
    """Whether the output shows only zeros or empty containers: at least one, and no other number or value."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    if not lines:
        return False
    for line in lines:
        values = NUMBER.findall(line)
        tail = line.rsplit(":", 1)[-1].strip() if ":" in line else line
        if values and all(float(v) == 0 for v in values) and not re.search(r"\d", NUMBER.sub("", line)):
            continue
        if tail in _EMPTY or line in _EMPTY:
            continue
        return False
    return True


def _nothing(facts: Facts) -> Finding | None:
    """Output that shows only zeros or empty containers (`INFO: 0 / WARNING: 0 / ERROR: 0`, `[]`) is most often the
    printed form of a condition that matched none of the data (`line.startswith('INFO ')` on lines that begin with a
    date): an empty result is more often a wrong condition than an answer, so the conditions are worth comparing with
    the data as it is."""
    if facts.failed or only_typed(facts) or not nothing_found(facts.output):
        return None
    return Finding({"language": fence(facts)})


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
    given = set(NUMBER.findall(request))
    numbers = [n for n in NUMBER.findall(output) if n not in given]
    if not numbers:
        return None
    fraction = numbers[-1].partition(".")[2]
    too_many = len(fraction) > wanted if wanted else bool(fraction.strip("0"))
    return Unrounded(asked[0], numbers[-1], wanted) if too_many else None


def _unrounded(facts: Facts) -> Finding | None:
    """A number printed with more decimals than the request asks for (152.71666666666667 for the "whole minutes"
    between two times, a float as it came for a value "rounded to 1 decimal") is not yet the answer asked for; how to
    print it as asked is a fact of Python (round(), format specs, int() and // for complete units)."""
    number = None if facts.failed else unrounded(facts.sent, facts.output)
    if number is None:
        return None
    return Finding({"asked": number.asked, "number": number.number, "places": number.places,
                    "language": fence(facts)}, "places" if number.places else "whole")


def rounded_up(before: Unrounded, output: str) -> str | None:
    """After whole units were asked for and `before` was shown unrounded: the output's last number when it is that
    number rounded up, which counts the last, incomplete unit as a whole one: round(152.71666666666667), 153, for
    "whole minutes", where 152 of them have passed. "The nearest whole number" asks for just that, and is left
    alone."""
    if before.places or "nearest" in before.asked.lower():
        return None
    numbers = NUMBER.findall(output)
    previous = float(before.number)
    if not numbers or float(numbers[-1]) != math.ceil(previous) or math.ceil(previous) == math.floor(previous):
        return None
    return numbers[-1]


def _rounded_up(facts: Facts) -> Finding | None:
    """Told a number was not in the whole units asked for, code that rounds it up (round(152.7) is 153) counts the
    last, incomplete unit as a whole one, where "whole minutes" passed are read as the complete ones. That reading of
    the request's words is a choice, not a fact of Python; the note says it as one. Said after the "unrounded" note of
    an earlier run of the turn (what it found is the number rounded)."""
    found = facts.earlier.get("unrounded")
    if facts.failed or not isinstance(found, Mapping):
        return None
    places = found.get("places")
    before = Unrounded(str(found["asked"]), str(found["number"]), places if isinstance(places, int) else 0)
    up = rounded_up(before, facts.output)
    if up is None:
        return None
    return Finding({"number": up, "previous": before.number, "asked": before.asked, "language": fence(facts)})


def date_alone(request: str, output: str) -> str | None:
    """The date the output shows without a time of day, when the request asks for a timestamp."""
    if not _TIMESTAMP.search(request) or _TIME.search(output):
        return None
    dates = DATE.findall(output)
    return "-".join(dates[-1]) if dates else None


def _date_alone(facts: Facts) -> Finding | None:
    """The request asks for a timestamp and the output shows a date alone: for the timestamp of the first ERROR line
    of a log whose lines begin `2024-05-01 10:02:13`, code that prints the line's first word prints the date without
    its time. Made for one shape of request (a log's timestamps), read from its words."""
    date = None if facts.failed else date_alone(facts.typed, facts.output)
    return Finding({"date": date, "language": fence(facts)}) if date else None


def one_for_groups(request: str, output: str) -> str | None:
    """The group a request counts or sums by ("count the files by extension", "how many lines of each level") when
    the output shows a single number. "Of each line" says where the data is, not how to group it."""
    match = _GROUPED.search(request)
    if not match or match[1].lower() in _NOT_GROUPS or len(NUMBER.findall(output)) != 1:
        return None
    return match[1]


def _one_for_groups(facts: Facts) -> Finding | None:
    """A request that counts or sums by a group, answered with a single number: asked to count the files of a folder
    by extension, code that counts one extension alone answers a part of the request. Read from the request's words
    (by, per, for each), which do not always ask for a count per group."""
    group = None if facts.failed else one_for_groups(facts.typed, facts.output)
    return Finding({"group": group, "language": fence(facts)}) if group else None


RULES = [
    Rule("typed", "after_run", _typed),
    Rule("nothing", "after_run", _nothing, ANY, once=True),
    Rule("unrounded", "after_run", _unrounded, ANY, once=True),
    Rule("rounded_up", "after_run", _rounded_up, ANY, once=True, general=False),
    Rule("date_alone", "after_run", _date_alone, ANY, once=True, general=False),
    Rule("one_for_groups", "after_run", _one_for_groups, ANY, once=True, general=False),
]
