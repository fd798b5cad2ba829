"""llama.cpp's libraries enter the interp process before any module that brings in libstdc++ (interp/_llama_first.py,
imported by interp/__init__.py: a CUDA build crashed loading a model otherwise), whichever of interp's modules is
imported first. The order is read from the interpreter's own audit events."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interp import _llama_first

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the library's name here is Linux's")

ORDER = """
import json, sys
events = []
def hook(event, args):
    if event == "import" and args[0] in ("zmq", "numpy", "llama_cpp"):
        events.append(("import", args[0]))
    elif event == "ctypes.dlopen" and "libllama" in str(args[0]):
        events.append(("dlopen", str(args[0])))
sys.addaudithook(hook)
import importlib
importlib.import_module(sys.argv[1])
print(json.dumps(events))
"""


def _events(module: str = "interp.cli", env: dict[str, str] | None = None) -> list[list[str]]:
    out = subprocess.run([sys.executable, "-c", ORDER, module], capture_output=True, text=True, timeout=60, check=True,
                         env={**os.environ, **(env or {})})
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("module", ["interp.cli", "interp.runtime.kernel", "interp.models.llama"])
def test_importing_interp_opens_libllama_before_zmq_or_numpy_is_imported(module: str) -> None:
    events = _events(module)
    kinds = [kind for kind, _ in events]
    assert "dlopen" in kinds, events
    assert ["import", "zmq"] in events or ["import", "numpy"] in events, events  # each brings one in, after it
    first_other = min(i for i, (kind, name) in enumerate(events) if kind == "import" and name in ("zmq", "numpy"))
    assert kinds.index("dlopen") < first_other, events


def test_the_library_opened_is_the_one_llama_cpp_loads() -> None:
    import llama_cpp.llama_cpp as low

    assert _llama_first.library() == Path(low._lib._name)


def test_a_folder_without_the_library_opens_nothing(tmp_path: Path) -> None:
    assert [kind for kind, _ in _events(env={"LLAMA_CPP_LIB_PATH": str(tmp_path)})].count("dlopen") == 0
