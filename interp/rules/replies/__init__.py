"""Reply screening: the on_reply rules, which read a model's reply before any of its code runs and say when it is no
answer and no new code. The turn policy (turn/policy/) runs them, first fired first, and acts on the one that fired:
each rule says, in its Act (interp/rules/rule.py), what the turn does: ask once more with its note, end the turn on
the reply as the answer, or draw the reply again (the rule's template is the notice). The order is the precedence:
a reply is asked for again before it is drawn again, and drawn again for its code before its words.
"""

from __future__ import annotations

import functools
from string import Template

from interp.common.prompt_files import prompts_dir
from interp.rules import templates
from interp.rules.engine import Engine
from interp.rules.replies.answers import COPIED_WORDS, EXAMPLE, answers_read, copies_example, copies_note
from interp.rules.replies.nudges import EMPTY, FORM_OPENING, UNFILLED, UNFORMED, UNRAN
from interp.rules.replies.repeats import DOUBTED, FAILED, RESTATED
from interp.rules.replies.reply_facts import ReplyFacts
from interp.rules.rule import Rule

RULES: list[Rule] = [EMPTY, UNRAN, UNFORMED, FORM_OPENING, UNFILLED, RESTATED, FAILED, COPIED_WORDS, DOUBTED, EXAMPLE]

__all__ = ["RULES", "ReplyFacts", "answers_read", "copies_example", "copies_note", "engine"]


@functools.cache
def _templates() -> dict[str, Template]:
    return templates.load(prompts_dir())


def engine() -> Engine:
    """These rules alone, with their templates (prompts/rules/): the engine of a turn policy that no session gives
    its own (tests, scripts)."""
    return Engine(RULES, _templates())
