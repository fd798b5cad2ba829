"""Notes on what clean Python code leaves out of the request: a date it gives, an amount with a unit it gives, a
function of the session it names."""

from __future__ import annotations

import ast
import re

from interp.rules.base import Finding, Rule
from interp.rules.facts import Facts
from interp.rules.notes.output import DATE, only_typed
from interp.rules.notes.units import PLURAL, QUANTITY, TIME_UNITS


def _opens(tree: ast.Module) -> bool:
    """Whether the code opens a file: the numbers the request gives may be the file's, read from it."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open"
               for node in ast.walk(tree))


def unused_dates(request: str, code: str, tree: ast.Module | None) -> list[str]:
    """The ISO dates (2024-07-19) the request gives whose text the code does not hold and whose year, month and day
    are not all numbers in it (`date(2024, 7, 19)`); none when the code reads a file or the request gives none."""
    dates = {match[0]: {int(match[1]), int(match[2]), int(match[3])} for match in DATE.finditer(request)}
    if not dates or tree is None or _opens(tree):
        return []
    numbers = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, int)}
    return [date for date, parts in dates.items() if date not in code and not parts <= numbers]


def _unused_dates(facts: Facts) -> Finding | None:
    """A date the request gives that the code does not use whole: `2024 - 1990` for how old someone born on
    1990-07-20 was on 2024-07-19 leaves out the month and the day. Read from the request's ISO dates; code that uses
    only a date's year on purpose is told too, so the note asks whether the answer depends on them."""
    dates = [] if facts.failed or only_typed(facts) else unused_dates(facts.typed, facts.code, facts.tree)
    return Finding({"dates": " and ".join(dates)}) if dates else None


def unused_quantities(request: str, tree: ast.Module | None) -> list[str]:
    """The amounts with a unit the request gives ("30 minutes", "150 miles") whose number Python code computing the
    answer leaves out; a duration written in parts ("2 hours 30 minutes") counts as used when its total in one of its
    units (2.5, 150) is in the code. None when the code reads a file (the amounts may be the file's), and never an
    amount of 1 (a unit defined: "1 mile = 1.609344 km")."""
    quantities = [match for match in QUANTITY.finditer(request) if float(match[1]) != 1]
    numbers = _code_numbers(tree) if quantities else None
    if not numbers:
        return []
    used = {round(n, 6) for n in numbers}
    stated = {round(float(match[1]), 6) for match in quantities}
    whole: dict[str, str] = {}  # an amount that is part of a duration: the duration, and its total in its units
    for run in _durations(request):
        seconds = sum(float(match[1]) * TIME_UNITS[match[2].lower()] for match in run)
        totals = {round(seconds / TIME_UNITS[match[2].lower()], 6) for match in run}
        if totals & used - stated:  # a total that is not the number of another amount the request gives
            used |= {round(float(match[1]), 6) for match in run}
        # Both readings of the amount are said (2.5 hours or 150 minutes): told only that 30 minutes went unused, a
        # model may divide by 2 once more.
        ends = (run[0], run[-1])
        said = " or ".join(f"{seconds / TIME_UNITS[m[2].lower()]:g} {PLURAL[TIME_UNITS[m[2].lower()]]}"
                           for m in ends)
        for match in run:
            whole[match[0]] = f"{match[0]} ({request[run[0].start():run[-1].end()]} is {said})"
    return [whole.get(match[0], match[0]) for match in quantities if round(float(match[1]), 6) not in used]


def _durations(request: str) -> list[list[re.Match[str]]]:
    """The durations written in parts: runs of amounts of time next to each other ("2 hours 30 minutes")."""
    runs: list[list[re.Match[str]]] = []
    run: list[re.Match[str]] = []
    for match in QUANTITY.finditer(request):
        timed = match[2].lower() in TIME_UNITS
        if timed and run and re.fullmatch(r"\s*(?:,|and)?\s*", request[run[-1].end():match.start()]):
            run.append(match)
            continue
        if len(run) > 1:
            runs.append(run)
        run = [match] if timed else []
    return runs + [run] if len(run) > 1 else runs


def _code_numbers(tree: ast.Module | None) -> set[float] | None:
    """The numbers written in Python code; None when it does not parse or opens a file."""
    if tree is None or _opens(tree):
        return None
    return {float(node.value) for node in ast.walk(tree) if isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)}


def _unused_quantities(facts: Facts) -> Finding | None:
    """An amount with a unit the request gives that the code leaves out: for the speed of a car that drives 150 miles
    in 2 hours 30 minutes, a division by 2. Read from the request's amounts and units; code may leave one out on
    purpose, so the note asks whether the answer depends on it."""
    amounts = [] if facts.failed or only_typed(facts) else unused_quantities(facts.typed, facts.tree)
    return Finding({"quantities": " and ".join(amounts)}) if amounts else None


def functions_of(tree: ast.Module | None) -> set[str]:
    """The functions Python code defines at its top level."""
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))} if tree \
        else set()


def unused_functions(request: str, tree: ast.Module | None, functions: frozenset[str]) -> list[str]:
    """The functions defined earlier (`functions`) whose name the request holds as a word, in any case ("the Celsius
    values" for celsius), that the code neither calls nor names."""
    named = [name for name in sorted(functions) if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", request, re.I)]
    if not named or tree is None:
        return []
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | functions_of(tree)
    return [name for name in named if name not in used]


def _unused_functions(facts: Facts) -> Finding | None:
    """A function an earlier run of the session defined, which the request names, and the code does not call: told
    to define celsius(f) and then to print "the Celsius values of temps_f", code that prints the list as it was. A
    function's name may be a word the request uses in another sense ("the total"), so the note asks whether the
    request means it."""
    unused = [] if facts.failed else unused_functions(facts.typed, facts.tree, facts.functions)
    return Finding({"name": unused[0]}) if unused else None


RULES = [
    Rule("unused_dates", "after_run", _unused_dates, once=True, general=False),
    Rule("unused_quantities", "after_run", _unused_quantities, once=True, general=False),
    Rule("unused_functions", "after_run", _unused_functions, once=True, general=False),
]
