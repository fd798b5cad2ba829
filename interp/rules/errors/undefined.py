"""Rules for a name that is not defined: the names that do exist, and a file's name written as a Python name.

A small model that misnames a variable tends to repeat the same name; being shown the names that do exist is what lets
it repair. The names come from the session's clean code (`defined_names`), gathered as it runs rather than asked of the
kernel.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable

from interp.common.textclean import arrow_lines
from interp.rules.errors.reading import DATA_KINDS, PANDAS_READERS, READERS
from interp.rules.facts import Facts
from interp.rules.rule import Finding

MAX_NAMES = 30  # names or files listed in a hint; the rest are counted
MISSING_NAME = re.compile(r"^NameError: name '([^']+)' is not defined", re.M)
ALIASES = {"pd": "pandas", "np": "numpy", "plt": "matplotlib.pyplot", "sns": "seaborn", "tf": "tensorflow",
           "mpl": "matplotlib", "px": "plotly.express", "pl": "polars"}  # the short names code gives modules


_PLAIN = re.compile(r"[A-Za-z0-9_/-]+(?:\.[A-Za-z0-9_]+)?/?")  # ASCII, and at most one extension


def written(name: str) -> str:
    """A name as code must write it: as it is when it is plain (ASCII letters, digits, `_-/` and one extension), else
    as a Python string literal, so that its spaces, quotes, accents and dots are kept exactly: 'veracruz 2016.csv'.
    Told such a name bare, a model writes it as it would name a file itself (veracruz_2016.csv), again and again."""
    return name if _PLAIN.fullmatch(name) else repr(name)


def listing(names: Iterable[str]) -> str:
    """Names, sorted and comma-separated, at most MAX_NAMES of them, each as code writes it (`written`)."""
    names = sorted({written(name) for name in names})
    shown = ", ".join(names[:MAX_NAMES])
    more = len(names) - MAX_NAMES
    return f"{shown} and {more} more" if more > 0 else shown


def nearest(name: str, candidates: list[str]) -> str:
    """The candidates closest to a name, at most three, each as code writes it (`written`), joined with 'or'; empty
    when none is close."""
    return " or ".join(written(found) for found in difflib.get_close_matches(name, candidates, n=3, cutoff=0.6))


def defined_names(code: str) -> set[str]:
    """The names Python code binds at its top level (assignments, loops, imports, functions, classes): what a later
    NameError hint offers, gathered from code that ran cleanly rather than asked of the kernel."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*")
        else:
            targets = [*getattr(node, "targets", []), getattr(node, "target", None),
                       *(item.optional_vars for item in getattr(node, "items", []))]
            names.update(n.id for t in targets if t is not None for n in ast.walk(t)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return {name for name in names if not name.startswith("_")}


def missing_name(facts: Facts) -> Finding | None:
    """For `NameError: name 'x' is not defined`: the names the session does define, and the closest of them. A model
    that misnames a variable tends to repeat the name; shown the names that exist, it picks the one it meant."""
    match = MISSING_NAME.search(facts.error)
    if not match:
        return None
    defined = list(facts.defined())
    if not defined:
        return Finding({"name": match[1]}, "none")
    close = nearest(match[1], defined)
    if close:
        return Finding({"name": match[1], "nearest": close, "names": listing(defined)}, "near")
    return Finding({"name": match[1], "names": listing(defined)}, "far")


def file_as_name(facts: Facts) -> Finding | None:
    """For `NameError: name 'orders'` where the line says `orders.json` and that file exists: the file is data on
    disk, not a name. Told only to define `orders`, a small model may type the file's preview into the code: data cut
    short, and stale once the file changes. A CSV file is read with pandas where the kernel has it."""
    match = MISSING_NAME.search(facts.error)
    if not match:
        return None
    arrows = "\n".join(arrow_lines(facts.error))
    for ext in dict.fromkeys(re.findall(rf"\b{re.escape(match[1])}(\.\w+)\b", arrows)):
        file = match[1] + ext
        if (facts.cwd / file).is_file():
            pandas = ext.lower() in PANDAS_READERS and facts.importable("pandas")
            reader = (PANDAS_READERS if pandas else READERS).get(ext.lower(), DATA_KINDS["text"])
            return Finding({"file": file, "example": reader.format(name=match[1], file=file)})
    return None
