"""Example tables in a request, run as checks of the function that turns its input tables into its output table.

A request for a function over data frames often shows one example as text tables: the input tables, each under its
parameter's name ("customers:", "Scores table:"), and the table the function should return, as a database console or a
puzzle site draws them (`+----+-------+` borders) or as Markdown writes them (`| id | name |` over `|----|------|`). The
columns a result keeps and the values it holds are there for the function to match; code that only defines the
function runs cleanly whether it keeps them or not. So the example becomes a check like the request's other examples
(examples.py): the input tables are built as data frames, the function is called on them, and its result is compared
with the output table (by HELPER, which the check's cell defines first, so that the cell runs in any kernel and in a
notebook exported from the session): its columns by name in any order, its rows in any order, each value as text (a
number as its value, so `3.50` is `3.5`; `null` and `None` as missing; a date as its day). A function annotated
`-> None` changes its table in place: the table after the call is compared.

Read only where the request gives one function's signature (a stub, or `def f(a: pd.DataFrame)` in backticks), the
input tables are as many as its parameters (named as them, or one table for one parameter) and one output table
follows them under a line that says "output".
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

MAX_ROWS = 200  # rows a table of an example may have; a longer one is data, not an example
MAX_SHOWN = 600  # characters of each side a failed check shows
_BORDER = re.compile(r"^\s*\+[-+=]*\+\s*$")
_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")  # Markdown's line under a header
_ROW = re.compile(r"^\s*\|.*\|\s*$")
_INPUT = re.compile(r"^\W*(?:example\s*\d*\W*)?input\b", re.I)
_OUTPUT = re.compile(r"^\W*(?:example\s*\d*\W*)?(?:output|result|expected)\b", re.I)
_LABEL = re.compile(r"^\s*`?(\w[\w ]*?)`?\s*(?:table|data ?frame)?\s*[:=]?\s*$", re.I)
_INLINE = re.compile(r"`(?:async\s+)?def\s+(\w+\s*\([^`]*\)(?:\s*->\s*[^`:]+)?):?\s*`")
_NULLS = {"null", "none", "nan", "nat", "na", "<na>"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
_DATE_TYPES = {"date", "datetime", "timestamp", "datetime64"}

# Defines, in the kernel, how a table is told as one line: what a result and the example's output are compared by.
HELPER = '''import numbers as _interp_numbers
import pandas as _interp_pd
def _interp_cell(value):
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower()
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return value.strip()
    if value is None or (_interp_pd.api.types.is_scalar(value) and _interp_pd.isna(value)):
        return None
    if isinstance(value, _interp_pd.Timestamp):
        text = str(value)
        return text[:-9] if text.endswith(" 00:00:00") else text
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return str(bool(value)).lower()
    if isinstance(value, _interp_numbers.Real):
        text = ("%.5f" % float(value)).rstrip("0").rstrip(".")
        return "0" if text == "-0" else text
    return str(value).strip()
def _interp_table(table, columns=None):
    if not isinstance(table, _interp_pd.DataFrame):
        values = table.tolist() if hasattr(table, "tolist") else table
        return f"a {type(table).__name__}, not a DataFrame: {values!r:.200}"
    names = [str(name) for name in table.columns]
    if columns is not None and sorted(names) == sorted(columns) and len(set(names)) == len(names):
        table, names = table.set_axis(names, axis=1)[list(columns)], list(columns)
    rows = sorted((tuple(map(_interp_cell, row)) for row in table.itertuples(index=False)), key=repr)
    return f"columns {names}, {len(rows)} rows: {rows}"
'''


@dataclass(frozen=True)
class Table:
    label: str  # the line above it ("customers:"), or ""
    header: list[str]
    rows: list[list[str]]


def signature(request: str, stub: tuple[str, list[str]] | None) -> tuple[str, list[str], bool] | None:
    """The function the request asks for: its name, its parameters and whether it is annotated `-> None`; the stub
    examples.py found, else the one `def` the request writes in backticks."""
    found = _INLINE.findall(request)
    if len(found) == 1:
        try:
            node = ast.parse(f"def {found[0]}: pass").body[0]
        except (SyntaxError, ValueError):
            return None
        assert isinstance(node, ast.FunctionDef)
        if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.posonlyargs:
            return None
        returns_none = isinstance(node.returns, ast.Constant) and node.returns.value is None
        return node.name, [a.arg for a in node.args.args], returns_none
    return (*stub, False) if stub is not None and not found else None


def tables(lines: list[str]) -> list[tuple[int, Table]]:
    """The text tables among these lines, each with the line it starts on."""
    found, i = [], 0
    while i < len(lines):
        table, end = _table(lines, i)
        if table is not None:
            found.append((i, table))
        i = max(end, i + 1)
    return found


def _table(lines: list[str], i: int) -> tuple[Table | None, int]:
    """The table that starts at line `i` (a border, or a Markdown header over its rule), and the line after it."""
    boxed = bool(_BORDER.match(lines[i]))
    if not boxed and not (_ROW.match(lines[i]) and i + 1 < len(lines) and _RULE.match(lines[i + 1])
                          and "|" in lines[i + 1]):
        return None, i + 1
    j = i + 1 if boxed else i
    if j >= len(lines) or not _ROW.match(lines[j]):
        return None, i + 1
    header, j = _cells(lines[j]), j + 1
    rows = []
    while j < len(lines) and (_ROW.match(lines[j]) or _BORDER.match(lines[j]) or _RULE.match(lines[j])):
        if _ROW.match(lines[j]) and not _RULE.match(lines[j]):
            rows.append(_cells(lines[j]))
        j += 1
    if not header or any(len(row) != len(header) for row in rows) or len(rows) > MAX_ROWS:
        return None, j
    label = next((line.strip() for line in reversed(lines[max(0, i - 2):i]) if line.strip().strip("`")), "")
    return Table(label, header, rows), j


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def pairs(request: str) -> list[tuple[list[Table], Table]]:
    """The examples: the tables under a line that says "input" and the one table under the next line that says
    "output" after them."""
    lines = request.splitlines()
    found = dict(tables(lines))
    examples, inputs, section = [], [], ""
    for i, line in enumerate(lines):
        if i in found:
            if section == "input":
                inputs.append(found[i])
            elif section == "output" and inputs:
                examples.append((inputs, found[i]))
                inputs, section = [], ""
        elif _INPUT.match(line):
            inputs, section = [], "input"
        elif _OUTPUT.match(line):
            section = "output"
    return examples


def bound(parameters: list[str], inputs: list[Table]) -> list[Table] | None:
    """The input tables in the parameters' order: by their labels ("customers:", "Customers table:"), or the one
    table for the one parameter; None when they do not fit."""
    if len(inputs) != len(parameters):
        return None
    if len(inputs) == 1:
        return inputs
    named = {_name(t.label): t for t in inputs}
    return [named[p.lower()] for p in parameters] if all(p.lower() in named for p in parameters) else None


def _name(label: str) -> str:
    match = _LABEL.match(label)
    return match[1].strip().lower().replace(" ", "_") if match else ""


def declared(request: str) -> dict[str, str]:
    """The column types the request declares, a line each ("- sell_date: datetime")."""
    return {name: kind.lower() for name, kind in re.findall(r"^\s*[-*]\s*`?(\w+)`?\s*:\s*(\w+)", request, re.M)}


def frame(table: Table, types: dict[str, str]) -> str:
    """Python that builds the table as a data frame: numbers as numbers, `null` as missing, a column of dates (or
    declared as dates) as datetimes, text as text (a column declared `str` stays text even where it reads as
    numbers)."""
    columns = []
    for k, name in enumerate(table.header):
        cells = [row[k] for row in table.rows]
        values = [_value(cell, types.get(name, "")) for cell in cells]
        text = repr(values)
        present = [c for c in cells if c.lower() not in _NULLS]
        if types.get(name, "") in _DATE_TYPES or (present and all(_DATE.match(c) for c in present)):
            text = f"_interp_pd.to_datetime({text})"
        columns.append(f"{name!r}: {text}")
    return f"_interp_pd.DataFrame({{{', '.join(columns)}}})"


def _value(cell: str, kind: str) -> object:
    if cell.lower() in _NULLS:
        return None
    if kind in ("str", "string", "text", "varchar", "object"):
        return cell
    for read in (int, float):
        try:
            return read(cell)
        except ValueError:
            pass
    return cell


def check(name: str, parameters: list[str], returns_none: bool, inputs: list[Table], output: Table,
          types: dict[str, str]) -> str:
    """One line: an assert that the function, called on the example's input tables, gives its output table; when it
    fails, its message shows both tables as the check compares them."""
    built = [frame(t, types) for t in inputs]
    if returns_none:
        call = f"(_interp_in := {built[0]}, {name}({', '.join(['_interp_in', *built[1:]])}))[0]"
    else:
        call = f"{name}({', '.join(built)})"
    want = frame(output, {})
    told = f"{name}({', '.join(parameters)})"
    gives = "left its table as" if returns_none else "returned"
    message = (f"'check failed: {told} on the example input in my request {gives} ' + _interp_left[:{MAX_SHOWN}] + "
               f"'; the example output has ' + _interp_right[:{MAX_SHOWN}]")
    return (f"assert (_interp_left := _interp_table({call}, {output.header!r})) == "
            f"(_interp_right := _interp_table({want})), {message}")
