"""Code that would empty a file the request reads, stopped before it runs.

Asked to "Write expenses_clean.csv from expenses.csv", a small model may open expenses.csv itself with 'w': the file is
empty before its code reads a row, the user's data is gone, and every later attempt reads nothing. When a request names
a file that does not exist yet (what it asks to be written) and an existing one (what it reads), code that opens the
existing one for writing is not run and the model is told why: writing over the file the request reads is never what
such a request asks. A request that names only the existing file ("In config.json, set debug to true and save the file")
writes it as asked.

It reads the code's text, so it knows only names given as literals; code that reaches the file another way (a name in
a variable, os.path.join, shutil.copy over it, os.remove, `sed -i`) runs, and running/safekeep.py puts the file back
from the copy it kept. This rule stays for what it can see: such code does not run at all, nothing it would do after
emptying the file happens (an empty output written from it), and the model is told which call emptied which file.
"""

from __future__ import annotations

import ast
import os
import re

from interp.rules.facts import Facts
from interp.rules.rule import Finding

_WRITERS = {"write_text", "write_bytes", "to_csv", "to_json", "to_excel", "to_parquet", "savefig"}


def _same(a: str, b: str) -> bool:
    return os.path.normpath(a) == os.path.normpath(b)


def writes_over_source(facts: Facts) -> Finding | None:
    """The code would write over a file the request reads (the request names that file and another, not there yet, to
    write, and asks for no change to the first): opening it with 'w' empties it before a row is read, and the user's
    data is gone. The code is not run; the model is told to read that file and write the other."""
    file = empties(facts.language, facts.code, list(facts.reads))
    if file is None:
        return None
    return Finding({"file": file, "target": facts.writes[0] if facts.writes else "a new file"})


def empties(language: str, code: str, sources: list[str]) -> str | None:
    """The file of `sources` this code would write over, or None. Python: open(name) with a mode that writes
    ('w', 'w+', 'x'; not 'a', which keeps what is there), Path(name).write_text() and the like, and pandas or
    matplotlib's writers given the name; shell: a `>` redirection to it (not `>>`)."""
    if not sources:
        return None
    if language == "shell":
        written = re.findall(r"(?<![>&\d])>\s*['\"]?([^\s'\";|&<>]+)", code)
        return next((source for name in written for source in sources if _same(name, source)), None)
    if language != "python":
        return None
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    written = [name for node in ast.walk(tree) if isinstance(node, ast.Call) and (name := _written(node))]
    return next((source for name in written for source in sources if _same(name, source)), None)


def opened(code: str) -> list[tuple[str, str]]:
    """The files the code's open() calls name as literals, each with its mode ('r' where none is given as one)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    return [(name, _mode(node, 1)) for node in ast.walk(tree) if isinstance(node, ast.Call) and (name := _open(node))]


def _open(call: ast.Call) -> str | None:
    """The literal name an open('x.csv', ...) call opens."""
    if isinstance(call.func, ast.Name) and call.func.id == "open":
        return _literal(call.args[0] if call.args else None)
    return None


def _written(call: ast.Call) -> str | None:
    """The name of the file a call writes from its start, when the code gives it as a literal."""
    func = call.func
    if name := _open(call):  # open('x.csv', 'w')
        return name if _empties(_mode(call, 1)) else None
    if isinstance(func, ast.Attribute) and func.attr == "open":  # Path('x.csv').open('w')
        return _literal(_path_of(func)) if _empties(_mode(call, 0)) else None
    if isinstance(func, ast.Attribute) and func.attr in _WRITERS:
        if func.attr in ("write_text", "write_bytes"):
            return _literal(_path_of(func))
        return _literal(call.args[0]) if call.args else None
    return None


def _mode(call: ast.Call, position: int) -> str:
    """An open() call's mode: its argument at `position`, or mode=; 'r' where the code gives none as a literal."""
    modes = [*call.args[position:position + 1], *(keyword.value for keyword in call.keywords if keyword.arg == "mode")]
    return modes[0].value if modes and isinstance(modes[0], ast.Constant) and isinstance(modes[0].value, str) else "r"


def _empties(mode: str) -> bool:
    """Whether a file opened in this mode is emptied or made ('w', 'w+', 'x'; not 'a', 'r+')."""
    return bool(set(mode) & set("wx"))


def _path_of(func: ast.Attribute) -> ast.expr | None:
    """`Path('x.csv')` of `Path('x.csv').write_text(...)`."""
    owner = func.value
    if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "Path" and owner.args:
        return owner.args[0]
    return None


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
