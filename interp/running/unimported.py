"""Names code uses without importing them: the import each needs is added before the code runs.

Small models often write `math.ceil(x)` or `ceil(x)` in a function and no import, and a version of a function whose
reply begins with its stub (examples.opening) cannot put an import above the `def`. Run, it fails the request's
examples with `NameError: name 'math' is not defined` and is set aside, a draw spent on a mistake that has nothing to
do with the function. So before Python code runs, the names it reads but never binds (no assignment, argument, def,
class or import of that name anywhere in it) are looked up in a table of names that code often uses unimported
(prompts/imports.json: modules, their usual aliases, functions of the standard library); those the kernel does not
hold already, and whose module it can import, get their import put before the code, which is shown and journaled (a
short name of a module that is not installed, `pd` without pandas, is left to fail: the NameError's hint says so,
the rule module_alias in rules/errors/).

A name the kernel holds is the user's, and left as it is, with one exception: the kernel holds it as the very object
the import gives, and no clean run bound it, so a run that failed imported it. Code that calls such a name passes in
the kernel, but the clean runs in order, as the script export takes them (notebook.py), would stop on its NameError.
Its import is added there too: nothing changes in the kernel, and the code shown runs on its own."""

from __future__ import annotations

import ast
import builtins

_BUILTINS = set(dir(builtins))


def free_names(code: str) -> list[str]:
    """The names Python code reads and binds nowhere in itself (nor are builtins), in order; none when it does not
    parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    bound: set[str] = set()
    read: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.append((node.lineno, node.col_offset, node.id))
        bound.update(_binds(node))
    names = dict.fromkeys(name for _, _, name in sorted(read))
    return [name for name in names if name not in bound and name not in _BUILTINS]


def bound_at_top(code: str) -> set[str]:
    """The names Python code binds in the namespace it runs in: not those bound only inside its functions, classes,
    lambdas and comprehensions (a function's or a class's own name is); none when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    bound: set[str] = set()
    nodes: list[ast.AST] = list(tree.body)
    while nodes:
        node = nodes.pop()
        bound.update(_binds(node))
        if not isinstance(node, (*_SCOPES, *_NAMELESS_SCOPES)):
            nodes.extend(ast.iter_child_nodes(node))
    return bound


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NAMELESS_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _binds(node: ast.AST) -> list[str]:
    """The names one node of the tree binds itself (an assignment's target, an argument, a def, an import...)."""
    if isinstance(node, ast.Name):
        return [] if isinstance(node.ctx, ast.Load) else [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, _SCOPES):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    return []


def needed(code: str, table: dict[str, str]) -> dict[str, str]:
    """The names in `table` that the code reads without binding, each with its import."""
    return {name: table[name] for name in free_names(code) if name in table}


def lacking(name: str, line: str, clean: bool) -> str:
    """An expression, for the kernel, that is True when code reading `name` needs the import `line` above it: the
    line's module can be imported, and the kernel does not hold the name or, unless a clean run bound it (`clean`),
    holds it as the very object the line imports. Such a name came from a run that failed (`from math import
    factorial` above a version whose example failed): the code runs in the kernel as it is, but the clean runs taken
    in order, as the script export takes them (notebook.py), lack its import."""
    found = f"__import__('importlib.util').util.find_spec({module(line)!r}) is not None"
    held = "False" if clean else f"globals()[{name!r}] is (lambda ns: exec({line!r}, ns) or ns[{name!r}])({{}})"
    return f"{found} and ({name!r} not in globals() or {held})"


def module(line: str) -> str:
    """The top-level module an import line of the table imports from (`from math import ceil`: math)."""
    return line.split()[1].split(".")[0]


def with_imports(code: str, imports: list[str]) -> str:
    """The code with these imports before it (after its `from __future__` imports, which must come first), on the line
    where it starts, joined with `;`, so that a traceback's line numbers are the code's as the model wrote it; on lines
    of their own above it when that line starts a compound statement (`def`, `for`, a decorator), which cannot follow
    a `;`."""
    if not imports:
        return code
    lines = code.splitlines()
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError):
        body = []
    start, rest = _start(body)
    if start < len(lines) and (not lines[start].strip() or lines[start].lstrip().startswith("#") or (
            rest is not None and rest.lineno == start + 1 and not isinstance(rest, _COMPOUND))):
        lines[start] = "; ".join([*imports, *([lines[start]] if lines[start].strip() else [])])
        return "\n".join(lines)
    return "\n".join([*lines[:start], *imports, "", *lines[start:]])


_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
             ast.AsyncWith, ast.Try, getattr(ast, "TryStar", ast.Try), ast.Match)


def _start(body: list[ast.stmt]) -> tuple[int, ast.stmt | None]:
    """The index of the line after the code's docstring and `from __future__` imports, and the statement after them."""
    start = 0
    for i, node in enumerate(body):
        docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (docstring or isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            return start, node
        if not docstring:
            start = node.end_lineno or node.lineno
    return start, None
