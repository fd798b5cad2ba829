"""Replies whose code repeats what the turn already has: an answer written as code that prints what a run printed,
the code that just failed, and the code that ran just before a note doubted its output."""

from __future__ import annotations

from interp.rules.replies.reply_facts import ReplyFacts, reply_rule
from interp.rules.rule import Act, Finding
from interp.rules.values import restated


def restated_output(facts: ReplyFacts) -> Finding | None:
    """An answer written as code without fences, printing only constants a clean run of the turn printed (a
    `print('HELLO WORLD')` after 'hello world'.upper() printed it): it is the answer, not code, and the turn ends on
    it. Run, it would draw the typed-text note, and the model may then change a right answer."""
    if facts.status == "ok" and facts.blocks and all(
            b.inferred and b.language == "python" and restated(b.code, list(facts.outputs)) for b in facts.blocks):
        return Finding()
    return None


def failed_again(facts: ReplyFacts) -> Finding | None:
    """The code that just failed, sent back unchanged: run, it would only fail again. Models re-send it even told the
    failure was the same and at a raised temperature; drawn again hotter, they mostly change it. While a new version
    of a function is drawn from the request alone (fresh.py), a reply whose code all ran before is none either."""
    if not facts.redraws:
        return None
    if facts.status == "failed" and facts.failing is not None and [b.code for b in facts.fresh] == [facts.failing]:
        return Finding({"repeats": "failed"})
    return Finding({"repeats": "ran"}) if facts.drawing and facts.blocks and not facts.fresh else None


def doubted_again(facts: ReplyFacts) -> Finding | None:
    """Code that ran cleanly, sent back unchanged after interp's note doubted its output (notes.py): running it again
    changes nothing. At the turn's own temperature a model tends to copy its last reply; drawn again hotter, it mostly
    changes the code."""
    if facts.redraws and facts.blocks and facts.doubted and not facts.fresh and facts.status == "ok":
        return Finding()
    return None


RESTATED = reply_rule("restated", restated_output, Act("answer"))
FAILED = reply_rule("failed", failed_again, Act("redraw", unseen=True))
DOUBTED = reply_rule("doubted", doubted_again, Act("redraw", unseen=True, doubts=True))
