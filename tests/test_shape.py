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


# The layers of interp, bottom to top (docs/architecture.md): a module may import its own layer and those below.
LAYERS = [
    ("interp.common", "interp.config", "interp._llama_first"),  # events, text, files, messages, settings
    ("interp.runtime",),  # where code runs: kernels, the sandbox
    ("interp.models",),  # the model seam and its backends
    ("interp.rules", "interp.stores", "interp.versions"),  # help for the model, what a session keeps, versions
    ("interp.prompts",),  # the texts the model is told
    ("interp.reading", "interp.running"),  # what the model is shown of files and the kernel; a reply's code run
    ("interp.turn",),  # one request run to its end: the turn's core, its policy, its feedback
    ("interp.session",),  # what outlives a turn: the model, the kernels, the conversation, the rules
    ("interp.ui", "interp.programs"),  # the terminal, CoRE and PDL programs
    ("interp", "interp.__main__", "interp.cli"),  # the command line
]


def _layer(module: str) -> int:
    found = [(len(prefix), i) for i, group in enumerate(LAYERS) for prefix in group
             if module == prefix or module.startswith(prefix + ".")]
    assert found, f"{module} is in no layer of LAYERS"
    return max(found)[1]


def test_no_import_runs_upward() -> None:
    graph = _imports()
    upward = [f"{module} -> {other}" for module, others in graph.items() for other in others
              if _layer(other) > _layer(module)]
    assert not upward


def _package(module: str) -> str:
    """A module's package under interp (interp.turn for interp.turn.policy.actions), or the module itself at the top."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or (PACKAGE / parts[-1]).is_dir() else module


def test_no_package_imports_another_that_imports_it_back() -> None:
    packages: dict[str, set[str]] = {}
    for module, others in _imports().items():
        packages.setdefault(_package(module), set()).update(
            _package(other) for other in others if _package(other) != _package(module))
    circles = [" -> ".join(found) for start in packages if (found := _circle(packages, start))]
    assert not circles


def test_no_two_modules_share_a_name() -> None:
    """A module's name says what it does: two modules of one name (two `base`, two `facts`) say it of neither."""
    seen: dict[str, list[str]] = {}
    for path in MODULES:
        if path.name != "__init__.py":
            seen.setdefault(path.stem, []).append(str(path.relative_to(PACKAGE)))
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}
