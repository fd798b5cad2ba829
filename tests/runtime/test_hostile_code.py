"""Generated code that misbehaves on purpose, run through the whole loop in the real kernel: interp must stay
responsive, tell the user and the model, keep what can be kept, and leave nothing running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from conftest import INTERP, eventually, gone, records, run_interp, working_in, write_script

HANG = "```python\nwhile True:\n    pass\n```"
EXIT = "```python\nimport os\nos._exit(1)\n```"
SEGFAULT = "```python\nimport ctypes\nctypes.string_at(0)\n```"
TEN_MILLION_LINES = "```python\nprint('\\n'.join(map(str, range(10**7))))\n```"
FIFTY_MB_STRING = "```python\nprint('x' * 50_000_000)\n```"
ASK_NAME = "```python\nname = input('name? ')\nprint('hi', name)\n```"
PLOT = "```python\nimport matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.show()\n```"
BACKGROUND_CHILD = "```bash\nsleep 1000 &\necho child $!\n```"


def interp(tmp_path: Path, env: dict[str, str], replies: list[str], *args: str, stdin: str = "go\n"):
    script = write_script(tmp_path, replies)
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), *args],
                        env=env, cwd=tmp_path, stdin=stdin, timeout=180)
    return result, journal


def test_infinite_loop_is_interrupted_and_state_is_kept(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = interp(tmp_path, env, ["```python\nkeep = 'still here'\n```", "ok", HANG,
                                             "```python\nprint(keep)\n```", "Done."],
                             "--timeout", "1", stdin="define\nloop\n")
    executions = records(journal, "execution")
    assert [e["status"] for e in executions] == ["ok", "timeout", "ok"]
    assert executions[2]["output"].strip() == "still here"
    told = records(journal, "model_call")[3]["input_tail"]["content"]
    assert "Timed out after 1 seconds" in told and "interrupted" in told


SWALLOW_INTERRUPT = ("```python\nimport time\nwhile True:\n    try:\n        time.sleep(0.5)\n    except:\n"
                     "        pass\n```")
IGNORE_SIGINT = ("```python\nimport signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                 "while True:\n    time.sleep(0.1)\n```")


@pytest.mark.parametrize("stubborn", [SWALLOW_INTERRUPT, IGNORE_SIGINT], ids=["bare-except", "SIG_IGN"])
def test_code_that_ignores_the_interrupt_is_ended_with_its_kernel(tmp_path: Path, env: dict[str, str],
                                                                  stubborn: str) -> None:
    result, journal = interp(tmp_path, env, ["```python\nx = 1\n```", "ok", stubborn,
                                             "```python\nprint('x' in dir())\n```", "Done."],
                             "--timeout", "1", stdin="define\nloop\n")
    executions = records(journal, "execution")
    assert [e["status"] for e in executions] == ["ok", "timeout", "ok"]
    assert executions[1]["duration_s"] < 30
    assert executions[2]["output"].strip() == "False"
    told = records(journal, "model_call")[3]["input_tail"]["content"]
    assert "Timed out after 1 seconds" in told and "state was lost" in told
    assert "did not stop its code when interrupted; a fresh one was started" in result.stderr


@pytest.mark.parametrize("killer", [EXIT, SEGFAULT], ids=["os._exit", "segfault"])
def test_kernel_death_is_survived_with_a_fresh_kernel(tmp_path: Path, env: dict[str, str], killer: str) -> None:
    result, journal = interp(tmp_path, env, ["```python\nx = 1\n```", "ok", killer,
                                             "```python\nprint('x' in dir())\n```", "Done."], stdin="a\nb\n")
    executions = records(journal, "execution")
    assert [e["status"] for e in executions] == ["ok", "died", "ok"]
    assert executions[2]["output"].strip() == "False"
    assert "state was lost" in records(journal, "model_call")[3]["input_tail"]["content"]
    assert "fresh one was started" in result.stderr
    assert result.returncode == 0


def _peak_rss_while(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, subprocess.CompletedProcess]:
    proc = subprocess.Popen([*INTERP, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=cwd, text=True)
    peak = 0

    def watch() -> None:
        nonlocal peak
        me = psutil.Process(proc.pid)
        while proc.poll() is None:
            try:
                peak = max(peak, me.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    out, err = proc.communicate(timeout=300)
    watcher.join()
    return peak, subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("flood", [TEN_MILLION_LINES, FIFTY_MB_STRING], ids=["1e7-lines", "50MB-string"])
def test_output_floods_are_bounded(tmp_path: Path, env: dict[str, str], flood: str) -> None:
    script = write_script(tmp_path, [flood, "Done."])
    journal = tmp_path / "j.jsonl"
    peak, result = _peak_rss_while(["-y", "--model", f"script:{script}", "--transcript", str(journal),
                                    "--max-output", "1000", "go"], env, tmp_path)
    assert result.returncode == 0, result.stderr
    output = records(journal, "execution")[0]["output"]
    assert len(output) < 1200
    assert "characters cut" in output
    if flood == TEN_MILLION_LINES:
        assert output.startswith("0\n1\n2\n") and output.rstrip().endswith("9999998\n9999999")
    assert "characters) not shown" in result.stdout
    assert len(result.stdout) < 100_000
    assert peak < 400 * 2**20, f"interp's memory peaked at {peak / 2**20:.0f} MB"


def test_input_fails_fast_without_a_person(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = interp(tmp_path, env, [ASK_NAME, "Done."])
    execution = records(journal, "execution")[0]
    assert execution["status"] == "error"
    assert "StdinNotImplementedError" in execution["error"]


def test_matplotlib_figure_is_saved_as_png(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = interp(tmp_path, env, [PLOT, "Done."])
    execution = records(journal, "execution")[0]
    assert execution["status"] == "ok", execution
    saved = [line for line in execution["output"].splitlines() if "image/png saved to" in line]
    assert len(saved) == 1
    path = Path(saved[0].split(" saved to ")[1].rstrip("]"))
    assert path.read_bytes().startswith(b"\x89PNG")
    assert path.parent == journal.with_suffix("")
    assert str(path) in result.stdout
    # A figure's text is its repr: the figure is shown, and its repr is neither printed nor told to the model.
    assert "<Figure size" not in execution["output"] and "<Figure size" not in result.stdout


def test_html_display_is_saved_and_its_text_kept(tmp_path: Path, env: dict[str, str]) -> None:
    code = "```python\nfrom IPython.display import HTML, display\ndisplay(HTML('<b>bold</b>'))\n```"
    result, journal = interp(tmp_path, env, [code, "Done."])
    output = records(journal, "execution")[0]["output"]
    path = Path(output.split("text/html saved to ")[1].split("]")[0])
    assert path.read_text() == "<b>bold</b>"
    assert "IPython.core.display.HTML object" in output


def test_bad_bytes_and_escape_codes_are_cleaned(tmp_path: Path, env: dict[str, str]) -> None:
    code = "```bash\nprintf 'bad \\xff\\xfe bytes\\n\\033[31mred\\033[0m\\n 10%%\\r 99%%\\r100%%\\n'\n```"
    result, journal = interp(tmp_path, env, [code, "Done."])
    output = records(journal, "execution")[0]["output"]
    assert output == "bad \ufffd\ufffd bytes\nred\n100%\n"


def test_background_child_is_gone_after_exit(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = interp(tmp_path, env, [BACKGROUND_CHILD, "Done."])
    output = records(journal, "execution")[0]["output"]
    child = int(output.split("child")[1].split()[0])
    assert eventually(lambda: gone(child))


def _start_and_wait_for_execution(tmp_path: Path, env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    script = write_script(tmp_path, ["```python\nimport time\nprint('sleeping', flush=True)\ntime.sleep(1000)\n```"])
    journal = tmp_path / "j.jsonl"
    proc = subprocess.Popen([*INTERP, "-y", "--plain", "--model", f"script:{script}", "--transcript", str(journal),
                             "sleep"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=tmp_path, text=True)
    for line in proc.stdout:
        if line.startswith("sleeping"):
            break
    return proc, records(journal, "session")[0]["kernel_pid"]


def _gone_within(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signals_end_the_kernel(tmp_path: Path, env: dict[str, str], signum: int) -> None:
    proc, kernel_pid = _start_and_wait_for_execution(tmp_path, env)
    proc.send_signal(signum)
    assert proc.wait(timeout=30) == 128 + signum
    assert _gone_within(kernel_pid, 5)
    journal = tmp_path / "j.jsonl"
    assert [e["status"] for e in records(journal, "execution")] == ["interrupted"]
    assert [e["status"] for e in records(journal, "turn_end")] == ["interrupted"]


def test_kernel_goes_away_after_interp_is_killed(tmp_path: Path, env: dict[str, str]) -> None:
    proc, kernel_pid = _start_and_wait_for_execution(tmp_path, env)
    proc.kill()
    proc.wait(timeout=10)
    assert _gone_within(kernel_pid, 10), "the kernel should notice its parent died"


def test_kill_9_of_interp_ends_everything_the_kernel_started(tmp_path: Path, env: dict[str, str]) -> None:
    """Children, a shell block's bash, a `setsid` daemon: none outlives interp, and the kernel's folder goes."""
    spawner = ("```bash\nfor i in 1 2 3; do sleep 1000 & done\nsetsid sleep 1001 &\n"
               "python3 -c 'import os\nif os.fork() == 0:\n    os.setsid()\n"
               "    os.execvp(\"sleep\", [\"sleep\", \"1002\"])' &\n"
               "sleep 0.5; echo spawned; sleep 1000\n```")
    script = write_script(tmp_path, [spawner])
    journal = tmp_path / "j.jsonl"
    proc = subprocess.Popen([*INTERP, "-y", "--plain", "--timeout", "0", "--model", f"script:{script}",
                             "--transcript", str(journal), "go"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=tmp_path, text=True)
    for line in proc.stdout:
        if line.startswith("spawned"):
            break
    started = psutil.Process(proc.pid).children(recursive=True)
    daemons = [p for p in psutil.process_iter(["cmdline"])
               if p.info["cmdline"] in (["sleep", "1001"], ["sleep", "1002"])]
    rundir = next(Path(arg).parent for p in started for arg in p.cmdline() if arg.endswith("kernel.json"))
    proc.kill()
    proc.wait(timeout=10)
    assert len(started) >= 6 and len(daemons) >= 2, (started, daemons)
    left = [p for p in [*started, *daemons] if not _gone_within(p.pid, 10)]
    for p in left:
        p.kill()
    assert not left, [p.cmdline() for p in left]
    assert not rundir.exists()


def test_existing_kernel_is_used_and_left_running(tmp_path: Path, env: dict[str, str]) -> None:
    from jupyter_client import KernelManager

    manager = KernelManager(connection_file=str(tmp_path / "elsewhere.json"))
    manager.start_kernel(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = manager.blocking_client()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        client.execute_interactive("from_before = 20", timeout=30)
        result, journal = interp(tmp_path, env, ["```python\nshared = from_before + 22\nprint(shared)\n```", "Done."],
                                 "--existing", manager.connection_file)
        assert result.returncode == 0, result.stderr
        assert records(journal, "execution")[0]["output"].strip() == "42"
        assert manager.is_alive()
        seen = []
        client.execute_interactive("print(shared)", timeout=30,
                                   output_hook=lambda m: seen.append(m["content"].get("text", "")))
        assert "".join(seen).strip() == "42"
        client.stop_channels()
    finally:
        manager.shutdown_kernel(now=True)


def test_other_languages_run_in_their_own_kernel(tmp_path: Path, env: dict[str, str]) -> None:
    spec = tmp_path / "jupyter" / "kernels" / "otherlang"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Other", "language": "otherlang",
    }))
    env = {**env, "JUPYTER_PATH": str(tmp_path / "jupyter")}
    (tmp_path / "sub").mkdir()
    replies = ["```python\nimport os\nos.chdir('sub')\n```",
               "```otherlang\nimport os\nprint(2 + 3, os.path.basename(os.getcwd()))\n```",
               "```cobol\nDISPLAY 'HI'.\n```", "No."]
    result, journal = interp(tmp_path, env, replies)
    executions = records(journal, "execution")[1:]
    assert executions[0]["status"] == "ok" and executions[0]["output"].strip() == "5 sub"
    assert executions[1]["status"] == "error"
    assert "No kernel for 'cobol'" in executions[1]["error"] and "otherlang" in executions[1]["error"]


def test_kernel_files_are_private_and_quiet(tmp_path: Path, env: dict[str, str]) -> None:
    from interp.runtime.kernel import Kernel

    kernel = Kernel(cwd=str(tmp_path))
    kernel.start()
    try:
        kernel.wait_ready()
        assert kernel.manager.transport == "ipc"
        assert not Path(kernel.manager.connection_file).exists()  # removed once both sides hold the key
        assert os.stat(kernel.private_folder).st_mode & 0o777 == 0o700
    finally:
        kernel.shutdown()
    result, _ = interp(tmp_path, env, ["```python\nprint(1)\n```", "Done."])
    assert all(line.startswith("interp: ") for line in result.stderr.splitlines()), result.stderr


def test_shell_blocks_work_with_an_odd_temporary_folder(tmp_path: Path, env: dict[str, str]) -> None:
    odd = tmp_path / "it's a dir"
    odd.mkdir()
    (tmp_path / "sub").mkdir()
    result, journal = interp(tmp_path, {**env, "TMPDIR": str(odd)},
                             ["```bash\ncd sub && echo moved\n```", "```python\nimport os\nprint(os.getcwd())\n```",
                              "Done."])
    executions = records(journal, "execution")
    assert [e["status"] for e in executions] == ["ok", "ok"], executions
    assert executions[1]["output"].strip() == str(tmp_path / "sub")


def test_a_kernel_that_died_while_idle_is_replaced_before_the_next_run(tmp_path: Path, env: dict[str, str]) -> None:
    doomed = ("```python\nimport os, subprocess\nx = 1\n"
              "subprocess.Popen(['sh', '-c', f'sleep 0.5; kill -9 {os.getpid()}'])\n```")
    script = write_script(tmp_path, [doomed, "ok", "```python\nprint('x' in dir())\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    proc = subprocess.Popen([*INTERP, "-y", "--plain", "--model", f"script:{script}", "--transcript", str(journal)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=tmp_path, text=True)
    proc.stdin.write("first\n")
    proc.stdin.flush()
    while not (journal.exists() and records(journal, "turn_end")):
        time.sleep(0.1)
    assert _gone_within(records(journal, "session")[0]["kernel_pid"], 30)
    out, err = proc.communicate("second\n", timeout=120)
    executions = records(journal, "execution")
    assert [e["status"] for e in executions] == ["ok", "ok"], executions
    assert executions[1]["output"].strip().endswith("False")
    assert "earlier variables are gone" in executions[1]["output"]
    assert "had died since the last run" in err


def test_a_flood_of_displays_is_bounded(tmp_path: Path, env: dict[str, str]) -> None:
    flood = ("```python\nfrom IPython.display import HTML, display\nfor i in range(300):\n"
             "    display(HTML(f'<i>{i}</i>'))\n```")
    result, journal = interp(tmp_path, env, [flood, "Done."])
    execution = records(journal, "execution")[0]
    assert execution["status"] == "ok"
    assert len(list(journal.with_suffix("").iterdir())) == 20
    assert "[280 more rich outputs not saved" in execution["output"]
    assert len(result.stdout.splitlines()) < 260


def test_a_model_that_fails_to_load_leaves_no_kernel_behind(tmp_path: Path, env: dict[str, str]) -> None:
    """A binary file as a script still ends in a traceback (interp/models/script.py), but its kernel must go."""
    (tmp_path / "tmp").mkdir()
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe\x00garbage")
    result = run_interp(["--model", f"script:{tmp_path / 'binary.json'}", "hi"],
                        env={**env, "TMPDIR": str(tmp_path / "tmp")},
                        cwd=tmp_path)
    assert result.returncode != 0
    assert eventually(lambda: not working_in(tmp_path))  # its kernel was started here
