"""A version of a function probed in the kernel (choosing.py): the code that runs its definitions, the request's
examples, the model's asserts, each assert's checked expression and calls with an argument changed, every one bounded
in time; and what that code prints, read back."""

from __future__ import annotations

import ast
import builtins
import json
import random
from dataclasses import dataclass
from string import Template

MARK = "@interp-choose@ "  # begins the line the scoring code prints
CHECK_SECONDS = 1.0  # one version's definitions, its examples, or one assert: at most this long
SCORE_SECONDS = 5.0  # all of one version's checks: those not begun by then count as failed
VARIED = 24  # calls with an argument changed, at most: each is run for every version scored
RAISED = "raised"  # what a varied call that raised gave (a digest is 16 hex digits)


@dataclass(frozen=True)
class Scored:
    """What scoring one version found: whether it passed the request's examples, how many of the model's asserts it
    passed, what it gave for each assert's checked expression (digests; None where it raised), and what it gave for
    each call with an argument changed (`varied`: digests, RAISED where it raised, None where it ran out of time)."""
    examples: bool
    passed: int
    values: tuple[str | None, ...]
    varied: tuple[str | None, ...] = ()


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
