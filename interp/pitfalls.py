"""Known traps in code that ran cleanly: mistakes that raise nothing and print a plausible wrong number.

The 1.5B, asked for the data rows of a CSV "not counting the header", read it with csv.DictReader and then dropped
one more row (`len(rows) - 1`, `[1:]`, `next(reader)`): DictReader has taken the header already (both seeds of the
simple tier, at every commit measured). Asked to count files with a shell command, it ran `ls -l | wc -l`, which
counts `ls -l`'s `total` line too. Nothing fails, so no repair starts: each trap found is said to the model after
the output, once a turn, as a fact it can weigh (prompts/pitfalls.json); the code is not changed and nothing runs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

_LS_COUNT = re.compile(r"\bls\s+(?:-\w*l\w*\s+)+[^|;&\n]*\|\s*wc\s+-l\b")


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
}


def found(language: str, code: str) -> list[str]:
    """The keys of the traps this code, which ran cleanly, falls into."""
    return [key for key, (lang, test) in RULES.items() if lang == language and test(code)]
