"""The code's shape: small modules, short functions, no import circles inside a package. The limits are the team's
(a module past them is usually two); ruff checks complexity (C901) and mypy the types."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "interp"
MODULE_LINES = 320
FUNCTION_LINES = 50
MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_and_functions_are_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MODULE_LINES
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno
            and node.end_lineno - node.lineno + 1 > FUNCTION_LINES]
    assert not long


def _imports() -> dict[str, set[str]]:
    """Each module of interp and the modules of interp it imports, anywhere in it (an import deferred into a function
    still ties the two modules together). `from P import M` of a submodule M imports P.M."""
    names = {".".join(("interp", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__"): p
             for p in MODULES}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("interp"):
                found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in names else node.module
                          for a in node.names}
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("interp")}
        graph[name] = {other for other in found if other in names and other != name}
    return graph


def _circle(graph: dict[str, set[str]], start: str) -> list[str] | None:
    """A path of imports from `start` back to itself, or None."""
    seen: set[str] = set()
    stack = [(start, [start])]
    while stack:
        name, path = stack.pop()
        for other in sorted(graph[name]):
            if other == start:
                return [*path, start]
            if other not in seen:
                seen.add(other)
                stack.append((other, [*path, other]))
    return None


def test_no_module_imports_itself_back() -> None:
    graph = _imports()
    circles = [" -> ".join(found) for start in graph if (found := _circle(graph, start))]
    assert not circles
