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
        "```python\nimport time\nprint('loop' + 'ing now', flush=True)\nwhile True: time.sleep(0.05)\n```",
        "```python\nprint('after', 6 * 7)\n```",
        "Done.",
    ])
    journal = tmp_path / "j.jsonl"
    child = spawn(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.sendline("loop forever")
    child.expect("looping now")  # printed by the running code, not part of the code shown
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


def test_edit_with_no_change_runs_the_original(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```python\nprint(40 + 1)\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    child = spawn(["--model", f"script:{script}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.sendline("add")
    child.expect(r"Run this code\?")
    child.sendline("e")
    child.expect("41")
    child.expect(">")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    assert records(journal, "execution")[0]["code"] == "print(40 + 1)"


def test_edited_code_is_what_runs(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```python\nprint(40 + 1)\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/40 + 1/40 + 2/' \"$1\"\n")
    editor.chmod(0o755)
    child = spawn(["--model", f"script:{script}", "--transcript", str(journal)], {**env, "VISUAL": str(editor)},
                  tmp_path)
    child.expect(">")
    child.sendline("add")
    child.expect(r"Run this code\?")
    child.sendline("e")
    child.expect("42")
    child.expect(">")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    execution = records(journal, "execution")[0]
    assert execution["code"].strip() == "print(40 + 2)"
    assert execution["output"].strip() == "42"


def test_ctrl_c_during_generation_with_the_real_model(tmp_path: Path, env: dict[str, str]) -> None:
    journal = tmp_path / "j.jsonl"
    child = spawn(["-y", "--transcript", str(journal), "--max-tokens", "4000", "--ctx", "4096"], env, tmp_path)
    child.expect(">", timeout=120)
    child.sendline("Write a very long story about a dragon, at least two thousand words.")
    child.expect("thousand words")  # the request's echo
    # A ^C typed while prompt_toolkit still holds the terminal in raw mode is a keypress, not a signal: wait until
    # the reply has been streaming for a while (thousands of characters drawn) before pressing it.
    child.expect(r"(?s).{3000}", timeout=120)
    child.sendintr()
    child.expect("interrupted", timeout=30)
    child.expect(">")
    child.sendcontrol("d")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    assert child.exitstatus == 0
    interrupted = [r for r in records(journal, "assistant") if r.get("interrupted")]
    assert len(interrupted) == 1 and interrupted[0]["content"]
    assert records(journal, "turn_end")[-1]["status"] == "interrupted"


def test_input_in_code_asks_the_person(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```python\nname = input('your name? ')\nprint('hi', name.upper())\n```",
                                     "Greeted."])
    journal = tmp_path / "j.jsonl"
    child = spawn(["--model", f"script:{script}", "--transcript", str(journal)], env, tmp_path)
    child.expect(">")
    child.sendline("greet me")
    child.expect(r"Run this code\?")
    child.sendline("y")
    child.expect("your name\\?")
    child.sendline("bob")
    child.expect("hi BOB")
    child.expect(">")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    assert "hi BOB" in records(journal, "execution")[0]["output"]
