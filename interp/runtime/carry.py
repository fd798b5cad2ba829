"""Carries a Python kernel's variables into a fresh kernel: when auto-run turns the sandbox on, the running kernel (not
confined, and whose threads could not be confined in place) is replaced by a confined one that keeps the user's work.

Each variable the code defined is serialized alone, with dill where the kernel has it (functions and classes the code
defined, lambdas) and pickle otherwise; modules go across as their names and are imported again. What cannot be
serialized, and what a copy would reopen or restart rather than keep (open files, sockets, threads, generators), is
named, not carried. The file holding them is written in the old kernel's private folder and read once by the new
kernel, which runs it: it comes from the user's own kernel.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from interp.runtime.kernel import Kernel

_DUMP = """
def __interp_dump(path):
    import io, json, os, pickle, socket, threading, types
    try:
        serializer = __interp_import('dill')  # not one the code left in the working directory
    except ImportError:
        serializer = pickle
    live = (io.IOBase, socket.socket, threading.Thread, types.GeneratorType, types.CoroutineType)
    ip = get_ipython()
    hidden = set(ip.user_ns_hidden)
    state, modules, lost, kinds = {}, {}, {}, {}
    for name, value in list(ip.user_ns.items()):
        if name.startswith('_') or name in hidden:
            continue
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
            continue
        kinds[name] = type(value).__name__
        if isinstance(value, live):  # a copy would reopen, reconnect or restart it: not the same thing
            lost[name] = kinds[name]
            continue
        try:
            state[name] = serializer.dumps(value)
        except Exception:
            lost[name] = kinds[name]
    with open(path, 'wb') as f:
        pickle.dump({'state': state, 'modules': modules, 'cwd': os.getcwd()}, f)
    return json.dumps({'carried': sorted([*state, *modules]), 'lost': lost, 'kinds': kinds})
__interp_carry = __interp_dump(PATH)
del __interp_dump
"""

_LOAD = """
def __interp_load(path):
    import importlib, json, os, pickle
    try:
        serializer = __interp_import('dill')  # not one the code left in the working directory
    except ImportError:
        serializer = pickle
    with open(path, 'rb') as f:
        saved = pickle.load(f)
    ns, lost = get_ipython().user_ns, []
    for name, module in saved['modules'].items():
        try:
            ns[name] = importlib.import_module(module)
        except Exception:
            lost.append(name)
    for name, data in saved['state'].items():
        try:
            ns[name] = serializer.loads(data)
        except Exception:
            lost.append(name)
    try:
        os.chdir(saved['cwd'])
    except OSError:
        pass
    return json.dumps({'lost': lost})
__interp_carry = __interp_load(PATH)
del __interp_load
"""


class CarryError(Exception):
    """The variables could not be read out of the old kernel."""


@dataclass
class Carried:
    """What went across: the names that arrived, and those that did not (name -> type)."""

    names: list[str] = field(default_factory=list)
    lost: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        said = f"{len(self.names)} variable{'s' * (len(self.names) != 1)} kept"
        if self.lost:
            said += "; not kept (they cannot be copied): " + ", ".join(f"{n} ({t})" for n, t in self.lost.items())
        return said


def _run(kernel: Kernel, source: str, path: Path) -> dict:
    """Runs a carry script in the kernel as a silent request (nothing shown, nothing in its history); its answer."""
    ns = "get_ipython().user_ns"
    expression = f"(exec({source.replace('PATH', repr(str(path)))!r}, {ns}), {ns}.pop('__interp_carry'))[1]"
    found = kernel.evaluate({"carry": expression}, timeout=120).get("carry")
    if found is None:
        raise CarryError("the kernel did not answer")
    return json.loads(found)


def save(kernel: Kernel, path: Path) -> dict:
    """Writes the kernel's variables to `path`; what was saved and what could not be."""
    return _run(kernel, _DUMP, path)


def restore(kernel: Kernel, path: Path, saved: dict) -> Carried:
    """Loads what `save` wrote into a fresh kernel, and removes the file."""
    try:
        answer = _run(kernel, _LOAD, path)
    finally:
        path.unlink(missing_ok=True)
    lost = {**saved["lost"], **{name: saved["kinds"].get(name, "module") for name in answer["lost"]}}
    return Carried([n for n in saved["carried"] if n not in lost], lost)
