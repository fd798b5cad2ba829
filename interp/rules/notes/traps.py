"""Known traps in code that ran cleanly: mistakes that raise nothing and print a plausible wrong number.

Asked for the data rows of a CSV "not counting the header", code that reads it with csv.DictReader and then drops one
more row (`len(rows) - 1`, `[1:]`, `next(reader)`) is one short: DictReader has taken the header already (and so has
pandas' read_csv). Code that counts files with `ls -l | wc -l` counts `ls -l`'s `total` line too; grep
`\\.(jpg|png|gif)$` without -E reads `(`, `|` and `)` as plain characters and matches nothing. Nothing fails, so no
repair starts: each trap found is said to the model after the output, once a turn, as a fact it can weigh
(prompts/rules/ID.md); the code is not changed and nothing runs. A grep that matched nothing ends with exit status 1,
so its trap is said after that failure too. A result printed as nan is the trace of missing values that a numpy or
scipy function did not skip.
"""

from __future__ import annotations

import ast
import re

from interp.rules.facts import Facts
from interp.rules.rule import Finding, Rule, Scope

SHELL = Scope(languages=("shell",))
_LS_COUNT = re.compile(r"\bls\s+(?:-\w*l\w*\s+)+[^|;&\n]*\|\s*wc\s+-l\b")
_GREP = re.compile(r"\bgrep((?:\s+-[-\w]+)*)\s+(['\"])(.*?)\2")  # grep, its options, a quoted pattern
_NOT_BASIC = ("--extended-regexp", "--perl-regexp", "--fixed-strings")
_HEADER = re.compile(r"\bheaders?\b", re.IGNORECASE)
_EXTENDED = re.compile(r"(?<!\\)\||(?<=[\])])[+?]")  # alternatives, repeats: syntax in an extended expression only


def _grep_basic(facts: Facts) -> Finding | None:
    """grep without -E (or -P, -F) given a pattern with `|`, or `+` or `?` after a class or a group: in a basic
    regular expression those are ordinary characters, so `grep '\\.(jpg|png)$'` matches only names that hold that
    text (counting files by extension, it counts 0). Said after the failure too: a grep that matched nothing ends
    with exit status 1."""
    for match in _GREP.finditer(facts.code):
        if any(o in _NOT_BASIC if o.startswith("--") else set("EPF") & set(o[1:]) for o in match[1].split()):
            continue
        if _EXTENDED.search(match[3]):
            return Finding()
    return None


def _ls_count(facts: Facts) -> Finding | None:
    """`ls -l | wc -l` counts the `total` line `ls -l` prints before the entries: one line too many."""
    return Finding() if _LS_COUNT.search(facts.code) else None


def _dictreader_header(facts: Facts) -> Finding | None:
    """csv.DictReader, and one row more dropped (`[1:]`, `next(...)`, or `len(...) - 1`): DictReader reads the
    header line itself, so every row it gives is a data row, and dropping one loses data. The same for pandas'
    read_csv (`len(df) - 1`, `df.shape[0] - 1`, `df[1:]`) where the request speaks of the header: elsewhere a count
    less one is as often a sample's degrees of freedom."""
    nodes = list(ast.walk(facts.tree)) if facts.tree else []
    calls = {name_of(n.func) for n in nodes if isinstance(n, ast.Call)}
    reader = "csv" if "DictReader" in calls else "pandas" if "read_csv" in calls and _HEADER.search(facts.typed) \
        else None
    if reader is None:
        return None
    for node in nodes:
        if isinstance(node, ast.Slice) and _is_one(node.lower) and node.upper is None and node.step is None:
            return Finding({}, reader)
        if isinstance(node, ast.Call) and name_of(node.func) == "next":
            return Finding({}, reader)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _is_one(node.right) and _counts(node.left):
            return Finding({}, reader)
    return None


def _counts(node: ast.expr) -> bool:
    """`len(...)`, or a frame's row count `x.shape[0]`."""
    if isinstance(node, ast.Call):
        return name_of(node.func) == "len"
    return (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
            and isinstance(node.slice, ast.Constant) and node.slice.value == 0)


_NAN = re.compile(r"(?<![\w.])nan(?![\w.])", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w.])", re.IGNORECASE)


def _nan_result(facts: Facts) -> Finding | None:
    """Output with a line whose only value is nan (`@r[nan]`, `p-value: nan`): a result computed from values some of
    which are missing, which numpy and scipy functions (np.mean, pearsonr, shapiro) do not skip. A line that holds
    numbers too (a table's row, a series' index) is a display of data with blanks, and left alone."""
    return Finding() if any(_NAN.search(line) and not _NUMBER.search(line) for line in facts.output.splitlines()) \
        else None


def name_of(node: ast.expr) -> str:
    """The name a call's function goes by: `f` of f(), `DictReader` of csv.DictReader()."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _is_one(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1


RULES = [
    Rule("dictreader_header", "after_run", _dictreader_header, once=True),
    Rule("ls_count", "after_run", _ls_count, SHELL, once=True),
    Rule("grep_basic", "after_run", _grep_basic, SHELL, once=True),
    Rule("nan_result", "after_run", _nan_result, Scope(libraries=("pandas",)), once=True),
]
