"""What a later interp reads or runs cannot be changed by `-y` code, and nothing from a place code may write runs
unconfined: the third round of probing (REPORT.md 1.3, 1.4, 1.6, 7.7 to 7.10), through the real CLI and real
kernels (Linux with Landlock, and user namespaces where the test says so)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import finish, records, run_interp, spawn, write_script

from interp.runtime import kernel_choice
from interp.runtime.kernel import Kernel
from interp.runtime.sandbox import probe

needs_sandbox = pytest.mark.skipif(not probe().available or sys.platform != "linux", reason="needs Landlock")
needs_mounts = pytest.mark.skipif(not probe().mounts, reason="needs user and mount namespaces")


def py(code: str) -> str:
    return f"```python\n{code}\n```"


def one_run(folder: Path, cwd: Path, env: dict[str, str], code: str, *args: str) -> dict:
    """`interp -y` on one request whose code is fixed: the execution's journal record."""
    script = write_script(folder, [py(code), "ok."])
    journal = folder / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), *args, "go"], env=env,
                        cwd=cwd)
    executions = records(journal, "execution")
    assert executions, result.stderr
    return executions[0]


def home_env(env: dict[str, str], home: Path) -> dict[str, str]:
    """A user whose home is `home`, with no XDG folders set: interp's and Jupyter's folders are below it."""
    clean = {k: v for k, v in env.items() if not k.startswith("XDG_") and k not in ("JUPYTER_PATH", "IPYTHONDIR")}
    return {**clean, "HOME": str(home)}


@needs_mounts
def test_code_in_the_home_folder_cannot_make_interp_s_config_folder(tmp_path: Path, env: dict[str, str]) -> None:
    """Probe 7.7: ~/.config/interp does not exist yet; code run in ~ under -y makes it and plants sandbox = "off"."""
    home = tmp_path / "home"
    home.mkdir()
    env = home_env(env, home)
    plant = ("import os\np = os.path.expanduser('~/.config/interp')\nos.makedirs(p, exist_ok=True)\n"
             "open(p + '/config.toml', 'w').write('sandbox = \"off\"\\n')")
    run = one_run(tmp_path, home, env, plant)
    assert run["status"] == "error" and "Read-only file system" in run["error"]
    assert not (home / ".config" / "interp" / "config.toml").exists()
    shown = run_interp(["--config"], env=env, cwd=tmp_path).stdout
    assert "sandbox = 'auto'" in shown


@needs_mounts
def test_code_cannot_move_the_folders_above_interp_s_and_jupyter_s(tmp_path: Path, env: dict[str, str]) -> None:
    """Probe 7.8: the config exists and is read-only; code renames its parent (~/.config, ~/.local/share) and makes
    new ones, with a config that turns the sandbox off and a python3 kernelspec."""
    home = tmp_path / "home"
    (home / ".config" / "interp").mkdir(parents=True)
    (home / ".config" / "interp" / "config.toml").write_text("temperature = 0.2\n")
    (home / ".local" / "share" / "jupyter").mkdir(parents=True)
    env = home_env(env, home)
    move = ("import os\nh = os.path.expanduser('~')\nfound = []\n"
            "for old in ('/.config', '/.local/share', '/.local', '/.jupyter', '/.ipython'):\n"
            "    try:\n        os.rename(h + old, h + old + '.moved')\n        found.append('moved ' + old)\n"
            "    except OSError as e:\n        found.append(f'{old}: {e.strerror}')\n"
            "print(found)")
    run = one_run(tmp_path, home, env, move)
    assert "moved" not in run["output"], run["output"]
    assert run["output"].count("Device or resource busy") == 5
    assert (home / ".config" / "interp" / "config.toml").read_text() == "temperature = 0.2\n"


@needs_mounts
def test_a_kernel_is_hidden_from_sessions_with_another_runtime_folder(tmp_path: Path, env: dict[str, str]) -> None:
    """Probes 7.9 and 7.10: a session whose XDG_RUNTIME_DIR and TMPDIR differ from another's still cannot see the
    other's kernel folder (its sockets, its key while it starts): kernel folders live in one place."""
    other = Kernel(cwd=str(tmp_path))
    other.start()
    try:
        other.wait_ready()
        elsewhere = tmp_path / "run"
        elsewhere.mkdir()
        env = {**env, "XDG_RUNTIME_DIR": str(elsewhere), "TMPDIR": str(elsewhere)}
        run = one_run(tmp_path, tmp_path, env, f"import os\nprint(os.path.exists({str(other.private_folder)!r}))")
        assert run["output"].strip() == "False"
    finally:
        other.shutdown()


def _venv(folder: Path, marker: Path) -> Path:
    """A venv that sees interp's packages (ipykernel) through a .pth, and a .pth that confined code planted in it:
    it writes `marker` with the command line of whatever runs it."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    [site] = folder.glob("lib/python*/site-packages")
    ours = [p for p in sys.path if p.endswith("site-packages")][0]
    (site / "interp_deps.pth").write_text(ours + "\n")
    (site / "zz_planted.pth").write_text(
        f"import os; open({str(marker)!r}, 'a').write(open('/proc/self/cmdline').read().replace(chr(0), ' '))\n")
    return folder / "bin" / "python"


def test_the_interpreter_check_runs_none_of_the_environment_s_code(tmp_path: Path, env: dict[str, str]) -> None:
    """Probe 1.3: `--config --python` (and `-y --python`, and `--info`) asks the interpreter about itself; a .pth
    planted in its venv ran, unconfined, with interp's rights."""
    marker = tmp_path / "PTH_RAN"
    python = _venv(tmp_path / ".venv", marker)
    found = kernel_choice.ask_python(str(python))
    assert found.venv and found.prefix == str(tmp_path / ".venv")
    shown = run_interp(["--config", "--python", str(python)], env=env, cwd=tmp_path)
    assert shown.returncode == 0 and "kernel python: 3." in shown.stdout, shown.stderr
    assert not marker.exists(), marker.read_text()


@needs_sandbox
def test_an_interpreter_replaced_by_a_script_is_asked_confined(tmp_path: Path) -> None:
    """Code may replace a workspace's python with a script: asked about itself, it can change nothing."""
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\necho planted > {tmp_path / 'SCRIPT_RAN'}\necho '{{\"version\": [3, 11, 0]}}'\n")
    fake.chmod(0o755)
    with pytest.raises(kernel_choice.KernelChoiceError):
        kernel_choice.ask_python(str(fake))
    assert not (tmp_path / "SCRIPT_RAN").exists()


def _kernelspec(data: Path, name: str, text: str) -> None:
    folder = data / "jupyter" / "kernels" / name
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(text)


def test_a_kernelspec_s_env_reaches_the_kernel_and_not_its_guard(tmp_path: Path, env: dict[str, str]) -> None:
    """Probe 1.4: the spec's env (LD_PRELOAD there) was given to the kernel guard, which is not confined."""
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "language": "python",
            "display_name": "env", "env": {"SPEC_VAR": "from-spec", "SPEC_PATH": "x:${PATH}"}}
    _kernelspec(Path(env["XDG_DATA_HOME"]), "envspec", json.dumps(spec))
    code = ("import os\nguard = open(f'/proc/{os.getppid()}/environ', 'rb').read()\n"
            "print(os.environ.get('SPEC_VAR'), os.environ['SPEC_PATH'].startswith('x:/'), b'SPEC_VAR' in guard)")
    run = one_run(tmp_path, tmp_path, env, code, "--kernel", "envspec", "--sandbox", "off")
    assert run["output"].strip() == "from-spec True False"


@pytest.mark.parametrize(("spec", "said"), [
    ('{"argv": [', "its kernel.json cannot be used"),
    ('{"argv": ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "language": "python", '
     '"display_name": "x", "env": ["A"]}', "its kernel.json cannot be used"),
    ('{"argv": ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "x"}',
     "says no language"),
])
def test_a_broken_kernelspec_is_one_line(tmp_path: Path, env: dict[str, str], spec: str, said: str) -> None:
    """Probe 1.6: bad JSON, an env that is not a mapping, no language: a traceback (exit 1) or a garbled line."""
    _kernelspec(Path(env["XDG_DATA_HOME"]), "broken", spec)
    for args in (["--config", "--kernel", "broken"], ["-y", "--kernel", "broken", "--model", "script:x.json", "go"]):
        result = run_interp(args, env=env, cwd=tmp_path)
        assert result.returncode == 2 and said in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("flag", ["--python", "--kernel"])
def test_an_empty_kernel_choice_is_refused(tmp_path: Path, env: dict[str, str], flag: str) -> None:
    result = run_interp([flag, "", "--config"], env=env, cwd=tmp_path)
    assert result.returncode == 2 and f"{flag} needs a value" in result.stderr


def test_interp_s_own_imports_in_the_kernel_never_come_from_the_working_directory(tmp_path: Path,
                                                                                 env: dict[str, str]) -> None:
    """pandas imported ahead in a REPL, and read for a CSV's preview, before anything is confirmed: a pandas.py that
    earlier code left in the folder ran in the kernel, which is not confined while each block is confirmed."""
    marker = tmp_path / "PLANTED_RAN"
    (tmp_path / "pandas.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (tmp_path / "data.csv").write_text("a,b\n1,2\n3,4\n")
    script = write_script(tmp_path, [py("print(1)"), "Done."])
    child = spawn(["--model", f"script:{script}", "--transcript", str(tmp_path / "j.jsonl")], env, tmp_path)
    child.expect(">")
    child.sendline("What is the mean of a in data.csv?")
    child.expect(r"Run this code\?")
    child.sendline("n")
    child.expect(">")
    finish(child)
    preview = records(tmp_path / "j.jsonl", "user")[0]["content"]
    assert "pd.read_csv('data.csv') gives 2 rows" in preview  # the kernel's pandas, the real one, read it
    assert not marker.exists()
