"""Replies asked for once more, with a note: an empty one, an answer guessed from a file's preview before any code
ran, a final answer that leaves out parts of the form the request asks for (and, when it still does, the answer asked
for once more with its reply begun in that form)."""

from __future__ import annotations

from interp.loop import answer_form
from interp.rules.base import Finding
from interp.rules.replies.facts import ReplyFacts, reply_rule


def empty_reply(facts: ReplyFacts) -> Finding | None:
    """An empty reply is neither an answer nor code: the model is asked once more (once a turn, with unran)."""
    return Finding(variant="note") if not facts.reply.strip() and not facts.nudged else None


def guessed_from_preview(facts: ReplyFacts) -> Finding | None:
    """About a file the request names, an answer given before any code ran is read off interp's preview of it, which
    may be cut short: a guess. Told that and asked for code that opens the file, a model writes such code; drawn again
    as it was, it mostly guesses again. Once a turn (with empty)."""
    if facts.blocks or not facts.described or facts.steps or facts.nudged:
        return None
    return Finding({"files": " and ".join(name for name, _ in facts.files)}, "note")


def unformed_answer(facts: ReplyFacts) -> Finding | None:
    """A final answer, after code ran, that leaves out `@name[value]` parts the request asks for (answer_form.py) does
    not answer in the form asked: the model is asked once for every part, each value from the output it was shown.
    Parts the turn's output already gives in that form count as given. General: it reads only the form the request
    itself spells out, and an answer that leaves out a part it asked for does not answer it, whatever the model."""
    if facts.formed or not (left := _left_out(facts)):
        return None
    return Finding({"forms": " ".join(f"@{name}[...]" for name in facts.answer_names),
                    "missing": ", ".join(f"@{name}[...]" for name in left), "parts": ", ".join(left)}, "note")


def form_opening(facts: ReplyFacts) -> Finding | None:
    """A final answer that still leaves out `@name[value]` parts after the model was asked for them (unformed): the
    answer is asked for once more, and its reply begins with the first missing part's `@name[`, so that it is written
    in the form the request asks for. Asked in words, a model often prints the value again and answers in prose once
    more; begun in the form, it writes the value the output showed. General: the form is the request's own, and
    beginning a reply with it is a way to ask for that form that any model follows."""
    if not facts.formed or facts.opened or not (left := _left_out(facts)):
        return None
    return Finding({"forms": " ".join(f"@{name}[...]" for name in facts.answer_names),
                    "parts": ", ".join(left), "opening": f"@{left[0]}["}, "note")


def _left_out(facts: ReplyFacts) -> list[str]:
    """The `@name[value]` parts the request asks for that a final answer, after code ran, leaves out: given neither in
    the reply nor in the turn's output. None for a reply with code, before any code ran, or when no form is asked."""
    if facts.blocks or not facts.steps or not facts.answer_names:
        return []
    return answer_form.missing("\n".join([*facts.outputs, facts.reply]), list(facts.answer_names))


EMPTY = reply_rule("empty", empty_reply)
UNRAN = reply_rule("unran", guessed_from_preview)
UNFORMED = reply_rule("unformed", unformed_answer)
FORM_OPENING = reply_rule("form_opening", form_opening)
