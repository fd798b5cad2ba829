"""Notes on units in clean Python code: a dict of units of time whose values disagree with the clock, and a conversion
the request states that the code divides by where it converts to the unit asked for. The units' tables are here too,
for the amounts a request gives (request.py)."""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass

from interp.rules.base import Finding, Rule
from interp.rules.facts import Facts

# No one-letter units: "the 1990s" is no amount of seconds.
_TIME_WORDS = ((1, "sec secs second seconds"), (60, "min mins minute minutes"), (3600, "hr hrs hour hours"),
               (86400, "day days"), (604800, "week weeks"))  # each unit's words, its plural last
TIME_UNITS = {unit: seconds for seconds, units in _TIME_WORDS for unit in units.split()}
PLURAL = {seconds: units.split()[-1] for seconds, units in _TIME_WORDS}
_CLOCK = {**TIME_UNITS, "s": 1, "m": 60, "h": 3600, "d": 86400}  # in code's dicts one letter is a unit
_OPERATIONS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_OTHER_UNITS = ("mile", "miles", "km", "kilometers", "kilometres", "meters", "metres", "kg", "grams", "pounds", "lb",
                "lbs", "liters", "litres", "gallons", "mph", "km/h", "bytes", "kb", "mb", "gb", "tb", "kib", "mib",
                "gib")
QUANTITY = re.compile(r"(?<![\w.,])(\d+(?:\.\d+)?)\s?(" + "|".join(
    sorted(map(re.escape, [*TIME_UNITS, *_OTHER_UNITS]), key=len, reverse=True)) + r")(?![\w/])", re.I)
_CONVERSION = re.compile(r"\b1 ([A-Za-z]+) ?= ?(\d+(?:\.\d+)?) ?([A-Za-z]+)\b")  # 1 mile = 1.609344 km


def arithmetic(node: ast.expr) -> float | None:
    """The value of a number written as constants and + - * /, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    operation = _OPERATIONS.get(type(node.op)) if isinstance(node, ast.BinOp) else None
    if isinstance(node, ast.BinOp) and operation:
        left, right = arithmetic(node.left), arithmetic(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Div) and not right):
            return None
        return float(operation(left, right))
    return None


@dataclass(frozen=True)
class Factors:
    """A dict of time units whose values disagree: by `name`, one `big` is `says` `small`s; it is `real` of them."""

    name: str
    big: str
    small: str
    says: str
    real: str


def unit_factors(tree: ast.Module | None) -> Factors | None:
    """A dict the code writes out whose keys are units of time and whose values, read as what one of each is worth,
    disagree with the clock: {'h': 60, 'm': 1, 's': 0.01} makes a minute 100 seconds."""
    for node in tree.body if tree else []:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Dict)):
            continue
        worth = {}
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            unit = key.value.lower() if isinstance(key, ast.Constant) and isinstance(key.value, str) else ""
            number = arithmetic(value)
            if unit in _CLOCK and number:
                worth[unit] = number
        units = sorted(worth, key=lambda u: -_CLOCK[u])
        for big, small in zip(units, units[1:], strict=False):
            says, real = worth[big] / worth[small], _CLOCK[big] / _CLOCK[small]
            if abs(says - real) > 1e-6 * real:
                return Factors(ast.unparse(node.targets[0]), big, small, f"{says:g}", f"{real:g}")
    return None


def _unit_factors(facts: Facts) -> Finding | None:
    """A dict of units of time whose values, read as what one of each is worth, disagree with the clock
    ({'h': 60, 'm': 1, 's': 0.01} makes a minute 100 seconds): code that weighs each number by its unit then totals a
    little off. The reading is a guess: a dict of how many of each unit make an hour ({'h': 1, 'm': 60}) reads as
    one that disagrees, so the note asks whether it is meant."""
    found = None if facts.failed else unit_factors(facts.tree)
    if found is None:
        return None
    return Finding({"name": found.name, "big": repr(found.big), "small": repr(found.small), "says": found.says,
                    "real": found.real})


@dataclass(frozen=True)
class Conversion:
    """The request says 1 `one` = `factor` `other`s, and asks for an answer in `other`."""

    one: str
    factor: str
    other: str


def divided_conversion(request: str, tree: ast.Module | None) -> Conversion | None:
    """A conversion the request states ("1 mile = 1.609344 km") that the code divides by, though the request asks for
    the answer in the unit the factor converts to ("in km/h")."""
    stated = _CONVERSION.search(request)
    rest = f"{request[:stated.start()]} {request[stated.end():]}" if stated else ""  # the request but the conversion
    if not stated or not re.search(rf"\bin {re.escape(stated[3])}\b", rest) or tree is None:
        return None
    factor = float(stated[2])
    named = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and arithmetic(node.value) == factor
             for target in node.targets if isinstance(target, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and (
                arithmetic(node.right) == factor or isinstance(node.right, ast.Name) and node.right.id in named):
            return Conversion(stated[1], stated[2], stated[3])
    return None


def _divided_conversion(facts: Facts) -> Finding | None:
    """A conversion the request states ("1 mile = 1.609344 km") that the code divides by, where the request asks for
    the unit the factor converts to ("in km/h"): dividing turns kilometres into miles (`150 / 2.5 / 1.609344` for the
    speed in km/h of a car that drove 150 miles). Code may divide by the factor on the way for another reason, so the
    note says which way each operation goes and asks."""
    found = None if facts.failed else divided_conversion(facts.typed, facts.tree)
    return Finding({"one": found.one, "factor": found.factor, "other": found.other}) if found else None


RULES = [
    Rule("unit_factors", "after_run", _unit_factors, once=True, general=False),
    Rule("divided_conversion", "after_run", _divided_conversion, once=True, general=False),
]
