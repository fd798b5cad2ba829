"""Rules for a string that float() or int() cannot read: what in it is not a number (data written "$1,200.00" or
"2,49", a header, a blank field, a piece of a timestamp, a slice past the end of its string)."""

from __future__ import annotations

import ast
import re
import sys

from interp.common.textclean import arrow_lines
from interp.rules.facts import Facts
from interp.rules.rule import Finding

_NOT_A_NUMBER = re.compile(r"^ValueError: (?:could not convert string to (float)|invalid literal for (int)\(\) with "
                           r"base 10): '(.*)'$", re.M)
_NUMBER_CHARS = set("0123456789.+-eE \t")
_NOISE = set("$€£¥%,'\"_\u00a0")  # what numbers are written with and cleaning drops: currency, separators, quotes
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # 1,200.00
_DECIMAL_COMMA = re.compile(r"\d+,\d+")  # 2,49 (and not 1,200, taken above)
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}:\d{2}")  # a piece of a timestamp: 2024-05-01, 10:02
_WHOLE_DATES = ((re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"), "%Y-%m-%d %H:%M:%S", "date and time"),
                (re.compile(r"\d{4}-\d{2}-\d{2}"), "%Y-%m-%d", "date"),
                (re.compile(r"\d{2}:\d{2}:\d{2}"), "%H:%M:%S", "time of day"),
                (re.compile(r"\d{2}:\d{2}"), "%H:%M", "time of day"))


def unreadable_number(facts: Facts) -> Finding | None:
    """For a string that float() or int() cannot read: what in it is not a number. Told only the ValueError, a model
    tends to strip one odd character and meet the next, or skip the value it needed."""
    match = _NOT_A_NUMBER.search(facts.error)
    if not match:
        return None
    convert, value = f"{match[1] or match[2]}()", match[3]
    if not value.strip():
        return _empty(facts.error, convert)
    if not any(c.isdigit() for c in value):
        return Finding({"value": value}, "none")
    for pattern, form, what in _WHOLE_DATES:
        if pattern.fullmatch(value.strip()):
            # A whole time such as '10:02:13': its format is the value's own (told the full timestamp's format, a
            # model parses '10:02:13' with '%Y-%m-%d %H:%M:%S').
            example = f"datetime.strptime({_converted(facts.error, convert[:-2])}.strip(), '{form}')"
            return Finding({"convert": convert, "value": value, "what": what, "example": example}, "when")
    if _DATE.search(value):
        # Split at ':' or '-', a timestamp gives pieces such as '2024-05-01 12', and float() fails the same way.
        return Finding({"convert": convert, "value": value}, "date")
    odd = list(dict.fromkeys(c for c in value if c not in _NUMBER_CHARS))
    chars = " and ".join(f"'{c}'" for c in odd)
    if odd and not set(odd) <= _NOISE:
        # '1/5/5/1' or '3x4' holds several numbers: told to drop the '/', a model does, and compares '1551'.
        return Finding({"convert": convert, "value": value, "chars": chars}, "parts")
    if odd:
        digits = re.sub(r"[^0-9,.]", "", value)
        comma = ("thousands" if _THOUSANDS.fullmatch(digits) else
                 "decimal" if _DECIMAL_COMMA.fullmatch(digits) else "")
        # Code to copy that removes every odd character at once: shown only the one left, a model may swap its
        # .replace(',', '') for .replace('$', '') and meet the comma again.
        cleaned = "".join(f".replace({c!r}, {'.' if c == ',' and comma == 'decimal' else ''!r})" for c in odd)
        example = f"{convert[:-2]}({_converted(facts.error, convert[:-2])}{cleaned}.strip())"
        return Finding({"convert": convert, "value": value, "chars": chars, "example": example},
                       f"chars_{comma}" if comma else "chars")
    return Finding({"value": value}, "whole") if match[2] else None


def _empty(error: str, convert: str) -> Finding:
    """An empty value: cut by a slice past the end of its string ('10:02:13'[11:13]), or read from a blank field.
    Told only to skip empty rows, a model guards against them and meets '' again; told where a slice's positions
    count from, it tries another slice."""
    cut = _sliced(_converted(error, convert[:-2]))
    if cut is None:
        return Finding({}, "empty")
    value, part, source = cut
    if source:
        return Finding({"value": value, "slice": part, "name": source}, "slice_whole")
    return Finding({"value": value, "slice": part}, "slice")


def _converted(error: str, convert: str) -> str:
    """What the failing line passes to float() or int(), as the traceback's arrow line shows it (`row['amount']`),
    so that the example is that line's own code; `value` when the line holds no single such call. Shown
    `float(value.replace(...))`, a model may copy the name `value` too and meet a NameError."""
    for line in reversed(arrow_lines(error)):
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        args = [ast.unparse(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name) and node.func.id == convert and len(node.args) == 1]
        if len(args) == 1:
            return args[0]
    return "value"


def _sliced(code: str) -> tuple[str, str, str] | None:
    """The string an expression slices, the slice, when it is a slice with a start (`group(0)[11:13]`), and the one
    variable that string was taken from (`line` in `re.search(p, line).group(0)`), or ''."""
    try:
        node = ast.parse(code, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is not None):
        return None
    names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} - set(sys.stdlib_module_names)
    called = any(isinstance(n, ast.Call) for n in ast.walk(node.value))  # a piece the code took out of that variable
    source = names.pop() if len(names) == 1 and called else ""
    return ast.unparse(node.value), f"[{ast.unparse(node.slice)}]", source
