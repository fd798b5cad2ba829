"""Code that ran a changed copy of a script the request named, the file left as it was (copies.py): when it is one,
and that interp then saves the change into the file and runs it, told to the user, asked of them where code is
confirmed, with the file's old text kept in the journal."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_interp, write_script
from fakes import ScriptedKernel, make_session, out, turn

from interp.common.events import Confirm, Notice, TurnEnd
from interp.running.copies import Script, asks_change, copied, save_block, watch

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


def test_the_save_block_writes_the_code_as_it_is_and_runs_the_file(tmp_path: Path) -> None:
    for code in (FIXED, "x = '''quoted'''\nprint(x, '\\\\')\n", "print('a\\\\')"):
        block = save_block(Script(tmp_path / "my stats.py", "my stats.py", STATS), code)
        assert block.language == "python"
        write, run = block.code.rsplit("\n", 1)
        assert run == f"%run '{tmp_path / 'my stats.py'}'"
        exec(write)  # the block's own code, less the IPython magic
        assert (tmp_path / "my stats.py").read_text() == code.rstrip("\n") + "\n"


def test_the_change_is_saved_into_the_file_and_the_file_runs(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    kernel = ScriptedKernel([out("average: 18.0\n")], [out("average: 18.0\n")])
    kernel.cwd = str(tmp_path)
    session = make_session(tmp_path, [f"```python\n{FIXED}\n```", "The average is 18.0."], kernel)
    events, _ = turn(session, REQUEST)
    warned = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert warned == ["That code ran a changed copy of stats.py, and stats.py itself is unchanged on disk: saving "
                      "the change into it and running it."]
    assert kernel.executed == [FIXED, save_block(Script(tmp_path / "stats.py", "stats.py", STATS), FIXED).code]
    told = [m["content"] for m in session.history if m["kind"] == "feedback"]
    assert told == ["Output:\n```text\naverage: 18.0\n```\n\nThat code is now saved in stats.py, as the request "
                    "asked, and the file ran:\nOutput:\n```text\naverage: 18.0\n```"]
    [saved] = records(tmp_path / "j.jsonl", "save_copy")
    assert saved["before"] == STATS and saved["path"] == str(tmp_path / "stats.py")


def test_where_code_is_confirmed_the_user_may_keep_the_file(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    kernel = ScriptedKernel([out("average: 18.0\n")])
    kernel.cwd = str(tmp_path)
    session = make_session(tmp_path, [f"```python\n{FIXED}\n```", "The average is 18.0."], kernel, yes=False)
    answers = iter(["y", "n"])
    events = []
    for event in session.turn(REQUEST):
        if isinstance(event, Confirm):
            event.answer = next(answers)
        events.append(event)
    asked = [e.code for e in events if isinstance(e, Confirm)]
    assert len(asked) == 2 and "%run" in asked[1]
    assert kernel.executed == [FIXED] and isinstance(events[-1], TurnEnd) and events[-1].status == "ok"
    assert (tmp_path / "stats.py").read_text() == STATS


def test_in_a_terminal_session_the_fixed_copy_lands_in_the_file(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    script = write_script(tmp_path, [f"```python\n{FIXED}\n```", "Fixed: 18.0."])
    result = run_interp(["-y", "--plain", "--model", f"script:{script}", REQUEST], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shown = result.stdout + result.stderr
    assert shown.count("ran a changed copy of stats.py") == 1 and shown.count("average: 18.0") >= 2
    assert (tmp_path / "stats.py").read_text() == FIXED + "\n"
