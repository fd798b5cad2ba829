"""Rules for what code asks of a container that it does not give: len() or [ ] of an iterator, a key added to before
the dict holds it, a list given to re where it reads one string."""

from __future__ import annotations

import ast
import re

from interp.common.textclean import arrow_lines
from interp.rules.facts import Facts
from interp.rules.rule import Finding

_ONE_PASS = re.compile(r"^TypeError: (?:object of type '([\w.]+)' has no len\(\)|"
                       r"'([\w.]+)' object is not subscriptable)$", re.M)
_ITERATORS = {"DictReader", "reader", "generator", "map", "filter", "zip", "enumerate", "reversed",
              "dict_keys", "dict_values", "dict_items", "_io.TextIOWrapper", "TextIOWrapper"}
_KEY_ERROR = re.compile(r"^KeyError: (.+)$", re.M)
_STRING_EXPECTED = re.compile(r"^TypeError: expected string or bytes-like object, got '(\w+)'$", re.M)


def one_pass(facts: Facts) -> Finding | None:
    """For len() or [ ] of something read one item at a time (a csv reader, a generator, a file, dict.keys()):
    make a list of it once. Told only the error, a small model tends to send `total / len(reader)` back unchanged."""
    match = _ONE_PASS.search(facts.error)
    if not match or (kind := match[1] or match[2]) not in _ITERATORS:
        return None
    arrows = arrow_lines(facts.error)
    found = re.search(r"len\((\w+)\)" if match[1] else r"(\w+)\[", arrows[-1]) if arrows else None
    name = found[1] if found else "it"
    return Finding({"kind": kind, "name": name}, "rows" if kind in ("DictReader", "reader") else "items")


def missing_key(facts: Facts) -> Finding | None:
    """For `d[key] += value` (or `d[key].append(...)`) where d does not hold the key yet: start each key first, with
    dict.get, setdefault or a defaultdict, Python's ways of giving a key its first value. Told the error, and even
    what the line's parts held (an empty dict), a small model tends to send `total[name] += ...` back unchanged: it
    needs the fix named."""
    key = _KEY_ERROR.search(facts.error)
    arrows = arrow_lines(facts.error)
    if not key or not arrows:
        return None
    try:
        tree = ast.parse(arrows[-1].strip())
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        target: ast.expr
        if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
            target, variant = node.target, "add"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("append", "extend")):
            target, variant = node.func.value, "append"
        else:
            continue
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return Finding({"name": target.value.id, "key": ast.unparse(target.slice), "value": key[1]}, variant)
    return None


def string_expected(facts: Facts) -> Finding | None:
    """For `re.findall(pattern, lines)` with a list of lines: re reads one string, so take them one at a time, or join
    them. Told only the error, a model may replace one list with another (readlines() with read().splitlines()) and
    meet it again."""
    match = _STRING_EXPECTED.search(facts.error)
    if not match or match[1] not in ("list", "tuple", "generator", "map", "filter"):
        return None
    calls = [found for line in arrow_lines(facts.error) for found in re.findall(r"\bre\.\w+\([^,()]+,\s*(\w+)", line)]
    return Finding({"kind": match[1], "name": calls[0] if calls else "it"})
