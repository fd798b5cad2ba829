"""The form a request asks its answer in: `@name[value]` parts (a common way to ask for several named quantities,
as benchmarks and reports do). A final answer that leaves a part out, or gives it in other words, does not answer
the request: the model is asked once for every part in that form, from the output it was shown. A part may also be
given and still not answered: its brackets hold the request's own placeholder, a name in braces that a string
without the f prefix printed as it was, or a value outside the few the request allows for it. Output that gives
every part, each answered, is the answer itself: the turn ends on it (turn/policy/)."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

_PART = re.compile(r"@([A-Za-z_][\w.-]*)\[")
# A part and its value, which may hold brackets of its own: @years[[2008, 2009]].
_GIVEN = re.compile(r"@([A-Za-z_][\w.-]*)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]")
# A value in quotes: "x" or 'x' (not an apostrophe inside a word: the model's value isn't).
_QUOTED = re.compile(r"\"([^\"\n]{1,60})\"|(?<!\w)'([^'\n]{1,60})'(?!\w)")
# Where the description of one part ends: a sentence's end (not a decimal point), a line's, or the next clause.
_CLAUSE_END = re.compile(r"\.(?=\s|$)|\n|;|,\s+and\s|\bwhere\b", re.IGNORECASE)
_CLOSED = re.compile(r"\b(?:either|one of|can be|could be|must be|exact values?|string)\b", re.IGNORECASE)
_OPEN = re.compile(r"\b(?:for example|for instance|e\.g\.|such as|like)\b", re.IGNORECASE)
_STATED = r"\s+(?:is|are|should|must|can|could|will)\b"
_YES_NO = {"yes", "no", "true", "false"}
# A replacement field of str.format or an f-string, printed as written: {count}, {row['x']}, {mean:.2f}.
_FIELD = re.compile(r"\{[A-Za-z_][\w.]*(?:\[[^\]{}]*\])?(?:![rsa])?(?::[^{}]*)?\}")
_WORDS = re.compile(r"[^\W\d]+(?:[ _'\"-]+[^\W\d]*)*", re.UNICODE)  # text with no digit and no brackets: not a number
_NUMBER = re.compile(r"\b(?:numbers?|integers?|floats?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Part:
    """One `@name[placeholder]` part a request asks for: the placeholder its brackets hold in the request, the values
    the request allows for it (`options`; empty: any value), and whether the request says it is a number."""

    name: str
    placeholder: str = ""
    options: tuple[str, ...] = ()
    number: bool = False


def names(request: str) -> list[str]:
    """The names of the `@name[...]` parts the request asks for, in order, each once."""
    return list(dict.fromkeys(_PART.findall(request)))


def parts(request: str) -> list[Part]:
    """The parts the request asks for, in order, each with its placeholder and what the request says of its value."""
    placeholders: dict[str, str] = {}
    for name, placeholder in _GIVEN.findall(request):
        placeholders.setdefault(name, placeholder.strip())
    terms = {term for name in names(request) for term in (name, _unquoted(placeholders.get(name, ""))) if term}
    found = []
    for name in names(request):
        placeholder = placeholders.get(name, "")
        spans = _descriptions(request, [term for term in dict.fromkeys((_unquoted(placeholder), name)) if term], terms)
        found.append(Part(name, placeholder, _slashed(placeholder) or _listed(spans),
                          any(_NUMBER.search(span) and "string" not in span for span in spans)))
    return found


def _descriptions(request: str, own: list[str], terms: Collection[str]) -> list[str]:
    """What the request says of a part where it describes it by one of `own` (its placeholder, its name):
    `"decision" is a string ...`, each up to the end of that clause or the description of another of `terms` (the
    names and placeholders of the request's other parts). Parts described together (`"a" and "b" are strings
    ...`) share theirs."""
    others = "|".join(re.escape(term) for term in sorted(set(terms) - set(own), key=len, reverse=True))
    together = re.compile(rf"(?:\s*(?:,|and|, and)\s*[\"'](?:{others})[\"'])+") if others else None
    other = re.compile(rf"[\"'](?:{others})[\"']") if others else None
    spans = []
    for term in own:
        mention = re.compile(rf"[\"']{re.escape(term)}[\"']|(?<![\w\"']){re.escape(term)}(?={_STATED})")
        for found in mention.finditer(request):
            start = found.end()
            if together and (joined := together.match(request, start)):
                start = joined.end()
            ends = [match.start() for match in (_CLAUSE_END.search(request, start),
                                                other.search(request, start) if other else None) if match]
            spans.append(request[start:min(ends, default=len(request))])
    return spans


def _slashed(placeholder: str) -> tuple[str, ...]:
    """The values a placeholder lists itself: `"Yes"/"No"` (quoted) or `yes/no`."""
    pieces = [piece.strip() for piece in placeholder.split("/")]
    if len(pieces) > 1 and all(_unquoted(piece) != piece or piece.lower() in _YES_NO for piece in pieces):
        return tuple(_unquoted(piece) for piece in pieces)
    return ()


def _listed(spans: list[str]) -> tuple[str, ...]:
    """The values a description allows, when it lists them as a closed set (`either "a" or "b"`, `a string that can
    be "x", "y", or "z"`), not as examples (`for example "0-1"`)."""
    for span in spans:
        listed = [a or b for a, b in _QUOTED.findall(span)]
        if len(listed) > 1 and " or " in span and _CLOSED.search(span) and not _OPEN.search(span):
            return tuple(dict.fromkeys(listed))
    return ()


def missing(reply: str, wanted: list[str]) -> list[str]:
    """The parts of `wanted` the reply does not give as `@name[...]`."""
    given = set(_PART.findall(reply))
    return [name for name in wanted if name not in given]


def given(text: str) -> dict[str, str]:
    """What the text gives each part as: the value in its brackets, the last one where a part comes more than once
    (as a reader takes the answer), stripped."""
    return {name: value.strip() for name, value in _GIVEN.findall(text)}


def without_parts(text: str) -> str:
    """The text with its `@name[value]` parts left out: what it says in words."""
    return _GIVEN.sub("", text)


def unfilled(part: Part, value: str) -> str:
    """Why a part given as `value` is not answered: "braces" (a name in braces, `{count}` or `{mean:.2f}`, as a string
    without the f prefix prints it), "number" (no digit at all where the request asks for a number: a placeholder
    such as `num_missing` copied, or nan), "option" (a value other than those the request allows, as it spells them);
    "" when it may be."""
    if _FIELD.fullmatch(value):
        return "braces"
    if part.number and _WORDS.fullmatch(value):
        return "number"
    if part.options and _unquoted(value) not in part.options:
        return "option"
    return ""


def answered(wanted: list[Part], outputs: list[str], places: int | None = None) -> bool:
    """Whether these outputs give every part the request asks for, each answered (unfilled) and, where the request
    asks its numbers in `places` decimals, none with more: then the output is the answer, in the form the request
    asks for, and a reply could only say it again."""
    values = given("\n".join(outputs))
    return bool(wanted) and all(part.name in values and not unfilled(part, values[part.name])
                                and not _too_precise(values[part.name], places) for part in wanted)


def _too_precise(value: str, places: int | None) -> bool:
    """Whether a part's value is a number with more decimals than asked (12.3456 where two are asked)."""
    if places is None or not re.fullmatch(r"\s*-?\d+\.\d+\s*", value):
        return False
    return len(value.strip().partition(".")[2].rstrip("0")) > places


def _unquoted(text: str) -> str:
    return text.strip().strip("\"'").strip()
