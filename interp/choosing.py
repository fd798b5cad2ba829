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

Here: the asserts of a reply, the code that scores versions in the kernel, the pick, and the order of the calls
(`choose`), with the model's calls and the kernel's scoring passed in (session.py makes them and journals the choice).
"""

from __future__ import annotations

import ast
import builtins
import json
import random
from collections.abc import Callable, Generator
from dataclasses import dataclass
from string import Template

from interp.events import Event, Notice
from interp.examples import definitions
from interp.extract import code_blocks
from interp.models.base import Message
from interp.policy import FRESH_TEMPERATURE
from interp.reply import whole as reply_whole

MARK = "@interp-choose@ "  # begins the line the scoring code prints
CHECK_SECONDS = 1.0  # one version's definitions, its examples, or one assert: at most this long
SCORE_SECONDS = 5.0  # all of one version's checks: those not begun by then count as failed
ASSERT_TEMPERATURES = (0.2, 0.8)  # the two calls for asserts: a cool one and a hotter one, for more distinct asserts
MOST_ASSERTS = 12  # asked for 6; a reply that begins a 13th assert has run away, as does a line longer than LONG_LINE
LONG_LINE = 300  # characters; an assert's line is seldom half as long
VARIED = 24  # calls with an argument changed, at most: each is run for every version scored
RAISED = "raised"  # what a varied call that raised gave (a digest is 16 hex digits)

# messages, the temperatures of this reply and of those for the same purpose that may be asked for after it (decoded
# beside it where they can be, models/together.py), and what for
Ask = Callable[[list[Message], tuple[float, ...], str], Generator[Event, None, str | None]]


@dataclass(frozen=True)
class Scored:
    """What scoring one version found: whether it passed the request's examples, how many of the model's asserts it
    passed, what it gave for each assert's checked expression (digests; None where it raised), and what it gave for
    each call with an argument changed (`varied`: digests, RAISED where it raised, None where it ran out of time)."""
    examples: bool
    passed: int
    values: tuple[str | None, ...]
    varied: tuple[str | None, ...] = ()


Score = Callable[[str, list[str]], Scored | None]  # a version and the asserts: scoring's line, read


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
    """Why a reply for asserts being written is whole: as reply.whole says, or "runaway" (Batch.whole, for one
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


_SCORE = Template("""\
def _interp_score(mark, version, examples, checks, probes, varied, raised, seconds, budget):
    import contextlib, hashlib, io, json, signal, time

    def late(*_):
        raise TimeoutError

    def runs(code, space):
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                exec(code, space)
            return True
        except KeyboardInterrupt:
            raise
        except TimeoutError:
            return None
        except BaseException:
            return False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def value(probe, space, raised=None):
        here = dict(space)
        ran = runs("_interp_value = repr(" + probe + ")", here)
        if not ran:
            return None if ran is None else raised
        return hashlib.sha256(here["_interp_value"].encode()).hexdigest()[:16]

    pending, started = signal.getitimer(signal.ITIMER_REAL), time.monotonic()
    before = signal.signal(signal.SIGALRM, late)
    try:
        ends = started + budget
        space = dict(globals())
        ok = bool(runs(version, space) and runs(examples, space))
        passed = [ok and time.monotonic() < ends and bool(runs(check, space)) for check in checks]
        values = [value(probe, space) if ok and time.monotonic() < ends else None for probe in probes]
        changed = [value(call, space, raised) if ok and time.monotonic() < ends else None for call in varied]
    finally:
        signal.signal(signal.SIGALRM, before)
        if pending[0]:
            signal.setitimer(signal.ITIMER_REAL, max(pending[0] - (time.monotonic() - started), 0.001), pending[1])
    print(mark + json.dumps([ok, sum(passed), values, changed]))


try:
    _interp_score(*$arguments)
finally:
    del _interp_score
""")


def probes(checks: list[str]) -> list[str]:
    """The expression each assert checks, one a line: the left side of a comparison (`f(3)` of `assert f(3) == 5`),
    else the whole test (`not f(0)`); each once. A line that does not parse alone is passed over."""
    found: list[str] = []
    for check in checks:
        try:
            tree = ast.parse(check).body[0]
        except (SyntaxError, ValueError, IndexError):
            continue
        if isinstance(tree, ast.Assert):
            test = tree.test
            found.append(ast.unparse(test.left if isinstance(test, ast.Compare) else test))
    return list(dict.fromkeys(found))


def _changed(value: object) -> list[object]:
    """Values near a literal argument, of its type (EvalPlus's type-aware mutation, Liu et al. 2023): a number one
    more, one less, negated, zero, doubled; a string reversed, without its first or last character, in other case,
    empty; a sequence reversed, shuffled, without its first or last item, with one more, empty, and with one of its
    first three items changed so; a dict without one of its keys, empty. Each once, none equal to the value."""
    found: list[object] = []
    if isinstance(value, bool):
        found = [not value]
    elif isinstance(value, int | float):
        found = [value + 1, value - 1, -value, type(value)(0), value * 2]
    elif isinstance(value, str):
        found = [value[::-1], value[1:], value[:-1], value.upper(), value.swapcase(), value + value[:1], ""]
    elif isinstance(value, list | tuple):
        kind, items = type(value), list(value)
        shuffled = random.Random(len(items)).sample(items, len(items))
        found = [kind(items[::-1]), kind(items[1:]), kind(items[:-1]), kind(shuffled), kind(items + items[:1]),
                 kind(items[:1] + items), kind()]
        found += [kind([*items[:i], near, *items[i + 1:]]) for i, item in enumerate(items[:3])
                  for near in _changed(item)[:2]]
    elif isinstance(value, dict):
        found = [*({k: v for k, v in value.items() if k != key} for key in list(value)[:2]), {}]
    shown = repr(value)
    return list({repr(near): near for near in found if repr(near) != shown}.values())


def varied(expressions: list[str]) -> list[str]:
    """The expressions again with one literal argument of one call to a function not built in changed (`_changed`),
    up to VARIED of them, drawn evenly from all (the same for every version: their values are compared): inputs the
    examples and the asserts do not show, where versions that agree on those can part."""
    found: list[str] = []
    for expression in expressions:
        tree = ast.parse(expression, mode="eval")
        for call in [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Name) and not hasattr(builtins, node.func.id)]:
            for i, argument in enumerate(call.args):
                try:
                    value = ast.literal_eval(argument)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
                for near in _changed(value):
                    call.args[i] = ast.parse(repr(near), mode="eval").body
                    found.append(ast.unparse(tree))
                call.args[i] = argument
    found = list(dict.fromkeys(found))
    return random.Random(0).sample(found, min(VARIED, len(found)))


def scoring(version: str, examples: str, checks: list[str]) -> str:
    """Python for the kernel that defines the version in a copy of the session's namespace (the session's own names
    stay as they are), runs the request's examples there, then each assert, then each assert's checked expression
    (probes), then the examples' and the probes' calls with an argument changed (`varied`), every one bounded in time
    and its output swallowed; it prints MARK, then whether the examples passed, how many asserts did, a digest of
    each probe's value (None where it raised or was not begun) and of each varied call's (RAISED where it raised).
    An alarm the session had pending is set again after, less the time the scoring took (the bounds use the same
    timer)."""
    checked = probes(checks)
    calls = varied(checked + probes([line for line in examples.splitlines() if line.startswith("assert")]))
    return _SCORE.substitute(arguments=repr((MARK, version, examples, checks, checked, calls, RAISED, CHECK_SECONDS,
                                             SCORE_SECONDS)))


def score(output: str) -> Scored | None:
    """What the scoring code printed; None when it printed nothing readable (the kernel died, the run was
    interrupted)."""
    for line in reversed(output.splitlines()):
        if line.startswith(MARK):
            try:
                ok, passed, values, changed = json.loads(line[len(MARK):])
                return Scored(bool(ok), int(passed), tuple(values), tuple(changed))
            except (ValueError, TypeError):
                return None
    return None


def groups(scored: list[Scored], copies: list[int], everywhere: bool = False) -> list[int]:
    """For each version that passes the request's examples, how many of the versions drawn that pass them too (copies
    of one counted) give the same value as it for every assert's expression: itself alone when it raised on one, or
    fails the examples. `everywhere`: and for every varied call (having raised on it alike; alone when it ran out of
    time on one)."""
    def agree(a: Scored, b: Scored) -> bool:
        return (a.examples and b.examples and a.values == b.values and None not in a.values
                and (not everywhere or a.varied == b.varied and None not in a.varied))

    return [sum(n for other, n in zip(scored, copies, strict=True) if other is one or agree(one, other))
            for one in scored]


def weight(scores: list[tuple[bool, int]], sizes: list[int], i: int) -> int:
    """Version i's asserts passed times its group's size (`groups`): what `pick` ranks by first."""
    return scores[i][1] * sizes[i]


def pick(scores: list[tuple[bool, int]], sizes: list[int], everywhere: list[int]) -> int:
    """The version to keep: of those that pass the examples, the one whose asserts passed times its group's size
    (`groups`) is the most; of equals, the one that the most distinct versions agree with everywhere (`groups` with
    `everywhere=True`, each version once: on the varied calls too), then the first; the first version (the one the
    turn kept) when none scores more.
    CodeT's dual agreement (Chen et al. 2022): a version that passes one more assert alone does not outweigh several
    versions that agree with each other. Equals are common where the asserts are wrong, and then the first, kept as
    written, may be a wrong one while the right ones agree on the varied calls.
    There each version counts once, however often it was drawn: the same code drawn again is the model's likeliest
    answer once more, where two versions written differently that give the same values are two independent pieces of
    evidence.
    """
    def key(i: int) -> tuple[int, int]:
        return weight(scores, sizes, i), everywhere[i]

    best = 0
    for i, (examples, _passed) in enumerate(scores):
        if examples and key(i) > key(best):
            best = i
    return best


def unshown(tests: list[str], given: str) -> list[str]:
    """The asserts that do not restate one of the request's examples (`given`, examples.checks: every version scored
    passes those first), compared as parsed, so that quotes and spacing do not tell them apart. Asked for asserts on
    other inputs, a model often copies the examples first, and sometimes writes nothing else; such an assert tells
    no version from another (every version scored passes it), and the notice must not count it as an assert "for
    inputs your examples do not show"."""
    shown = {ast.dump(node) for node in _parsed_head(given)[0].body}
    return [test for test in tests if ast.dump(ast.parse(test).body[0]) not in shown]


def choose(asking: list[Message], drawing: list[Message], written: str, count: int, ask: Ask,
           score: Score, given: str = "", other: str = "") -> Generator[Event, None, Choice | None]:
    """Asks twice for asserts (`asking`), keeps those that do not restate the request's examples (`given`, unshown),
    scores the written version, then draws up to `count` versions (`drawing`: the request alone) until one passes
    every assert, and picks. When the asserts only restate the examples, asks twice more, told so (`other`, after
    the asserts it wrote). None, with a warning, when there is nothing to choose by: no asserts but the examples
    again, or the written version could not be scored. `ask` returns None once time is up."""
    asked_for = yield from _asked(asking, ask)
    tests = unshown(list(dict.fromkeys(asked_for)), given)
    if not tests and asked_for and other:
        yield Notice("The model's asserts only repeat your examples; asking again for asserts on other inputs.")
        wrote = "```python\n" + "\n".join(dict.fromkeys(asked_for)) + "\n```"
        asked_for += yield from _asked([*asking, {"role": "assistant", "content": wrote},
                                        {"role": "user", "content": other}], ask)
        tests = unshown(list(dict.fromkeys(asked_for)), given)
    if not tests:
        yield Notice("The model's asserts only repeat your examples; keeping the function." if asked_for
                     else "The model wrote no asserts; keeping the function.", "warning")
        return None
    first = score(written, tests)
    if first is None or not first.examples:
        yield Notice("The function could not be scored against the model's asserts; keeping it.", "warning")
        return None
    versions, scored, copies = [written], [first], [1]
    drawn = 0
    while drawn < count and all(one.passed < len(tests) for one in scored):
        reply = yield from ask(drawing, (FRESH_TEMPERATURE,) * (count - drawn), "version")
        if reply is None:
            break
        drawn += 1
        blocks = [block for block in code_blocks(reply) if block.language == "python"]
        version = definitions(blocks[0].code) if blocks else None
        if version in versions:
            copies[versions.index(version)] += 1
        elif version is not None:
            versions.append(version)
            scored.append(score(version, tests) or Scored(False, 0, ()))
            copies.append(1)
    scores = [(one.examples, one.passed) for one in scored]
    sizes, wide = groups(scored, copies), groups(scored, [1] * len(scored), everywhere=True)
    return Choice(tests, versions, scores, copies, sizes, wide, pick(scores, sizes, wide), drawn)


def _asked(messages: list[Message], ask: Ask) -> Generator[Event, None, list[str]]:
    """The asserts of two replies to these messages, at ASSERT_TEMPERATURES (the second decoded beside the first)."""
    found: list[str] = []
    for i in range(len(ASSERT_TEMPERATURES)):
        found += asserts((yield from ask(messages, ASSERT_TEMPERATURES[i:], "asserts")) or "")
    return found
