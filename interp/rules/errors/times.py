"""Rules for timestamps: a strptime format given to re."""

from __future__ import annotations

import re

from interp.common.textclean import arrow_lines
from interp.rules.facts import Facts
from interp.rules.rule import Finding

_REGEX_CALL = re.compile(r"\bre\.(?:match|search|fullmatch|findall)\(\s*(?:(\w+)|(['\"])(.*?)\2)")
_DIRECTIVES = re.compile(r"%[YmdHMSbBaAyIpfz]")


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
