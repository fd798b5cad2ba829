"""`kill -9` in the middle of a run, then `--resume`: the model is told the kernel is new and the last run never
finished, rather than meeting a reply whose code has no outcome (REPORT.md of the third round, 8.1, D20)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from conftest import INTERP, records, run_interp, write_script


def test_resume_after_kill_9_says_the_last_run_never_finished(tmp_path: Path, env: dict[str, str]) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["```python\nx = 41\nprint('first turn')\n```", "Done.",
                                  "```python\nimport time, pathlib\nx += 1\npathlib.Path('running').touch()\n"
                                  "time.sleep(60)\n```", "Done."]))
    interp = subprocess.Popen([*INTERP, "-y", "--model", f"script:{script}"],
                              cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, text=True)
    assert interp.stdin is not None
    interp.stdin.write("first request\nsecond request\n")
    interp.stdin.flush()
    started = time.monotonic()
    while not (tmp_path / "running").exists():
        assert interp.poll() is None and time.monotonic() - started < 120, "the second run never started"
        time.sleep(0.05)
    os.kill(interp.pid, signal.SIGKILL)
    interp.wait()
    resumed = write_script(tmp_path, ["```python\nprint('x' in globals())\n```", "Done."])
    result = run_interp(["-y", "--resume", "--model", f"script:{resumed}"], env=env, cwd=tmp_path,
                        stdin="third request\n")
    [journal] = (Path(env["XDG_DATA_HOME"]) / "interp" / "sessions").glob("*.jsonl")
    assert result.returncode == 0, result.stderr
    assert "The last run was cut off when interp was stopped: it never finished." in result.stderr
    notes = [r["content"] for r in records(journal, "user") if r.get("kind") == "note"]
    assert any("that run never finished" in note and "new kernel" in note for note in notes), notes
    assert records(journal, "execution")[-1]["output"].strip() == "False"


def test_resume_after_a_finished_turn_says_only_that_the_kernel_is_new(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```python\nkept = 1\n```", "Defined kept."])
    run_interp(["-y", "--model", f"script:{script}", "define kept"], env=env, cwd=tmp_path)
    again = write_script(tmp_path, ["Fine."])
    result = run_interp(["-y", "--resume", "--model", f"script:{again}"], env=env, cwd=tmp_path, stdin="and now\n")
    [journal] = (Path(env["XDG_DATA_HOME"]) / "interp" / "sessions").glob("*.jsonl")
    assert "cut off" not in result.stderr
    notes = [r["content"] for r in records(journal, "user") if r.get("kind") == "note"]
    assert len(notes) == 1 and "new kernel" in notes[0] and "never finished" not in notes[0]
