"""The note on a filter that compared strings and matched nothing, told how close the data came: the values that
start with, or hold, the string the condition wanted whole.

A filter such as `[row for row in sales if row['date'] == '2024-03']` for the March rows of a CSV matches nothing; told
only that the list is empty, a model answers that no row matched, and shown the values the condition was tested on, it
tends to describe them back. What it lacks is the diagnosis: no date equals '2024-03', several start with it. So after a
clean Python run, each filter of the code whose condition is `subject == 'text'` or `subject.startswith('text')` /
`.endswith('text')` (an `if` of a comprehension, or an `if` directly in a top-level `for`, over a sequence the session
holds or a file opened anew for reading) is counted by the kernel's user_expressions, running nothing the user sees: how
many of the subject's string values match the condition, start with the text, and hold it. None matching and some
starting with it, or holding it, is said.

The same holds of a pandas mask, `sales[sales['date'] == '2024-03']` or `sales['date'].str.startswith('2024-03')`:
any such comparison whose subject is a column the session holds (an item of a name with a constant key, or an
attribute of one) is counted by pandas over that Series' string values, only where the kernel finds a Series there.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from interp.rules.errors.parts import is_safe
from interp.rules.facts import Facts
from interp.rules.rule import Finding, Rule

MAX_FILTERS = 2
MAX_EXAMPLE = 80  # characters of the example value shown
_SEQUENCES = "(list, tuple, dict, str, range)"


@dataclass(frozen=True)
class Filter:
    """`subject` compared with `text` by `test` ('==', 'startswith' or 'endswith'), for each `target` in `items`;
    for a pandas mask (`series`), the subject is a column and target and items are empty."""

    subject: str
    test: str
    text: str
    target: str
    items: str
    series: bool = False

    def expression(self) -> str:
        """A kernel expression for (matching, starting with the text, holding it, the first value that holds it),
        over the subject's string values; it raises (and the kernel leaves it out) when the items are not a
        sequence the session holds, or the column not a pandas Series, so nothing is consumed."""
        if self.series:
            return self._series_expression()
        tested = {"==": "v == t", "startswith": "v.startswith(t)", "endswith": "v.endswith(t)"}[self.test]
        count = (f"(lambda vs, t: (sum({tested} for v in vs), sum(v.startswith(t) for v in vs), sum(t in v for v in "
                 f"vs), next((v for v in vs if t in v), None)))")
        check = "" if self.items.startswith("open(") else f" if isinstance(items, {_SEQUENCES}) else 1 / 0"
        values = f"[v for {self.target} in items for v in [{self.subject}] if isinstance(v, str)]"
        return f"(lambda items: {count}({values}, {self.text!r}){check})({self.items})"

    def _series_expression(self) -> str:
        """The same counts over a pandas Series, computed by pandas (a column can be long): values that are not
        strings match nothing (`na=False`), and a column of another dtype has no `.str` (the expression raises)."""
        tested = {"==": "s == t", "startswith": "s.str.startswith(t, na=False)",
                  "endswith": "s.str.endswith(t, na=False)"}[self.test]
        count = (f"(lambda held: (int(({tested}).sum()), int(s.str.startswith(t, na=False).sum()), int(held.sum()), "
                 f"next(iter(s[held].head(1)), None)))(s.str.contains(t, regex=False, na=False))")
        check = "type(s).__name__ == 'Series' and type(s).__module__.startswith('pandas')"
        return f"(lambda s, t: {count} if {check} else 1 / 0)({self.subject}, {self.text!r})"

    def calls(self) -> tuple[str, str]:
        """The code that tests the start of the subject's values, and the code that tests for the text anywhere."""
        text = repr(self.text)
        if self.series:
            return f"{self.subject}.str.startswith({text})", f"{self.subject}.str.contains({text}, regex=False)"
        return f"{self.subject}.startswith({text})", f"{text} in {self.subject}"


@dataclass(frozen=True)
class NearMiss:
    """No value of `subject` passed the filter, and `count` of them start with (`starts`) or hold its text."""

    filter: Filter
    starts: bool
    count: int
    example: str


def filters(code: str) -> list[Filter]:
    """The code's string filters on something of a loop's variable, then its string comparisons of a column (pandas
    masks), at most MAX_FILTERS."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found: dict[Filter, None] = {}
    looped: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            looped |= _names(node.target)
            for condition in node.ifs:
                _add(found, condition, node.target, node.iter)
        elif isinstance(node, ast.For):
            looped |= _names(node.target)
    for node in tree.body:
        if isinstance(node, ast.For):
            for statement in node.body:
                if isinstance(statement, ast.If):
                    _add(found, statement.test, node.target, node.iter)
    for node in ast.walk(tree):
        compared = _compared(node) if isinstance(node, ast.expr) else None
        if compared is not None:
            _add_column(found, compared, looped)
    return list(found)[:MAX_FILTERS]


def _names(target: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _add_column(found: dict[Filter, None], compared: tuple[ast.expr, str, str], looped: set[str]) -> None:
    """A comparison of a column held by name: `df['col'] == 'text'`, `df.col.str.startswith('text')`; not one of a
    loop's variable (a row or a value, not a column)."""
    subject, test, text = compared
    if test != "==":
        if not (isinstance(subject, ast.Attribute) and subject.attr == "str"):
            return
        subject = subject.value
    if isinstance(subject, ast.Name) or not _readable(subject) or _names(subject) & looped:
        return
    found.setdefault(Filter(ast.unparse(subject), test, text, "", "", series=True), None)


def _add(found: dict[Filter, None], condition: ast.expr, target: ast.expr, items: ast.expr) -> None:
    names = _names(target)
    compared = _compared(condition)
    if not names or compared is None or not _readable(items):
        return
    subject, test, text = compared
    if any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(subject)) and is_safe(subject):
        found.setdefault(Filter(ast.unparse(subject), test, text, ast.unparse(target), ast.unparse(items)), None)


def _compared(condition: ast.expr) -> tuple[ast.expr, str, str] | None:
    """`x == 'text'` (either way round), `x.startswith('text')` or `x.endswith('text')`: x, the test and the text."""
    if isinstance(condition, ast.Compare) and len(condition.ops) == 1 and isinstance(condition.ops[0], ast.Eq):
        left, right = condition.left, condition.comparators[0]
        for subject, other in ((left, right), (right, left)):
            if isinstance(other, ast.Constant) and isinstance(other.value, str) and other.value:
                return subject, "==", other.value
    if (isinstance(condition, ast.Call) and isinstance(condition.func, ast.Attribute)
            and condition.func.attr in ("startswith", "endswith") and len(condition.args) == 1
            and not condition.keywords and isinstance(arg := condition.args[0], ast.Constant)
            and isinstance(arg.value, str) and arg.value):
        return condition.func.value, condition.func.attr, arg.value
    return None


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


def near_misses(answers: dict[str, str], found: list[Filter]) -> list[NearMiss]:
    """The filters that matched none of their values while some start with their text (an `==` whose text is the
    start of the values) or hold it (a test of the start or the end of values that hold it elsewhere)."""
    misses = []
    for item in found:
        try:
            matched, starting, holding, example = ast.literal_eval(answers.get(item.expression(), ""))
        except (ValueError, SyntaxError, TypeError):
            continue
        if matched or not isinstance(example, str):
            continue
        starts = item.test == "==" and starting > 0
        if starts or holding:
            shown = example if len(example) <= MAX_EXAMPLE else example[:MAX_EXAMPLE - 4] + " ..."
            misses.append(NearMiss(item, starts, starting if starts else holding, shown))
    return misses


_TESTED = {"==": "equals", "startswith": "starts with", "endswith": "ends with"}


def _near_miss(facts: Facts) -> Finding | None:
    """A string filter of clean code (or a pandas mask on a column) matched nothing, and the kernel counts values
    that start with its text (for an ==) or hold it: == compares whole strings, str.startswith tests the start and
    `in` tests anywhere, which is true of Python and pandas whatever the data. Asked only until said: the counts are
    a round trip to the kernel."""
    found = [] if facts.failed else filters(facts.code)
    misses = near_misses(facts.evaluate({f.expression(): f.expression() for f in found}), found) if found else []
    if not misses:
        return None
    miss = misses[0]
    starts, holds = miss.filter.calls()
    return Finding({"subject": miss.filter.subject, "text": repr(miss.filter.text), "count": miss.count,
                    "example": repr(miss.example), "tested": _TESTED[miss.filter.test], "starts_call": starts,
                    "holds_call": holds}, "starts" if miss.starts else "holds")


RULES = [Rule("near_miss", "after_run", _near_miss, once=True)]
