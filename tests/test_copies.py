"""Code that ran a changed copy of a script the request named, the file left as it was (copies.py): when it is one,
the notice the user gets, and in a real session that it follows the copy and not the fix."""

from __future__ import annotations

from pathlib import Path

from conftest import run_interp, write_script
from fakes import ScriptedKernel, make_session, out, turn

from interp.copies import Script, asks_change, copied, watch
from interp.events import Notice

STATS = 'values = [4, 8, 15, 16, 23, 42]\naverage = sum(values) / (len(values) - 1)\nprint("average:", average)\n'
FIXED = 'values = [4, 8, 15, 16, 23, 42]\naverage = sum(values) / len(values)\nprint("average:", average)'
REQUEST = "stats.py prints the wrong average of its list. Fix the bug in stats.py, then run the file."


def test_a_changed_copy_is_told_apart_from_code_that_handles_the_file(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    [script] = watch([(tmp_path / "stats.py", "stats.py"), (tmp_path / "gone.py", "gone.py")])
    assert copied(script, FIXED)
    assert not copied(script, STATS)  # ran as it is: no change to tell
    assert not copied(script, "with open('stats.py', 'w') as f:\n    f.write(src)\n%run stats.py")
    assert not copied(script, "print(sum([1, 2, 3]) / 3)")  # not a copy
    (tmp_path / "stats.py").write_text(FIXED)
    assert not copied(script, FIXED)  # the file changed: the code did write it
    assert watch([(tmp_path / "notes.txt", "notes.txt")]) == []
    assert not copied(Script(tmp_path / "gone.py", "gone.py", STATS), FIXED)


def test_only_a_request_that_asks_for_a_change_watches_its_scripts(tmp_path: Path) -> None:
    assert asks_change(REQUEST) and asks_change("greet.py: edit the greeting") and asks_change("Debug run.py")
    assert not asks_change("What does stats.py print?") and not asks_change("run prefix.py")
    (tmp_path / "stats.py").write_text(STATS)
    kernel = ScriptedKernel([out("average: 18.0\n")])
    kernel.cwd = str(tmp_path)
    session = make_session(tmp_path, [f"```python\n{FIXED}\n```", "It would print 18.0."], kernel)
    events, _ = turn(session, "What would stats.py print with the plain average?")
    assert not [e for e in events if isinstance(e, Notice) and "changed copy" in e.text]


def test_the_user_is_told_the_code_ran_a_copy_and_the_file_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    kernel = ScriptedKernel([out("average: 18.0\n")])
    kernel.cwd = str(tmp_path)
    session = make_session(tmp_path, [f"```python\n{FIXED}\n```", "The average is 18.0."], kernel)
    events, _ = turn(session, REQUEST)
    warned = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert warned == ["That code ran a changed copy of stats.py; stats.py itself is unchanged on disk."]


def test_in_a_terminal_session_the_notice_follows_the_copy_and_not_the_fix(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    mend = f"```python\nwith open('stats.py', 'w') as f:\n    f.write(r\'\'\'{FIXED}\n\'\'\')\n%run stats.py\n```"
    script = write_script(tmp_path, [f"```python\n{FIXED}\n```", mend, "Fixed: 18.0."])
    result = run_interp(["-y", "--plain", "--model", f"script:{script}", REQUEST], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert shown.count("ran a changed copy of stats.py") == 1
    assert (tmp_path / "stats.py").read_text() == FIXED + "\n"
