"""Known traps in code that ran cleanly: mistakes that raise nothing and print a plausible wrong number.

Asked for the data rows of a CSV "not counting the header", code that reads it with csv.DictReader and then drops one
more row (`len(rows) - 1`, `[1:]`, `next(reader)`) is one short: DictReader has taken the header already. Code that
counts files with `ls -l | wc -l` counts `ls -l`'s `total` line too; grep `\\.(jpg|png|gif)$` without -E reads `(`, `|`
and `)` as plain characters and matches nothing. Nothing fails, so no repair starts: each trap found is said to the
model after the output, once a turn, as a fact it can weigh (prompts/pitfalls.json); the code is not changed and nothing
runs. A grep that matched nothing ends with exit status 1, so its trap is said after that failure too.

One trap is a fact only the kernel can confirm (`overwrites`): asked for each customer's total, code that sets
`totals[name] = total` in a loop over the orders lets a customer's second order replace the first. Code that fills
an empty dict with one unconditional `d[key] = value` per item of a loop (or a dict comprehension) is a candidate;
the kernel is asked for both lengths, and fewer keys than items means a key came again and its value was replaced.

Another (`one_shot`): asked to load sales.csv into a variable, code that keeps `sales = csv.DictReader(f)` leaves an
iterator that the next request's loop finds used up, or its file closed. A name the code assigns and never reads is a
candidate; the kernel tells whether it holds its own iterator (a value with `__next__`: a csv reader, a generator, map,
zip), open files left out, since keeping one is no mistake. A request that speaks of an iterator, a generator or a
reader asks for one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

_LS_COUNT = re.compile(r"\bls\s+(?:-\w*l\w*\s+)+[^|;&\n]*\|\s*wc\s+-l\b")
_GREP = re.compile(r"\bgrep((?:\s+-[-\w]+)*)\s+(['\"])(.*?)\2")  # grep, its options, a quoted pattern
_NOT_BASIC = ("--extended-regexp", "--perl-regexp", "--fixed-strings")
_EXTENDED = re.compile(r"(?<!\\)\||(?<=[\])])[+?]")  # alternatives, repeats: syntax in an extended expression only


def _grep_basic(code: str) -> bool:
    """grep without -E (or -P, -F) given a pattern with `|`, or `+` or `?` after a class or a group: in a basic
    regular expression those are ordinary characters, so `grep '\\.(jpg|png)$'` matches only names that hold that
    text (counting files by extension, it counts 0)."""
    for match in _GREP.finditer(code):
        if any(o in _NOT_BASIC if o.startswith("--") else set("EPF") & set(o[1:]) for o in match[1].split()):
            continue
        if _EXTENDED.search(match[3]):
            return True
    return False


def _dictreader_skips(code: str) -> bool:
    """csv.DictReader, and one row more dropped: `[1:]`, `next(...)`, or `len(...) - 1`."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    nodes = list(ast.walk(tree))
    if not any(isinstance(n, ast.Call) and _name(n.func) == "DictReader" for n in nodes):
        return False
    for node in nodes:
        if isinstance(node, ast.Slice) and _is_one(node.lower) and node.upper is None and node.step is None:
            return True
        if isinstance(node, ast.Call) and _name(node.func) == "next":
            return True
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _is_one(node.right)
                and isinstance(node.left, ast.Call) and _name(node.left.func) == "len"):
            return True
    return False


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _is_one(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1


RULES: dict[str, tuple[str, Callable[[str], bool]]] = {
    # key in prompts/pitfalls.json: (language, test of the code)
    "dictreader_header": ("python", _dictreader_skips),
    "ls_count": ("shell", lambda code: _LS_COUNT.search(code) is not None),
    "grep_basic": ("shell", _grep_basic),
}


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
            or (isinstance(node, ast.Call) and _name(node.func) in ("dict", "OrderedDict") and not node.args
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


def found(language: str, code: str) -> list[str]:
    """The keys of the traps this code falls into."""
    return [key for key, (lang, test) in RULES.items() if lang == language and test(code)]
