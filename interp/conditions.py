"""What a condition that matched nothing was tested on, read from the kernel after a clean run.

Asked for the March rows of a CSV, the 1.5B kept `[row for row in sales if row['date'] == '2024-03']`, was told the
list was empty, and tried `== '2024-03-01'`: nothing it was shown said that the dates are written '2024-03-05'. Asked
to count the ERROR lines of a log, it tested `line.startswith('ERROR')` on lines that begin with a date. A person
would print a few of the values the condition saw; so does interp, when a clean run's result is empty or all zeros.

A filter is an `if` of a comprehension, or an `if` directly in the body of a top-level `for` loop, over a list, tuple,
dict, str or range the session holds (a name, or an item or attribute of one) or over `open('a constant path')`
(read-only, opened anew). What the condition tests is the part of it that reads the loop's variable (the left of
`row['date'] == '2024-03'`, the `line` of `line.startswith('ERROR')`), if it is safe to evaluate (probe.py's rules);
its values for the first SAMPLES items are described by the kernel's user_expressions, as probe.py and values.py do.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from interp.probe import is_safe

SAMPLES = 3  # items whose values are shown
MAX_FILTERS = 2
MAX_CHARS = 240  # of one line shown
_SEQUENCES = "(list, tuple, dict, str, range)"


@dataclass(frozen=True)
class Filter:
    """`condition`, which tests `subject`, for each `target` in `items`."""

    condition: str
    subject: str
    target: str
    items: str

    def expression(self) -> str:
        """The kernel expression of the subject's values for the first items; it raises (and the kernel leaves it
        out) when the items are not a sequence the session holds, so nothing is consumed."""
        first = f"__import__('itertools').islice(items, {SAMPLES})"
        check = "" if self.items.startswith("open(") else f" if isinstance(items, {_SEQUENCES}) else 1 / 0"
        return f"(lambda items: [{self.subject} for {self.target} in {first}]{check})({self.items})"


def filters(code: str) -> list[Filter]:
    """The filters of the code whose condition tests something of the loop's variable, at most MAX_FILTERS."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found: dict[Filter, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            for condition in node.ifs:
                _add(found, condition, node.target, node.iter)
    for node in tree.body:
        if isinstance(node, ast.For):
            for statement in node.body:
                if isinstance(statement, ast.If):
                    _add(found, statement.test, node.target, node.iter)
    return list(found)[:MAX_FILTERS]


def _add(found: dict[Filter, None], condition: ast.expr, target: ast.expr, items: ast.expr) -> None:
    names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    if not names or not _readable(items):
        return
    subject = _subject(condition, names)
    if subject is not None and is_safe(subject):
        found.setdefault(Filter(ast.unparse(condition), ast.unparse(subject), ast.unparse(target),
                                ast.unparse(items)), None)


def _subject(condition: ast.expr, names: set[str]) -> ast.expr | None:
    """The part of the condition that reads the loop's variable: an operand of a comparison, the object of a method
    call (`line.startswith(...)`) or else an argument of the call (`re.search(pattern, line)`), the first such of
    `and`/`or`/`not`."""
    if isinstance(condition, ast.BoolOp):
        return next(filter(None, (_subject(value, names) for value in condition.values)), None)
    if isinstance(condition, ast.UnaryOp) and isinstance(condition.op, ast.Not):
        return _subject(condition.operand, names)
    if isinstance(condition, ast.Compare):
        return next((part for part in (condition.left, *condition.comparators) if _reads(part, names)), None)
    if isinstance(condition, ast.Call):
        if isinstance(condition.func, ast.Attribute) and _reads(condition.func.value, names):
            return condition.func.value
        return next((arg for arg in condition.args if _reads(arg, names)), None)
    return None


def _reads(node: ast.expr, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _readable(node: ast.expr) -> bool:
    """A name, an item or attribute of one with constant keys, or `open()` of a constant path for reading."""
    if isinstance(node, ast.Call):
        mode = node.args[1] if len(node.args) > 1 else None
        return (isinstance(node.func, ast.Name) and node.func.id == "open" and len(node.args) in (1, 2)
                and not node.keywords and all(isinstance(arg, ast.Constant) for arg in node.args)
                and (mode is None or (isinstance(mode, ast.Constant) and mode.value in ("r", "rt"))))
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def described(values: dict[str, str], found: list[Filter]) -> str:
    """A line for each filter the kernel answered: the subject, its condition, and the values it was tested on."""
    lines = []
    for item in found:
        if (value := values.get(item.expression())) is not None:
            text = f"{item.subject} (tested by `{item.condition}`) was, for the first items: {value}"
            lines.append(text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 4] + " ...")
    return "\n".join(lines)
