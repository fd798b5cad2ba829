"""The keys a dict does hold, for a KeyError on it, read from the frame the error was raised in."""

from __future__ import annotations

import ast
import difflib

from interp.common.textclean import arrow_lines
from interp.rules.errors.library import likeness, literal
from interp.rules.facts import Facts
from interp.rules.rule import Finding

MAX_NAMES = 4  # subscripted names of the failing line asked about
MAX_KEYS = 40  # keys shown, the closest first
READ_KEYS = 400  # keys read from the kernel, among which the closest are found

# Evaluated in the kernel: for the KeyError the kernel holds as its last error, the first of `names` that, in the
# innermost frame of its traceback that binds it, is a dict without the key: the key, the dict's size, the name and
# the reprs of its first keys, a line each. Anything else raises, and the kernel leaves the expression out. One
# expression, not one per name: a failed user expression becomes the kernel's last error.
_HELD = ("(lambda e, names: (lambda hit: '\\n'.join([repr(e.args[0])[:80], str(len(hit[1])), hit[0], *(repr(k)[:80] "
         "for k in list(hit[1])[:{read}])]))(next((n, f.f_locals[n]) for f, _ in reversed(list(__import__('traceback')"
         ".walk_tb(e.__traceback__))) for n in names if type(f.f_locals.get(n)) is dict "
         "and e.args[0] not in f.f_locals[n])) if isinstance(e, KeyError) and e.args else 1 / 0)"
         "(getattr(__import__('sys'), 'last_value', None), {names!r})")


def dict_keys(facts: Facts) -> Finding | None:
    """For a KeyError on a dict, wherever the code read it (a loop, a comprehension, a function): the keys the dict
    does hold, the closest to the missing one first, as the frame that raised holds them. A key guessed (a column
    name written otherwise, a header read with the wrong delimiter, a unit the table lacks) shows at once; told only
    the missing key, a model tends to guess again. Only a plain dict is asked about (its keys are data, and listing
    them runs no code of the program's); an empty one is said to be empty."""
    if not facts.error_line.startswith("KeyError"):
        return None
    names = _subscripted(arrow_lines(facts.error))
    held = facts.evaluate({"held": _HELD.format(names=names, read=READ_KEYS)}).get("held") if names else None
    parts = held.split("\n") if held is not None else []
    if len(parts) < 3 or not parts[1].isdigit():  # no answer, or not the one asked for (code can redefine names)
        return None
    key, count, name, *keys = parts
    if count == "0":
        return Finding({"name": name, "key": key}, "empty")
    wanted = _text(key)

    def distance(shown: str) -> tuple[float, float]:
        text = _text(shown)
        return -likeness(wanted, text), -difflib.SequenceMatcher(None, wanted, text).ratio()

    keys.sort(key=distance)
    more = int(count) - MAX_KEYS
    shown = ", ".join(keys[:MAX_KEYS]) + (f", ... {more} more" if more > 0 else "")
    return Finding({"name": name, "key": key, "count": count, "keys": shown}, "keys")


def _subscripted(lines: list[str]) -> list[str]:
    """The plain names the lines index (`row` of `row['price']`), the innermost frame's line first."""
    found: dict[str, None] = {}
    for line in reversed(lines):
        try:
            tree = ast.parse(line.strip())
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                found.setdefault(node.value.id, None)
    return list(found)[:MAX_NAMES]


def _text(shown: str) -> str:
    """A key as text, from its repr: a string's own text, anything else's repr."""
    value = literal(shown)
    return value if isinstance(value, str) else shown
