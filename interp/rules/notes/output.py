"""Notes on what a clean run's output shows against what the request asks: text typed into the code and printed, a
number with more decimals than asked."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from interp.rules.facts import Facts
from interp.rules.rule import Finding, Rule, Scope

ANY = Scope(languages=())  # the output's notes hold for code in any language
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_WORD = re.compile(r"-?\d+\.\d+|\w+")  # a word, or a number with its decimals
_DIGITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# "rounded to 2 decimals", "to two decimal places", "a float with two decimal places", "up to 3 decimal points", "a
# maximum of three decimal places": a count of decimals, however the request says it.
_COUNT = r"(\d|one|two|three|four|five|six)"
_PLACES = re.compile(rf"\b(?:rounded (?:off )?to {_COUNT} digits?|(?:(?:rounded (?:off )?)?to |with |of )?{_COUNT} "
                     r"decimals?(?: (?:places?|points?|digits?))?)\b", re.I)
_WHOLE = re.compile(r"\b(?:whole (?:seconds|minutes|hours|days|weeks|months|years|numbers?|units)|nearest (?:whole "
                    r"number|integer)|as an integer)\b", re.I)


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
    can. Text whose values an earlier run of the turn printed is a result restated, not a guess (asked for an answer
    in a given form, a model often prints the value it was shown once more), and is left alone."""
    return Finding() if only_typed(facts) and not restated(facts) else None


def restated(facts: Facts) -> bool:
    """Whether every word and number the output shows was shown before: by an earlier clean run of the turn, or in
    the request (an answer's names), a number also when it is an earlier one rounded (`0.67` of `0.6712`)."""
    if not facts.shown:
        return False
    before = " ".join([*facts.shown, facts.sent])
    words, numbers = set(_WORD.findall(before)), [float(n) for n in NUMBER.findall(" ".join(facts.shown))]
    for token in _WORD.findall(facts.output):
        if token in words:
            continue
        if not NUMBER.fullmatch(token):
            return False
        places = len(token.partition(".")[2])
        if not any(round(n, places) == float(token) for n in numbers):
            return False
    return True


def places_of(asked: re.Match[str]) -> int:
    count = asked[1] or asked[2]
    return int(_DIGITS.get(count.lower(), count))


def places_asked(request: str) -> int | None:
    """The decimals a request asks its numbers in (0 for whole units), when it asks one count; None when it asks
    none, or several (each part its own)."""
    if _WHOLE.search(request):
        return 0 if not _PLACES.search(request) else None
    counts = {places_of(found) for found in _PLACES.finditer(request)}
    return counts.pop() if len(counts) == 1 else None


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
    wanted = 0 if whole else places_of(asked)
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


RULES = [
    Rule("typed", "after_run", _typed),
    Rule("unrounded", "after_run", _unrounded, ANY, once=True),
]
