"""Choosing among versions of a function by the model's own asserts, once the request's examples pass.

A function that passes the examples its request shows is often still wrong elsewhere, and drawing it again from the
request alone often gives a right version among the others: the difficulty is telling the right one. The model's own
asserts on inputs the examples do not cover are often wrong, so a failing one cannot be fed back as an error (verify
mode's repair would break right functions); but they rank versions well: most of them are right, so the version that
passes the most of them is usually a right one. Kept = the version that passes the most of them. Drawing stops early
once a version passes every assert.

A version that passes one assert more than the rest is not always the right one: several versions written apart that
give the same values are better evidence than one that passes an extra assert alone. So the asserts passed are
weighed by agreement (CodeT's dual agreement, Chen et al. 2022): each version's group is the versions drawn that pass
the examples and give the same value for every assert's expression, and the kept one has the most asserts passed
times its group's size (`groups`, `pick`).

Versions that do equally well on the asserts are common where the asserts are wrong or all alike, and then the first
written would be kept, right or not. So each version is also run on the calls of the asserts and of the examples with
one literal argument changed by its type (`varied`, EvalPlus's type-aware mutation), unchecked, and of equals the one
that the most distinct versions agree with there is kept (`groups(everywhere=True)`, each version once however often
drawn: `pick`). Where the model's asserts only repeat the examples, the varied calls alone do not choose well (a wrong
majority can outvote a right version), so there the function is still kept as written. Before keeping it so, the
model is asked twice more, after the asserts it wrote and shown the examples' asserts as passing
(`prompts/choose_other.md`): told that its asserts only restate the examples, a model usually writes others, at the
cost of two more calls.

Here: the asserts of a reply and the order of the calls (`choose`), given what to ask (`Asking`) and the turn it runs
in (`Aside`: the model's calls out of view and the kernel's scoring, turn/choose.py's `Chooser`, which journals
the choice); the code that scores versions in the kernel is in probing.py, the weighing and the pick in
agreement.py.
"""

from __future__ import annotations

import ast
from collections.abc import Generator
from dataclasses import dataclass
from typing import Protocol

from interp.common.events import Event, Notice
from interp.common.extract import code_blocks
from interp.common.extract import whole as reply_whole
from interp.models.base import Message
from interp.versions.agreement import groups, pick, weight
from interp.versions.examples import definitions

# Re-exported: the session scores versions in the kernel, and bounds that in time, through this module.
from interp.versions.probing import CHECK_SECONDS as CHECK_SECONDS
from interp.versions.probing import SCORE_SECONDS as SCORE_SECONDS
from interp.versions.probing import Scored
from interp.versions.probing import score as score
from interp.versions.probing import scoring as scoring

ASSERT_TEMPERATURES = (0.2, 0.8)  # the two calls for asserts: a cool one and a hotter one, for more distinct asserts
MOST_ASSERTS = 12  # asked for 6; a reply that begins a 13th assert has run away, as does a line longer than LONG_LINE
LONG_LINE = 300  # characters; an assert's line is seldom half as long


class Aside(Protocol):
    """What choosing needs of the turn it runs in."""

    def ask_asserts(self, messages: list[Message],
                    temperatures: tuple[float, ...]) -> Generator[Event, None, str | None]:
        """A reply with asserts, drawn out of view at the first of `temperatures` (the rest: those asked for after
        it, decoded beside it where they can be); None once time is up."""
        ...

    def draw_version(self, messages: list[Message], left: int) -> Generator[Event, None, str | None]:
        """A version of the function drawn out of view from `messages`, the request alone (`left`: the versions that
        may be asked for, this one included, decoded together where they can be); None once time is up."""
        ...

    def score(self, version: str, tests: list[str]) -> Scored | None:
        """A version run unseen on the request's examples and the asserts; None when the kernel could not tell."""
        ...


@dataclass(frozen=True)
class Asking:
    """What choosing asks: `asking`, the messages that ask for asserts; `drawing`, those that draw a version (the
    request alone); `written`, the version the turn wrote; `count`, the most versions to draw; `given`, the request's
    examples as asserts; `other`, the note that asks again when the asserts only restate them."""

    asking: list[Message]
    drawing: list[Message]
    written: str
    count: int
    given: str = ""
    other: str = ""


@dataclass(frozen=True)
class Choice:
    """What choosing did: the model's asserts, the versions scored (the written one first), their scores (examples
    passed, asserts passed), how many times each was drawn, the size of each one's group of agreeing versions
    (`groups`) and the number of distinct versions agreeing on the varied calls too (`everywhere`, pick), the one kept
    (an index) and how many versions were drawn (copies of one scored included)."""
    asserts: list[str]
    versions: list[str]
    scores: list[tuple[bool, int]]
    copies: list[int]
    groups: list[int]
    everywhere: list[int]
    kept: int
    drawn: int

    @property
    def outscored(self) -> bool:
        """Whether the version kept won on the asserts (`weight`), not only as the one most agreed with of equals."""
        return weight(self.scores, self.groups, self.kept) > weight(self.scores, self.groups, 0)


def asserts(reply: str) -> list[str]:
    """The top-level assert statements of the reply's Python blocks, each as written; of a block that does not parse
    (a reply stopped in the middle of a line, `runaway`), those of its longest run of first lines that does."""
    found: list[str] = []
    for block in code_blocks(reply):
        if block.language != "python":
            continue
        tree, code = _parsed_head(block.code)
        found += [segment for node in tree.body if isinstance(node, ast.Assert)
                  and (segment := ast.get_source_segment(code, node))]
    return found


def whole(text: str) -> str | None:
    """Why a reply for asserts being written is whole: as reply.whole says, or "runaway" (Ahead.whole, for one
    decoded unseen beside another)."""
    return reply_whole(text) or ("runaway" if runaway(text) else None)


def whole_lines(text: str) -> str:
    """The text up to its last line break: a reply stopped in the middle of a line, without that line's beginning
    (`assert f(2) == 1` may be the start of `assert f(2) == 10`)."""
    return text[:text.rfind("\n") + 1]


def _parsed_head(code: str) -> tuple[ast.Module, str]:
    """The tree of the code's longest run of first lines that parses, and that run."""
    lines = code.splitlines()
    for end in range(len(lines), 0, -1):
        head = "\n".join(lines[:end])
        try:
            return ast.parse(head), head
        except (SyntaxError, ValueError):
            continue
    return ast.Module(body=[], type_ignores=[]), ""


def runaway(text: str) -> bool:
    """Whether a reply for asserts, as far as it is written, has run away: it began a 13th assert, or a line of it
    runs past LONG_LINE characters. A small model asked for a few asserts can go on writing longer and longer ones
    (a growing list in each, one huge string) until its tokens run out, spending the time left for drawing versions
    on asserts no better than the first few. Stopped there, the lines written whole before it are kept
    (`whole_lines`)."""
    lines = text.splitlines()
    return (bool(lines) and len(lines[-1]) > LONG_LINE
            or sum(line.lstrip().startswith("assert") for line in lines) > MOST_ASSERTS)






def unshown(tests: list[str], given: str) -> list[str]:
    """The asserts that do not restate one of the request's examples (`given`, examples.checks: every version scored
    passes those first), compared as parsed, so that quotes and spacing do not tell them apart. Asked for asserts on
    other inputs, a model often copies the examples first, and sometimes writes nothing else; such an assert tells
    no version from another (every version scored passes it), and the notice must not count it as an assert "for
    inputs your examples do not show"."""
    shown = {ast.dump(node) for node in _parsed_head(given)[0].body}
    return [test for test in tests if ast.dump(ast.parse(test).body[0]) not in shown]


def choose(asked: Asking, turn: Aside) -> Generator[Event, None, Choice | None]:
    """Asks twice for asserts, keeps those that do not restate the request's examples (`given`, unshown), scores the
    written version, then draws up to `count` versions until one passes every assert, and picks. When the asserts
    only restate the examples, asks twice more, told so (`other`, after the asserts it wrote). None, with a warning,
    when there is nothing to choose by: no asserts but the examples again, or the written version could not be
    scored."""
    written, count, given = asked.written, asked.count, asked.given
    asked_for = yield from _asked(asked.asking, turn)
    tests = unshown(list(dict.fromkeys(asked_for)), given)
    if not tests and asked_for and asked.other:
        yield Notice("The model's asserts only repeat your examples; asking again for asserts on other inputs.")
        wrote = "```python\n" + "\n".join(dict.fromkeys(asked_for)) + "\n```"
        asked_for += yield from _asked([*asked.asking, {"role": "assistant", "content": wrote},
                                        {"role": "user", "content": asked.other}], turn)
        tests = unshown(list(dict.fromkeys(asked_for)), given)
    if not tests:
        yield Notice("The model's asserts only repeat your examples; keeping the function." if asked_for
                     else "The model wrote no asserts; keeping the function.", "warning")
        return None
    first = turn.score(written, tests)
    if first is None or not first.examples:
        yield Notice("The function could not be scored against the model's asserts; keeping it.", "warning")
        return None
    versions, scored, copies = [written], [first], [1]
    drawn = 0
    while drawn < count and all(one.passed < len(tests) for one in scored):
        reply = yield from turn.draw_version(asked.drawing, count - drawn)
        if reply is None:
            break
        drawn += 1
        blocks = [block for block in code_blocks(reply) if block.language == "python"]
        version = definitions(blocks[0].code) if blocks else None
        if version in versions:
            copies[versions.index(version)] += 1
        elif version is not None:
            versions.append(version)
            scored.append(turn.score(version, tests) or Scored(False, 0, ()))
            copies.append(1)
    scores = [(one.examples, one.passed) for one in scored]
    sizes, wide = groups(scored, copies), groups(scored, [1] * len(scored), everywhere=True)
    return Choice(tests, versions, scores, copies, sizes, wide, pick(scores, sizes, wide), drawn)


def _asked(messages: list[Message], turn: Aside) -> Generator[Event, None, list[str]]:
    """The asserts of two replies to these messages, at ASSERT_TEMPERATURES (the second decoded beside the first)."""
    found: list[str] = []
    for i in range(len(ASSERT_TEMPERATURES)):
        found += asserts((yield from turn.ask_asserts(messages, ASSERT_TEMPERATURES[i:])) or "")
    return found
