"""A reply as the on_reply rules see it: its text and code, with what the turn so far ran, printed and said."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from interp.common.extract import CodeBlock
from interp.rules.answer_form import Part
from interp.rules.facts import Facts
from interp.rules.rule import Act, Finding, Rule, Scope


@dataclass
class ReplyFacts(Facts):
    """One reply (`reply`; `blocks`, the code found in it) and its turn. `status`: how the latest execution went;
    `failing`: the code that failed, while that failure stands; `succeeded`: each (language, code) that ran cleanly in
    the turn; `outputs`: what the turn's clean runs printed; `notes`: interp's notes on them (notes.py); `described`:
    how interp described each file it previewed in the request ("text, 9 lines, 58 bytes; whole below", attach.py);
    `files` (Facts): those files as the request named them; `given`: the code of the request's own blocks (previews
    and hints); `shown`: the conversation so far, the request as sent last; `examples_read`: the few-shot examples'
    answers the model reads, each with what its example showed before it; `answer_parts`: the @name[...] parts the
    request asks for, with what it says of their values (answer_form.py); `drawing`: the
    reply is a new version of a function, drawn from the request alone (fresh.py); `doubted`: interp's notes doubted
    the output of the step that just ran; `steps`: replies whose code ran; `nudged`: a reply was asked for again,
    empty or unran; `formed`: asked for again for its missing parts; `opened`: asked once more after that, its reply
    begun in the form; `redraws`: a reply may still be drawn again this turn (policy.RESAMPLES); `held`: what the
    kernel held when the request came (state_view.py: name, kind, a line about it); `printed`: what the session's
    earlier code printed, as the model was told it."""

    blocks: Sequence[CodeBlock] = ()
    status: str = "ok"
    failing: str | None = None
    succeeded: Collection[tuple[str, str]] = frozenset()
    outputs: Sequence[str] = ()
    notes: Sequence[str] = ()
    described: Sequence[str] = ()
    given: Collection[str] = frozenset()
    shown: str = ""
    examples_read: Sequence[tuple[str, str]] = ()
    answer_parts: Sequence[Part] = ()
    drawing: bool = False
    doubted: bool = False
    steps: int = 0
    nudged: bool = False
    formed: bool = False
    opened: bool = False
    redraws: bool = True
    held: Sequence[tuple[str, str, str]] = ()
    printed: Sequence[str] = ()

    @functools.cached_property
    def answer_names(self) -> list[str]:
        """The names of the parts the request asks for, in order."""
        return [part.name for part in self.answer_parts]

    @functools.cached_property
    def fresh(self) -> list[CodeBlock]:
        """The reply's blocks that have not run cleanly in this turn, each once, in order."""
        new = {(b.language, b.code): b for b in self.blocks if (b.language, b.code) not in self.succeeded}
        return list(new.values())


def reply_rule(rule_id: str, detect: Callable[[ReplyFacts], Finding | None], act: Act, once: bool = False) -> Rule:
    """An on_reply rule: `detect` reads a reply's facts (given other facts, it finds nothing), whatever language the
    reply's code is in; its docstring is the rule's; `act`, what the turn does with the reply. `once`: it fires at
    most once a turn."""

    @functools.wraps(detect)
    def check(facts: Facts) -> Finding | None:
        return detect(facts) if isinstance(facts, ReplyFacts) else None

    return Rule(rule_id, "on_reply", check, Scope(languages=()), once=once, act=act)
