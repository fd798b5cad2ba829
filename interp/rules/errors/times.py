"""Rules for timestamps: strptime given a string that is not all its format, and a strptime format given to re."""

from __future__ import annotations

import re
from datetime import datetime

from interp.rules.base import Finding
from interp.rules.facts import Facts
from interp.textclean import arrow_lines

_TIME_DATA = re.compile(r"^ValueError: time data (['\"])(.*)\1 does not match format (['\"])(.*)\3$", re.M)
_UNCONVERTED = re.compile(r"^ValueError: unconverted data remains: (.*)$", re.M)
_STRPTIME = re.compile(r"strptime\(\s*([^,()]+(?:\([^()]*\))?[^,()]*),\s*(['\"])(.+?)\2")
_FIXED_WIDTH = re.compile(r"^(?:%[YmdHMS]|[^%])*$")  # directives that always print as many characters
_REGEX_CALL = re.compile(r"\bre\.(?:match|search|fullmatch|findall)\(\s*(?:(\w+)|(['\"])(.*?)\2)")
_DIRECTIVES = re.compile(r"%[YmdHMSbBaAyIpfz]")


def time_format(facts: Facts) -> Finding | None:
    """For strptime and a string that is not all the format: the part of the format the string does hold (told only
    "time data '2024-05-01' does not match format '%Y-%m-%d %H:%M:%S'", a model may keep passing `line.split()[0]`,
    the date alone), or, when the string goes on after the format, its start to give it instead. Which part of the
    string is wanted (the date alone, the timestamp at a line's start) is a guess from the shape of log data, not a
    fact of strptime."""
    match = _TIME_DATA.search(facts.error)
    if match:
        value, form = match[2].strip(), match[4]
        words = form.split()
        for count in range(len(words) - 1, 0, -1):
            for part in (" ".join(words[:count]), " ".join(words[-count:])):
                try:
                    datetime.strptime(value, part)
                except ValueError:
                    continue
                return Finding({"value": value, "part": part, "form": form}, "part")
        return None
    match = _UNCONVERTED.search(facts.error)
    calls = [found for line in arrow_lines(facts.error) for found in _STRPTIME.findall(line)]
    if not match or not calls:
        return None
    argument, _, form = calls[-1]
    width = len(datetime(2000, 1, 1).strftime(form)) if _FIXED_WIDTH.match(form) else 0
    if width:
        return Finding({"rest": match[1].strip(), "form": form, "start": f"{argument.strip()}[:{width}]"}, "rest")
    return Finding({"rest": match[1].strip(), "form": form, "argument": argument.strip()}, "rest_unsized")


def strptime_regex(facts: Facts) -> Finding | None:
    """For re.match(...).group() on None where the pattern is a strptime format ('%Y-%m-%d %H:%M:%S'): re reads
    '%Y' as the characters % and Y. Told only that the match was None, a model tends to guard the match with an `if`
    and so hide the mistake, instead of giving the format to strptime."""
    if "AttributeError: 'NoneType' object has no attribute" not in facts.error:
        return None
    for line in arrow_lines(facts.error):
        for call in _REGEX_CALL.finditer(line):
            pattern = call[3]
            if call[1]:
                assigned = re.search(rf"^\s*{re.escape(call[1])}\s*=\s*(['\"])(.*?)\1\s*$", facts.code, re.M)
                pattern = assigned[2] if assigned else None
            if pattern and (directive := _DIRECTIVES.search(pattern)):
                return Finding({"pattern": pattern, "directive": directive[0], "letter": directive[0][1]})
    return None
