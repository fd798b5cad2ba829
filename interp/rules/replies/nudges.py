"""Replies asked for once more, with a note: an empty one, an answer guessed from a file's preview before any code
ran, a final answer that leaves out parts of the form the request asks for (asked for begun in that form, or, when the
turn's code printed nothing, asked for with code that prints them), and one that gives a part without answering it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from interp.rules import answer_form
from interp.rules.replies.reply_facts import ReplyFacts, reply_rule
from interp.rules.rule import Act, Finding

SAID_WORDS = 3  # an answer with fewer words besides its @name[value] parts said nothing in words
SAID_CHARS = 300  # of those words, quoted back


def empty_reply(facts: ReplyFacts) -> Finding | None:
    """An empty reply is neither an answer nor code: the model is asked once more (once a turn, with unran)."""
    return Finding(variant="note") if not facts.reply.strip() and not facts.nudged else None


def guessed_from_preview(facts: ReplyFacts) -> Finding | None:
    """An answer about data the session can read, given with no code behind it, is a guess. About a file the request
    names, it is read off interp's preview, which may be cut short; about what the kernel holds (a frame, a model, a
    variable the request names, or one of its columns), it comes from the model's memory of the conversation, or from
    nowhere ("which column is most correlated with GRADE?" answered at once, and wrongly). Told that and asked for code,
    a model writes code; drawn again as it was, it mostly guesses again. Not a reply that asks the user something
    back, nor one whose numbers all come from what earlier code printed. Once a turn (with empty)."""
    if facts.blocks or facts.steps or facts.nudged or not facts.reply.strip():
        return None
    if facts.described:
        return Finding({"files": " and ".join(name for name, _ in facts.files)}, "note")
    names = data_named(facts.typed, facts.held)
    if not names or asks_back(facts.reply) or backed(facts.reply, facts.printed):
        return None
    return Finding({"files": " and ".join(f"`{name}`" for name in names)}, "held")


def unformed_answer(facts: ReplyFacts) -> Finding | None:
    """A final answer, after code ran, that leaves out `@name[value]` parts the request asks for (answer_form.py),
    when the turn's code printed nothing: there is no output to take the values from, so the model is asked once for
    code that prints every part. General: it reads only the form the request itself spells out and whether anything
    was printed, and a value nothing showed cannot be written from the output, whatever the model."""
    if facts.formed or any(output.strip() for output in facts.outputs) or not (left := _left_out(facts)):
        return None
    return Finding({"forms": " ".join(f"@{name}[...]" for name in facts.answer_names),
                    "missing": ", ".join(f"@{name}[...]" for name in left), "parts": ", ".join(left)}, "note")


def form_opening(facts: ReplyFacts) -> Finding | None:
    """A final answer, after code ran, that leaves out `@name[value]` parts the request asks for (after unformed, which
    comes first when the turn's code printed nothing): the answer is asked for once more, and its reply begins with the
    first missing part's `@name[`, so that it is written in the form the request asks for, each value from the output.
    Asked in words (with the offer of code for a value the output does not show), a small model mostly printed the
    values again and answered in prose once more, two calls later; begun in the form, it writes the value the output
    showed (docs/evaluation.md). Parts the turn's output already gives in that form count as given. General: the form is
    the request's own, and beginning a reply with it is a way to ask for that form that any model follows."""
    if facts.opened or not (left := _left_out(facts)):
        return None
    return Finding({"forms": " ".join(f"@{name}[...]" for name in facts.answer_names),
                    "parts": ", ".join(left), "opening": f"@{left[0]}["}, "note")


def unfilled_answer(facts: ReplyFacts) -> Finding | None:
    """A final answer, after code ran, that gives a part of the request's `@name[value]` form without answering it
    (answer_form.unfilled): a name in braces that a string without the f prefix printed as written, no number where
    the request asks for one (its placeholder copied, nan), or a value other than the few the request allows for it.
    What counts is the last value each part was given in the turn's output and the reply, as a reader takes it. The
    model is asked once a turn, told which part and why; for a value outside those allowed, with what its answer said
    in words, if it said something ("the ages are skewed to the left"): a model that concluded rightly in words but
    gave a number in the part, asked only to choose, often chose another value. General: it reads only what the
    request itself says of its parts, and a value of a kind the request rules out does not answer it, whatever the
    model and the data."""
    if facts.blocks or not facts.steps or not facts.answer_parts:
        return None
    values = answer_form.given("\n".join([*facts.outputs, facts.reply]))
    unmet = [(part, values[part.name], why) for part in facts.answer_parts
             if part.name in values and (why := answer_form.unfilled(part, values[part.name]))]
    if not unmet:
        return None
    part, value, why = unmet[0]
    said = " ".join(answer_form.without_parts(facts.reply).split())
    if why == "option" and len(said.split()) >= SAID_WORDS:
        why = "option_said"  # the answer's own words: what it concluded, to be written as one of the values
    return Finding({"forms": " ".join(f"@{name}[...]" for name in facts.answer_names), "name": part.name,
                    "given": f"@{part.name}[{value}]", "field": value.strip("{}").split(":")[0].split("!")[0],
                    "allowed": " or ".join(f'"{option}"' for option in part.options), "said": said[:SAID_CHARS],
                    "unmet": ", ".join(f"@{part.name}[{value}]" for part, value, _ in unmet)}, why)


def _left_out(facts: ReplyFacts) -> list[str]:
    """The `@name[value]` parts the request asks for that a final answer, after code ran, leaves out: given neither in
    the reply nor in the turn's output. None for a reply with code, before any code ran, or when no form is asked."""
    if facts.blocks or not facts.steps or not facts.answer_names:
        return []
    return answer_form.missing("\n".join([*facts.outputs, facts.reply]), facts.answer_names)


_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?")
_DATA_WORD = re.compile(r"\b(?:data(?:set|sets|frame|frames)?|frames?|tables?|columns?|rows?|records?|entries|"
                        r"observations?|values?|features?|models?|series|arrays?)\b", re.I)
_KINDS_OF_DATA = ("DataFrame", "Series", "ndarray", "list", "dict", "tuple", "set")


def data_named(request: str, held: Sequence[tuple[str, str, str]]) -> list[str]:
    """The names of what the kernel holds that a request is about: those it names, or whose columns it names; or,
    when it speaks of data in general words (the dataset, the columns, the model), every frame, series, array,
    container and fitted model the kernel holds."""
    words = set(re.findall(r"\w+", request))
    named = [name for name, _, detail in held
             if name in words or any(column in words for column in _columns(detail))]
    if named or not _DATA_WORD.search(request):
        return named
    return [name for name, kind, detail in held if kind in _KINDS_OF_DATA or detail in ("fitted", "not fitted")]


def _columns(detail: str) -> list[str]:
    """A frame's column names, from the line the kernel gave about it (state_view.py)."""
    _, _, listed = detail.partition(" columns: ")
    return re.findall(r"(?:^|, )(\w+) \(", listed)


def asks_back(reply: str) -> bool:
    """Whether a reply ends by asking the user something: not an answer, and not for code to settle."""
    return reply.rstrip().rstrip("*_`").endswith("?")


def backed(reply: str, printed: Sequence[str]) -> bool:
    """Whether every number a reply states is in what earlier code printed (and it states one): an answer read off
    the session's own outputs."""
    said = {number.replace(",", "") for number in _NUMBER.findall(reply)}
    seen = {number.replace(",", "") for text in printed for number in _NUMBER.findall(text)}
    return bool(said) and said <= seen


EMPTY = reply_rule("empty", empty_reply, Act("nudge", marks="nudged"))
UNRAN = reply_rule("unran", guessed_from_preview, Act("nudge", marks="nudged", unpreviews=True, drops=("held",)))
UNFORMED = reply_rule("unformed", unformed_answer, Act("nudge", marks="formed"))
FORM_OPENING = reply_rule("form_opening", form_opening, Act("nudge", marks="opened", opens=True))
UNFILLED = reply_rule("unfilled", unfilled_answer, Act("nudge"), once=True)
