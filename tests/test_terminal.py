"""The REPL as a person meets it: a pseudo-terminal, keys typed, the screen read."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pexpect
import psutil
from conftest import records, write_script


def spawn(args: list[str], env: dict[str, str], cwd: Path) -> pexpect.spawn:
    env = {**env, "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1", "EDITOR": "true"}
    return pexpect.spawn(sys.executable, ["-m", "interp", *args], env=env, cwd=str(cwd), encoding="utf-8",
                         timeout=60, dimensions=(40, 120))


def test_confirm_yes_then_no_then_ctrl_d(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [
        "Here you go:\n```python\nprint('hello from the kernel')\n```",
        "It printed the greeting.",
        "```python\nopen('never.txt', 'w')\n```",
    ])
    journal = tmp_path / "j.jsonl"
    child = spawn(["--model", f"script:{script}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.sendline("say hello")
    child.expect(r"Run this code\? \[y/n/e/a\]")
    child.sendline("y")
    child.expect("hello from the kernel")
    child.expect("It printed the greeting")
    child.expect(">")
    child.sendline("make a file")
    child.expect(r"Run this code\?")
    child.sendline("n")
    child.expect(">")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert not (tmp_path / "never.txt").exists()
    statuses = [e["status"] for e in records(journal, "execution")]
    assert statuses == ["ok", "declined"]
    kernel_pid = records(journal, "session")[0]["kernel_pid"]
    time.sleep(0.5)
    assert not psutil.pid_exists(kernel_pid), "the kernel must end with the session"


def test_ctrl_c_during_execution_returns_to_a_working_prompt(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [
        "```python\nimport time\nprint('looping', flush=True)\nwhile True: time.sleep(0.05)\n```",
        "```python\nprint('after', 6 * 7)\n```",
        "Done.",
    ])
    journal = tmp_path / "j.jsonl"
    child = spawn(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.sendline("loop forever")
    child.expect("looping")
    child.sendintr()
    child.expect("interrupted")
    child.expect(">")
    child.sendline("now something else")
    child.expect("after 42")
    child.expect(">")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    assert [e["status"] for e in records(journal, "execution")] == ["interrupted", "ok"]
