"""Code that tries to leave the sandbox, through interp's own writes, its kernel's start, another session's kernel or
interp's settings: each way found by probing, through the real CLI and a real kernel (Linux with Landlock)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import records, run_interp, write_script

from interp.runtime.kernel import Kernel
from interp.runtime.kernel_launch import safe_launch
from interp.runtime.outputs import OutputFolder
from interp.runtime.places import runtime_root
from interp.runtime.sandbox import probe

needs_sandbox = pytest.mark.skipif(not probe().available or sys.platform != "linux", reason="needs Landlock")
needs_mounts = pytest.mark.skipif(not probe().mounts, reason="needs user and mount namespaces")


def py(code: str) -> str:
    return f"```python\n{code}\n```"


def session(folder: Path, cwd: Path, env: dict[str, str], replies: list[str], *args: str) -> tuple[str, Path]:
    """A piped session of one turn per code reply (each followed by "ok."); the screen and the journal."""
    script = write_script(folder, [r for reply in replies for r in (reply, "ok.")])
    journal = folder / "j.jsonl"
    result = run_interp(["--max-attempts", "0", "--model", f"script:{script}", "--transcript", str(journal), *args],
                        env=env, cwd=cwd, stdin="go\n" * len(replies))
    return result.stdout + result.stderr, journal


def test_interp_never_writes_through_a_link_in_its_output_folder(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    folder = tmp_path / "outputs"
    folder.mkdir()
    (folder / "output-1.md").symlink_to(victim)
    saved = OutputFolder(folder).save({"text/markdown": "PWNED", "text/plain": "x"})
    assert victim.read_text() == "mine\n"
    assert saved == [("text/markdown", folder / "output-2.md")] and (folder / "output-2.md").read_text() == "PWNED"


@needs_sandbox
def test_sandboxed_code_cannot_plant_a_link_in_the_output_folder(tmp_path: Path, env: dict[str, str]) -> None:
    """The output folder beside the journal is interp's: code may not write there (with --transcript in a writable
    place it may, and interp's own writes still never follow a link: the test above)."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir(), work.mkdir()
    victim = home / "victim.txt"
    victim.write_text("mine\n")
    env["HOME"] = str(home)
    sessions = Path(env["XDG_DATA_HOME"]) / "interp" / "sessions"
    plant = py(f"import glob, os\nfolder = glob.glob({str(sessions)!r} + '/*.jsonl')[0][:-6]\n"
               f"os.makedirs(folder, exist_ok=True)\nos.symlink({str(victim)!r}, folder + '/output-1.md')")
    show = py("from IPython.display import Markdown, display\ndisplay(Markdown('PWNED'))")
    script = write_script(tmp_path, [plant, "ok.", show, "ok."])
    result = run_interp(["-y", "--max-attempts", "0", "--model", f"script:{script}"], env=env, cwd=work,
                        stdin="go\ngo\n")
    assert victim.read_text() == "mine\n", result.stderr
    [journal] = sessions.glob("*.jsonl")
    assert [r["status"] for r in records(journal, "execution")] == ["error", "ok"]
    assert (journal.with_suffix("") / "output-1.md").read_text() == "PWNED"


def test_a_kernel_command_does_not_look_for_its_module_in_the_working_directory() -> None:
    command = safe_launch(["python", "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    assert command[:3] == ["python", "-Xfrozen_modules=off", "-c"] and command[-2:] == ["-f", "{connection_file}"]
    assert "del sys.path[0]" in command[3] and "'ipykernel_launcher'" in command[3]
    assert safe_launch(["R", "--slave", "-e", "IRkernel::main()"]) == ["R", "--slave", "-e", "IRkernel::main()"]


def test_a_planted_ipykernel_launcher_does_not_run(tmp_path: Path, env: dict[str, str]) -> None:
    """A cloned repository (or earlier sandboxed code) leaves ipykernel_launcher.py in the working directory: the
    next interp, in ask mode with nothing confirmed, must not run it; the code's own imports still find the folder."""
    work = tmp_path / "work"
    work.mkdir()
    marker = tmp_path / "ran"
    (work / "ipykernel_launcher.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    (work / "helpers.py").write_text("ANSWER = 42\n")
    screen, journal = session(tmp_path, work, env, [py("import helpers\nprint(helpers.ANSWER)")], "-y",
                              "--sandbox", "off")
    assert not marker.exists(), screen
    assert records(journal, "execution")[0]["output"].strip() == "42"


def test_the_connection_file_is_gone_once_the_kernel_is_ready(tmp_path: Path) -> None:
    kernel = Kernel(cwd=str(tmp_path))
    kernel.start()
    try:
        kernel.wait_ready()
        assert kernel.manager is not None and not Path(kernel.manager.connection_file).exists()
        assert kernel.private_folder.parent == runtime_root()
        kernel.restart()  # a restart writes it again for the new kernel, and removes it again
        assert not Path(kernel.manager.connection_file).exists()
        assert kernel.evaluate({"x": "6 * 7"}) == {"x": "42"}
    finally:
        kernel.shutdown()


@needs_mounts
def test_sandboxed_code_sees_no_other_kernel_s_folder(tmp_path: Path, env: dict[str, str]) -> None:
    other = Kernel(cwd=str(tmp_path))
    other.start()
    try:
        other.wait_ready()
        look = py(f"import os\nprint(sorted(os.listdir({str(runtime_root())!r})))\n"
                  f"print(os.path.exists({str(other.private_folder)!r}))")
        screen, journal = session(tmp_path, tmp_path, env, [look], "-y")
        out = records(journal, "execution")[0]["output"].split("\n")
        assert other.private_folder.name not in out[0] and out[0].count("kernel-") == 1, screen
        assert out[1] == "False"
    finally:
        other.shutdown()


@needs_mounts
def test_interp_s_settings_stay_read_only_when_the_workspace_holds_them(tmp_path: Path, env: dict[str, str]) -> None:
    """interp started in ~ under -y: ~/.config/interp/config.toml is in the working directory, and a line written
    there would turn the sandbox off for the next session."""
    home = tmp_path / "home"
    config = home / ".config" / "interp" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('model = "smollm2-135m"\n')
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"))
    env.pop("INTERP_MODEL")
    append = py(f"open({str(config)!r}, 'a').write('sandbox = \"off\"\\n')")
    screen, journal = session(tmp_path, home, env, [append, py("open('mine.txt', 'w').write('ok')")], "-y")
    assert config.read_text() == 'model = "smollm2-135m"\n', screen
    assert [r["status"] for r in records(journal, "execution")] == ["error", "ok"]
    assert (home / "mine.txt").read_text() == "ok"
    assert "may never write" in screen


def test_an_empty_allowed_path_is_refused_in_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    result = run_interp(["-y", "--sandbox", "read-only", "--allow-write", "", "--model", "script:none.json", "go"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["interp: --allow-write needs a path (an empty one would be the "
                                                  "working directory)"]
