"""Notes on what the names of clean code hold, confirmed by the kernel: a dict whose values a loop replaced, and an
iterator kept in a name. Each is asked only until said: the checks are round trips to the kernel (its
user_expressions, running nothing the user sees).

Asked for each customer's total, code that sets `totals[name] = total` in a loop over the orders lets a customer's
second order replace the first (`overwrites`). Code that fills an empty dict with one unconditional `d[key] = value`
per item of a loop (or a dict comprehension) is a candidate; the kernel is asked for both lengths, and fewer keys than
items means a key came again and its value was replaced.

Asked to load sales.csv into a variable, code that keeps `sales = csv.DictReader(f)` leaves an iterator that the next
request's loop finds used up, or its file closed (`one_shot`). A name the code assigns and never reads is a
candidate; the kernel tells whether it holds its own iterator (a value with `__next__`: a csv reader, a generator, map,
zip), open files left out, since keeping one is no mistake. A request that speaks of an iterator, a generator or a
reader asks for one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from interp.rules.facts import Facts
from interp.rules.notes.traps import name_of
from interp.rules.rule import Finding, Rule
from interp.rules.values import assigned


@dataclass(frozen=True)
class Overwrite:
    """A dict filled with one value per item of a loop: `name[key] = ...` for each item of `items`."""

    name: str
    key: str
    items: str

    def expressions(self) -> dict[str, str]:
        """The kernel expressions whose values show whether keys came again."""
        return {"keys": f"len({self.name})", "items": f"len({self.items})"}


def overwrites(code: str) -> list[Overwrite]:
    """The dicts this code starts empty and then fills with one plain `d[key] = value` per item of a top-level loop
    (not inside an `if`, the value not read from `d`), or builds with a dict comprehension over one sequence; the
    sequence is a name or an item or attribute of one, which the kernel can take the length of again."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found: list[Overwrite] = []
    empty: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            empty.discard(name)
            if _is_empty_dict(node.value):
                empty.add(name)
            elif (isinstance(node.value, ast.DictComp) and len(node.value.generators) == 1
                  and not node.value.generators[0].ifs and _re_readable(node.value.generators[0].iter)):
                found.append(Overwrite(name, ast.unparse(node.value.key), ast.unparse(node.value.generators[0].iter)))
        elif isinstance(node, ast.For) and _re_readable(node.iter):
            for statement in node.body:
                if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
                    continue
                target = statement.targets[0]
                if (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                        and target.value.id in empty and not isinstance(target.slice, ast.Constant)
                        and not _reads(statement.value, target.value.id)):
                    found.append(Overwrite(target.value.id, ast.unparse(target.slice), ast.unparse(node.iter)))
    return found


def _is_empty_dict(node: ast.expr) -> bool:
    return ((isinstance(node, ast.Dict) and not node.keys)
            or (isinstance(node, ast.Call) and name_of(node.func) in ("dict", "OrderedDict") and not node.args
                and not node.keywords))


def _re_readable(node: ast.expr) -> bool:
    """A name, or an item or attribute of one with constant keys: evaluating it again reads, changes nothing."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def _reads(node: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def replaced(lengths: dict[str, str]) -> tuple[int, int] | None:
    """(keys, items) from the kernel's answer to Overwrite.expressions when there are fewer keys than items."""
    try:
        keys, items = int(lengths["keys"]), int(lengths["items"])
    except (KeyError, ValueError):
        return None
    return (keys, items) if keys < items else None


# What the kernel says of a value: its type's name if it is its own iterator (read once), else nothing.
_ONE_SHOT = ("(type({name}).__name__ if hasattr(type({name}), '__next__') and not isinstance({name}, "
             "__import__('io').IOBase) else '')")
_ASKS_ITERATOR = re.compile(r"\b(?:iterators?|generators?|readers?|lazy|lazily)\b", re.I)


def one_shot(code: str, names: list[str], request: str) -> dict[str, str]:
    """The kernel expressions that tell which of these names, assigned by the code and never read in it, hold an
    iterator; none where the request asks for one."""
    if _ASKS_ITERATOR.search(request):
        return {}
    try:
        read = {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    except (SyntaxError, ValueError):
        return {}
    return {name: _ONE_SHOT.format(name=name) for name in names if name not in read}


def _overwritten(facts: Facts) -> Finding | None:
    """A dict clean code filled one item at a time holds fewer keys than there were items, as the kernel counts
    them: each time a key came again, `d[key] = value` replaced its earlier value, which is what Python's dict
    assignment does whatever the data. Asked only until said: a round trip to the kernel."""
    for candidate in [] if facts.failed else overwrites(facts.code):
        counts = replaced(facts.evaluate(candidate.expressions()))
        if counts:
            return Finding({"name": candidate.name, "key": candidate.key, "source": candidate.items,
                            "keys": counts[0], "items": counts[1]})
    return None


def _one_shot(facts: Facts) -> Finding | None:
    """A name clean code assigned and did not read holds an iterator (a csv reader, a generator, map, zip), as the
    kernel tells: Python's iterators are read once, so the next request's loop over the name would find it used up
    (or its file closed). Asked only until said: a round trip to the kernel."""
    names = [] if facts.failed else assigned(facts.code)
    expressions = one_shot(facts.code, names, facts.typed) if names else {}
    kinds = facts.evaluate(expressions) if expressions else {}
    for name in names:
        if kinds.get(name):
            return Finding({"name": name, "type": kinds[name]})
    return None


RULES = [
    Rule("overwritten", "after_run", _overwritten, once=True),
    Rule("one_shot", "after_run", _one_shot, once=True),
]
