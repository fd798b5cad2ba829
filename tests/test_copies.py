"""Code that ran a changed copy of a script the request named, the file left as it was (copies.py): when it is one,
the note the model gets, and in the real kernel the note's block that mends the file."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_interp, write_script
from fakes import ScriptedKernel, make_session, out, turn

from interp.copies import Script, asks_change, copied, watch
from interp.extract import code_blocks

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
    turn(session, "What would stats.py print with the plain average?")
    told = records(tmp_path / "j.jsonl", "model_call")[1]["input_tail"]["content"]
    assert "changed copy" not in told


def test_the_model_is_told_it_ran_a_copy_with_a_block_that_writes_it_back(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    kernel = ScriptedKernel([out("average: 18.0\n")])
    kernel.cwd = str(tmp_path)
    session = make_session(tmp_path, [f"```python\n{FIXED}\n```", "The average is 18.0."], kernel)
    turn(session, REQUEST)
    told = records(tmp_path / "j.jsonl", "model_call")[1]["input_tail"]["content"]
    assert told.startswith("Output:\n```text\naverage: 18.0\n```\n\nThat ran a changed copy of stats.py in the kernel")
    [block] = code_blocks(told[told.index("That ran"):])
    assert block.code == f"with open('stats.py', 'w') as f:\n    f.write(r'''{FIXED}\n''')\n%run stats.py"


def test_in_the_real_kernel_the_block_of_the_note_mends_the_file(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "stats.py").write_text(STATS)
    mend = f"```python\nwith open('stats.py', 'w') as f:\n    f.write(r'''{FIXED}\n''')\n%run stats.py\n```"
    script = write_script(tmp_path, [f"```python\n{FIXED}\n```", mend, "Fixed: 18.0."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), REQUEST],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    told = [r["content"] for r in records(journal, "user") if r.get("kind") == "feedback"]
    assert "That ran a changed copy of stats.py" in told[0] and mend in told[0]  # the block to copy, as sent
    assert "changed copy" not in told[1] and "average: 18.0" in told[1]
    assert (tmp_path / "stats.py").read_text() == FIXED + "\n"
