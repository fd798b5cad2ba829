"""The kernel seam (interp/runtime/kernel_api.py): it imports none of the code that confines a kernel, the kernel
modules import each other in no circle, and auto-run (answer `a`, `%auto on`) confines the kernels through the pool."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import records
from fakes import FakeKernels, ScriptedKernel, make_session, out, raised, turn

from interp.common.events import Confirm, Notice

ROOT = Path(__file__).resolve().parents[2]
CONFINING = {"interp.runtime.sandbox", "interp.runtime._confine", "interp.runtime.places"}
KERNEL_MODULES = [f"interp.runtime.{name}" for name in ("kernel_api", "kernel", "kernel_launch", "kernel_choice",
                                                        "kernels", "carry", "sandbox", "places", "_confine")]


def test_importing_the_seam_loads_no_sandbox_module() -> None:
    code = "import json, sys, interp.runtime.kernel_api; print(json.dumps(sorted(sys.modules)))"
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT, timeout=60)
    loaded = set(json.loads(ran.stdout.splitlines()[-1]))
    assert "interp.runtime.kernel_api" in loaded and not CONFINING & loaded


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The modules of interp the file imports, anywhere in it (a deferred import is a dependency too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return found & modules


def _graph() -> dict[str, set[str]]:
    paths = {_module(path): path for path in (ROOT / "interp").rglob("*.py")}
    return {name: _imports(path, set(paths)) - {"interp"} for name, path in paths.items()}


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += graph[name]
    return seen


def test_the_seam_imports_no_sandbox_module_even_indirectly() -> None:
    graph = _graph()
    assert not CONFINING & _reachable(graph, "interp.runtime.kernel_api")


@pytest.mark.parametrize("module", KERNEL_MODULES)
def test_no_kernel_module_imports_itself_back(module: str) -> None:
    assert module not in _reachable(_graph(), module)


@pytest.mark.parametrize("allowed", [True, False], ids=["confined", "refused"])
def test_answering_a_confines_the_kernels_through_the_pool(tmp_path: Path, allowed: bool) -> None:
    kernel = ScriptedKernel([raised("E", "1")], [out("ok\n")])
    session = make_session(tmp_path, ["```python\nfail()\n```", "```python\nprint('ok')\n```", "done"], kernel,
                           yes=False)
    kernels = session.kernels
    assert isinstance(kernels, FakeKernels)
    kernels.confining = (allowed, ["what the sandbox says"])
    events, status = turn(session, confirm="a")
    asked = sum(isinstance(e, Confirm) for e in events)
    said = [(e.text, e.level) for e in events if isinstance(e, Notice) and e.text == "what the sandbox says"]
    assert status == "ok" and len(kernel.executed) == 2 and session.state.auto_run is allowed
    assert kernels.confined == asked == (1 if allowed else 2)  # refused, each block is asked for again
    assert said == [("what the sandbox says", "warning" if allowed else "error")] * asked
    assert len(records(tmp_path / "j.jsonl", "auto_run")) == allowed
