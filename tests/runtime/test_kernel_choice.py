"""--kernel NAME and --python PATH: Python code in a project's environment, or a one-line refusal naming the fix."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from conftest import records, run_interp, write_script
from jupyter_client.kernelspec import KernelSpecManager
from packaging.requirements import Requirement

from interp.runtime.kernel_choice import KernelChoiceError, Python, choose, interpreter, launcher_python

FAKE = Python("/envs/proj/bin/python", "3.12.1", "/envs/proj", True)


def _ipykernel_and_what_it_needs() -> list[Path]:
    """The top-level entries in site-packages of ipykernel and of every distribution it needs: linked into a venv,
    they make one that holds ipykernel and nothing else (no pandas, no dill), as a project's small venv may."""
    seen: set[str] = set()
    found: set[Path] = set()
    todo = ["ipykernel"]
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:  # an optional one, not installed here
            continue
        needs = [Requirement(text) for text in dist.requires or []]
        todo += [r.name for r in needs if r.marker is None or r.marker.evaluate({"extra": ""})]
        found.update(Path(str(dist.locate_file(f.parts[0]))) for f in dist.files or []
                     if f.parts[0] not in ("..", "__pycache__"))
    return sorted(found)


def _venv(folder: Path, with_ipykernel: bool) -> str:
    """A new venv (no pip: nothing is downloaded); with ipykernel linked in, or bare. Its interpreter's path."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = str(folder / "bin" / "python")
    if with_ipykernel:
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              capture_output=True, text=True, check=True).stdout.strip()
        for path in _ipykernel_and_what_it_needs():
            os.symlink(path, Path(site) / path.name)
    return python


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A second environment with ipykernel only, and a bare one: their interpreters."""
    folder = tmp_path_factory.mktemp("venvs")
    return _venv(folder / "proj", with_ipykernel=True), _venv(folder / "bare", with_ipykernel=False)


def _kernelspec(jupyter: Path, name: str, argv: list[str], language: str = "python",
                env: dict[str, str] | None = None) -> None:
    folder = jupyter / "kernels" / name
    folder.mkdir(parents=True)
    spec = {"argv": argv, "display_name": name, "language": language, **({"env": env} if env else {})}
    (folder / "kernel.json").write_text(json.dumps(spec))


def _launch(python: str) -> list[str]:
    return [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"]


@pytest.fixture
def specs(tmp_path: Path) -> KernelSpecManager:
    """Installed kernelspecs in a scratch folder: a project's, one whose environment is gone, an R one, a Python one
    that is not ipykernel, one that sets its own PATH."""
    jupyter = tmp_path / "jupyter"
    runnable = tmp_path / "envs" / "proj" / "bin" / "python"
    runnable.parent.mkdir(parents=True)
    runnable.write_text("#!/bin/sh\n")
    runnable.chmod(0o755)
    _kernelspec(jupyter, "proj", _launch(str(runnable)))
    _kernelspec(jupyter, "gone", _launch(str(tmp_path / "deleted" / "bin" / "python")))
    _kernelspec(jupyter, "ir", ["R", "--slave", "-e", "IRkernel::main()", "--args", "{connection_file}"], "R")
    _kernelspec(jupyter, "xpython", ["xpython", "-f", "{connection_file}"])
    _kernelspec(jupyter, "pathed", _launch(str(runnable)), env={"PATH": "/opt/bin"})
    return KernelSpecManager(kernel_dirs=[str(jupyter / "kernels")])


def test_the_default_is_interps_own_python_and_asks_nothing(specs: KernelSpecManager) -> None:
    choice = choose(None, None, specs=specs, probe=lambda path: pytest.fail("the default asks no interpreter"))
    assert choice.name == "python3" and choice.origin == "the default"
    assert choice.python is not None and choice.python.path == sys.executable and choice.spec is not None
    assert choice.spec.env == {}


def test_a_kernelspec_runs_as_if_its_venv_were_activated(specs: KernelSpecManager) -> None:
    choice = choose("proj", None, specs=specs, probe=lambda path: FAKE)
    assert choice.name == "proj" and choice.python == FAKE and choice.spec is not None
    assert choice.spec.env == {"PATH": "/envs/proj/bin" + os.pathsep + "${PATH}", "VIRTUAL_ENV": "/envs/proj"}
    assert choose("pathed", None, specs=specs, probe=lambda path: FAKE).spec.env == {"PATH": "/opt/bin"}
    other = choose("xpython", None, specs=specs, probe=lambda path: pytest.fail("not ipykernel: nothing to ask"))
    assert other.python is None and other.spec is not None and other.spec.argv[0] == "xpython"


@pytest.mark.parametrize(("kernel", "python", "existing", "said"), [
    ("nosuch", None, None, r"no kernel 'nosuch' is installed \(installed: gone, ir, pathed, proj, python3, xpython\); "
                           r".* python -m ipykernel install --user --name nosuch$"),
    ("ir", None, None, r"^kernel 'ir' runs R, not Python: --kernel chooses the kernel for Python code"),
    ("gone", None, None, r"^kernel 'gone' \(.*gone\): .*deleted/bin/python: no such file \(reinstall the kernel "
                         r"from its environment, or remove it: jupyter kernelspec remove gone\)$"),
    ("proj", "/usr/bin/python3", None, "^--kernel and --python both given"),
    (None, "/usr/bin/python3", "kernel-1.json", "^--existing attaches to a kernel already running"),
])
def test_refusals_name_the_fix(specs: KernelSpecManager, kernel: str | None, python: str | None,
                               existing: str | None, said: str) -> None:
    with pytest.raises(KernelChoiceError, match=said):
        choose(kernel, python, existing, specs=specs, probe=lambda path: FAKE)


def test_an_interpreter_is_a_path_or_a_command_on_path(tmp_path: Path) -> None:
    (tmp_path / "env" / "bin").mkdir(parents=True)
    (tmp_path / "env" / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / "text").write_text("")
    assert interpreter(str(tmp_path / "env" / "bin" / "python")) == str(tmp_path / "env" / "bin" / "python")
    assert interpreter("sh") == os.path.abspath(str(shutil.which("sh")))
    for given, problem in [(tmp_path / "env", f"a folder, not an interpreter (give {tmp_path}/env/bin/python)"),
                           (tmp_path / "missing", "no such file"), (tmp_path / "text", "not executable"),
                           ("no-such-python-here", "no such command on PATH")]:
        with pytest.raises(KernelChoiceError, match=re.escape(f"{given}: {problem}")):
            interpreter(str(given))


@pytest.mark.parametrize(("argv", "python"), [
    (["/p/bin/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "/p/bin/python"),
    (["/p/bin/python", "-I", "-m", "ipykernel", "-f", "{connection_file}"], "/p/bin/python"),
    (["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], sys.executable),
    (["xpython", "-f", "{connection_file}"], None),
    (["/p/bin/python", "script.py", "-m", "ipykernel_launcher"], None),
    (["/p/bin/python", "-m", "other_kernel"], None),
])
def test_launcher_python(argv: list[str], python: str | None) -> None:
    assert launcher_python(argv) == python


def _turn(folder: Path, env: dict[str, str], replies: list[str], *flags: str) -> tuple[list[dict], dict]:
    """`interp -y` (sandboxed) on one request with fixed replies: the executions and the session record."""
    journal = folder / "j.jsonl"
    script = write_script(folder, replies)
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), *flags, "go"],
                        env=env, cwd=folder)
    assert result.returncode == 0, result.stderr
    return records(journal, "execution"), records(journal, "session")[0]


def test_python_runs_a_turn_in_another_venv(venvs: tuple[str, str], tmp_path: Path, env: dict[str, str]) -> None:
    python = venvs[0]
    prefix = str(Path(python).parent.parent)
    replies = ["```python\nimport importlib.util, sys\nprint(sys.prefix, importlib.util.find_spec('pandas'))\n```",
               "```bash\ncommand -v python\n```", "Done."]
    runs, session = _turn(tmp_path, env, replies, "--python", python)
    assert [r["output"] for r in runs] == [f"{prefix} None\n", f"{python}\n"]  # no pandas there; its own python
    assert session["kernel_argv"][0] == python and session["sandbox"].startswith("workspace")


def test_kernel_runs_a_turn_in_an_installed_kernelspec(venvs: tuple[str, str], tmp_path: Path,
                                                       env: dict[str, str]) -> None:
    python = venvs[0]
    _kernelspec(tmp_path / "jupyter", "proj", _launch(python))
    env = {**env, "JUPYTER_PATH": str(tmp_path / "jupyter")}
    replies = ["```python\nimport sys, time\nx = 41\nprint(sys.prefix, flush=True)\ntime.sleep(60)\n```",
               "```python\nprint(x + 1)\n```", "Done."]
    runs, session = _turn(tmp_path, env, replies, "--kernel", "proj", "--timeout", "2")
    assert runs[0]["status"] == "timeout" and runs[0]["output"] == str(Path(python).parent.parent) + "\n"
    assert runs[1]["output"] == "42\n"  # interrupted, its state kept
    assert session["kernel"] == "proj" and session["kernel_argv"][0] == python


def test_refused_in_one_line_before_anything_starts(venvs: tuple[str, str], tmp_path: Path,
                                                    env: dict[str, str]) -> None:
    bare = venvs[1]
    _kernelspec(tmp_path / "jupyter", "ir", ["R", "{connection_file}"], "R")
    env = {**env, "JUPYTER_PATH": str(tmp_path / "jupyter")}
    script = write_script(tmp_path, ["```python\nprint(1)\n```"])
    for flags, said in [(["--python", bare], f"{bare} has no ipykernel: {bare} -m pip install ipykernel"),
                        (["--kernel", "ir"], "kernel 'ir' runs R, not Python")]:
        result = run_interp(["-y", "--model", f"script:{script}", *flags, "go"], env=env, cwd=tmp_path)
        assert result.returncode == 2 and result.stderr.startswith(f"interp: {said}")
        assert result.stderr.count("\n") == 1 and result.stdout == ""
    assert not list((tmp_path / "data").rglob("*.jsonl"))  # no journal left behind


def test_config_says_which_kernel(venvs: tuple[str, str], tmp_path: Path, env: dict[str, str]) -> None:
    python = venvs[0]
    result = run_interp(["--python", python, "--config"], env=env, cwd=tmp_path)
    assert f"kernel: python3 (--python): {python} -m ipykernel_launcher -f {{connection_file}}" in result.stdout
    assert f"at {python} (environment {Path(python).parent.parent})" in result.stdout
