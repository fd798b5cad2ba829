"""Which kernel runs the session's Python code: the default kernelspec (python3, interp's own environment), an
installed one (--kernel NAME: a project's kernel, registered with `ipykernel install --user --name NAME`), or ipykernel
in another interpreter (--python PATH). Checked before anything starts: a kernel that cannot be had is refused in one
line that names the fix. The kernel chosen is started like the default one (guard, sandbox, timeouts, journal)."""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager, NoSuchKernel
from traitlets import TraitError

from interp.runtime.kernel_api import KernelError
from interp.runtime.sandbox import isolated

DEFAULT = "python3"
PROBE_TIMEOUT_S = 30.0
OLDEST = (3, 8)  # interp's helpers in the kernel (_kernel_helpers.py, carry.py) are written for this Python and newer
_LAUNCHERS = ("ipykernel_launcher", "ipykernel")
_PYTHON_NAMES = {"python", f"python{sys.version_info[0]}", f"python{sys.version_info[0]}.{sys.version_info[1]}"}
# An interpreter's package folders put on its path as `site` would put them, the folders its .pth files name included,
# without running any of its code: the interpreter is asked with -I -S, so no .pth line that imports, no
# sitecustomize and nothing from the working directory runs (code may have planted them in a workspace's venv).
SITE_PATHS = r"""import os, re, sys, sysconfig
def _interp_site():
    exe = os.path.dirname(os.path.abspath(sys.executable))
    config = [p for p in (os.path.join(exe, 'pyvenv.cfg'), os.path.join(os.path.dirname(exe), 'pyvenv.cfg'))
              if os.path.isfile(p)]
    shared = True
    if config:  # a venv, as site.venv() reads it
        sys.prefix = sys.exec_prefix = os.path.dirname(exe)
        try:
            with open(config[0], encoding='utf-8') as f:
                found = re.search(r'^include-system-site-packages\s*=\s*(\w+)', f.read(), re.I | re.M)
            shared = not found or found[1].lower() == 'true'
        except (OSError, UnicodeDecodeError):
            pass
    prefixes = [sys.prefix] + ([sys.base_prefix] if config and shared else [])
    found = [sysconfig.get_path(n, vars={'base': p, 'platbase': p}) for p in prefixes for n in ('purelib', 'platlib')]
    if not config:
        import site
        found.append(site.getusersitepackages())
    for folder in dict.fromkeys(found):
        if not os.path.isdir(folder):
            continue
        sys.path.append(folder)
        for name in sorted(n for n in os.listdir(folder) if n.endswith('.pth')):
            try:
                with open(os.path.join(folder, name)) as f:
                    lines = [line.rstrip() for line in f]
            except (OSError, UnicodeDecodeError):
                continue
            for line in lines:
                if line and not line.startswith(('#', 'import ', 'import	')):
                    named = os.path.join(folder, line)
                    if os.path.isdir(named):
                        sys.path.append(named)
    return bool(config)
_interp_venv = _interp_site()
"""
# What the kernel will need, asked of the interpreter that will run it.
_PROBE = SITE_PATHS + """import importlib.util, json
print(json.dumps({'version': list(sys.version_info[:3]), 'prefix': sys.prefix,
                  'ipykernel': importlib.util.find_spec('ipykernel') is not None,
                  'venv': _interp_venv}))
"""


class KernelChoiceError(KernelError):
    """A kernel that cannot be had (--kernel, --python); the message is one line naming the fix."""


@dataclass(frozen=True)
class Python:
    """An interpreter, as it describes itself: its path (a venv's link, not the link's target), version and
    environment."""

    path: str
    version: str
    prefix: str
    venv: bool


@dataclass(frozen=True)
class KernelChoice:
    """The kernel for Python code: its kernelspec name (the journal's, a notebook's), the spec it starts from (None
    for an attached kernel), where the choice came from, and the Python that runs it, where it is known."""

    name: str
    spec: KernelSpec | None
    origin: str = "the default"
    python: Python | None = None

    def spec_manager(self) -> KernelSpecManager | None:
        """What the kernel manager finds its spec in: the spec checked here, so that it is the one started."""
        return _FixedSpec(self.spec) if self.spec is not None else None

    def lines(self) -> list[str]:
        """What --config and --info say of it."""
        if self.spec is None:
            return [f"kernel: {self.origin} (outside interp's control)"]
        said = [f"kernel: {self.name} ({self.origin}): {' '.join(self.spec.argv)}"]
        if self.python is not None:
            said.append(f"kernel python: {self.python.version} at {self.python.path} (environment "
                        f"{self.python.prefix})")
        return said


class _FixedSpec(KernelSpecManager):
    """Gives a kernel manager one spec, whatever the name it asks for (--python's spec is installed nowhere)."""

    def __init__(self, spec: KernelSpec) -> None:
        super().__init__()
        self._spec = spec

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return self._spec


Probe = Callable[[str], Python]


def choose(kernel: str | None, python: str | None, existing: str | None = None,
           specs: KernelSpecManager | None = None, probe: Probe | None = None) -> KernelChoice:
    """The kernel the settings ask for (--kernel, --python, neither), checked; KernelChoiceError when it cannot be
    had. `specs` (the installed kernelspecs) and `probe` (what asks an interpreter about itself) are seams for tests."""
    if existing is not None:
        if kernel or python:
            raise KernelChoiceError("--existing attaches to a kernel already running: --kernel and --python do not "
                                    "apply to it; give one or the other")
        return KernelChoice("", None, f"attached, --existing {existing}")
    for flag, given in (("--kernel", kernel), ("--python", python)):
        if given is not None and not given.strip():
            raise KernelChoiceError(f"{flag} needs a value (an empty one would be the default kernel); leave it out "
                                    "for the default")
    if kernel and python:
        raise KernelChoiceError("--kernel and --python both given (flags, INTERP_KERNEL/INTERP_PYTHON or the config "
                                "file); give one")
    probe = probe or ask_python
    if python:
        return _from_python(python, probe)
    return _from_spec(kernel or DEFAULT, specs or KernelSpecManager(), probe, chosen=bool(kernel))


def _from_python(given: str, probe: Probe) -> KernelChoice:
    try:
        path = interpreter(given)
    except KernelChoiceError as exc:
        raise KernelChoiceError(f"--python {exc}") from None
    found = probe(path)
    spec = KernelSpec(argv=[path, "-m", "ipykernel_launcher", "-f", "{connection_file}"], language="python",
                      display_name=f"Python {found.version} ({found.prefix})", env=_activated(found))
    return KernelChoice(DEFAULT, spec, "--python", found)


def _from_spec(name: str, specs: KernelSpecManager, probe: Probe, chosen: bool) -> KernelChoice:
    try:
        spec = specs.get_kernel_spec(name)
    except NoSuchKernel:
        installed = ", ".join(sorted(specs.find_kernel_specs())) or "none"
        raise KernelChoiceError(f"no kernel '{name}' is installed (installed: {installed}); a project's environment "
                                f"registers one with: python -m ipykernel install --user --name {name}") from None
    except (ValueError, TypeError, KeyError, OSError, TraitError) as exc:  # bad JSON, an env that is not a mapping
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise KernelChoiceError(f"kernel '{name}': its kernel.json cannot be used ({reason}); fix it, or remove it: "
                                f"jupyter kernelspec remove {name}") from None
    if not spec.language:
        raise KernelChoiceError(f"kernel '{name}' ({spec.resource_dir}) says no language in its kernel.json; a Python "
                                "kernel says \"language\": \"python\"")
    if spec.language.lower() != "python":
        raise KernelChoiceError(f"kernel '{name}' runs {spec.language}, not Python: --kernel chooses the kernel for "
                                f"Python code (code in {spec.language} starts a kernel of its own language)")
    path = launcher_python(spec.argv)
    if not chosen:  # the default: interp's own kernel, as before; asked nothing
        known = Python(sys.executable, platform.python_version(), sys.prefix, sys.prefix != sys.base_prefix)
        return KernelChoice(name, spec, python=known if path == sys.executable else None)
    if path is None:  # a Python kernel that is not ipykernel (xeus-python): started as its spec says
        return KernelChoice(name, spec, "--kernel")
    fix = f"reinstall the kernel from its environment, or remove it: jupyter kernelspec remove {name}"
    try:
        found = probe(interpreter(path, fix))
    except KernelChoiceError as exc:
        raise KernelChoiceError(f"kernel '{name}' ({spec.resource_dir}): {exc}") from None
    env = spec.env if "PATH" in spec.env else {**_activated(found), **spec.env}
    spec = KernelSpec(**{**spec.to_dict(), "env": env}, resource_dir=spec.resource_dir)
    return KernelChoice(name, spec, "--kernel", found)


def launcher_python(argv: list[str]) -> str | None:
    """The interpreter of a kernel command `PYTHON [options] -m ipykernel_launcher ...` (jupyter's own reading of a
    bare `python`: this interpreter); None for a command of another shape."""
    if "-m" not in argv[1:]:
        return None
    at = argv.index("-m", 1)
    if at + 1 >= len(argv) or argv[at + 1] not in _LAUNCHERS or not all(a.startswith("-") for a in argv[1:at]):
        return None
    return sys.executable if argv[0] in _PYTHON_NAMES else argv[0]


def interpreter(given: str, fix: str = "give an interpreter's path, like .venv/bin/python") -> str:
    """The interpreter's absolute path (a bare name is looked up on PATH). Not the link's target: a venv's python is
    a link to the base interpreter, and only run through the link is it the venv's. `fix` ends the refusal."""
    found = shutil.which(given) if os.sep not in given else os.path.expanduser(given)
    path = os.path.abspath(found) if found is not None else ""
    if found is None:
        problem = "no such command on PATH"
    elif os.path.isdir(path):
        inner = os.path.join(path, "bin", "python")
        problem, fix = "a folder, not an interpreter", (f"give {inner}" if os.path.exists(inner) else fix)
    elif not os.path.exists(path):
        problem = "no such file"
    elif not os.access(path, os.X_OK):
        problem = "not executable"
    else:
        return path
    raise KernelChoiceError(f"{given}: {problem} ({fix})")


def ask_python(path: str) -> Python:
    """What the interpreter at `path` is, and that it has ipykernel: asked in a child process with a timeout, isolated
    (-I -S: none of its environment's code runs) and confined so that it can change nothing (sandbox.isolated), for
    it may lie in a place code could write (a workspace's venv, its python replaced by a script)."""
    try:
        done = subprocess.run(isolated([path, "-I", "-S", "-c", _PROBE]), capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL, cwd=os.path.dirname(path))
    except subprocess.TimeoutExpired:
        raise KernelChoiceError(f"{path} did not answer within {PROBE_TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise KernelChoiceError(f"{path} cannot run: {exc.strerror or exc}") from None
    last = (done.stdout.strip().splitlines() or [""])[-1]
    try:
        said = json.loads(last)
        version = tuple(int(part) for part in said["version"])
        has_kernel, prefix, venv = bool(said["ipykernel"]), str(said["prefix"]), bool(said["venv"])
    except (ValueError, KeyError, TypeError):
        error = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        raise KernelChoiceError(f"{path} is not a Python interpreter that interp can use ({error[:200]})") from None
    if version < OLDEST:
        raise KernelChoiceError(f"{path} is Python {'.'.join(map(str, version))}; interp's kernel needs "
                                f"{'.'.join(map(str, OLDEST))} or newer")
    if not has_kernel:
        raise KernelChoiceError(f"{path} has no ipykernel: {path} -m pip install ipykernel")
    return Python(path, ".".join(map(str, version)), prefix, venv)


def _activated(python: Python) -> dict[str, str]:
    """The kernel's environment additions for a venv's interpreter: as if the venv were activated, so that `pip` and
    `python` in a shell block are the kernel's own (jupyter fills `${PATH}` from interp's environment)."""
    if not python.venv:
        return {}
    return {"PATH": os.path.dirname(python.path) + os.pathsep + "${PATH}", "VIRTUAL_ENV": python.prefix}
