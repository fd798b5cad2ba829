"""The files a request reads are copied aside while its code runs and put back when code changes them (safekeep.py):
whatever way the code found to reach the file, the user's data is there when the turn ends."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import INTERP, deadline, records, run_scripted

from interp.running import safekeep
from interp.running.safekeep import Restored, Safekeeping
from interp.runtime.outputs import OutputFolder
from interp.stores.notebook import script

DATA = "vendor,amount\nAcme,$1\nBolt,$35\n"


def kept(tmp_path: Path, *names: str) -> Safekeeping:
    """A Safekeeping of these files of tmp_path (each holding DATA), copied as before a turn's first run."""
    for name in names:
        (tmp_path / name).write_text(DATA)
    keeping = Safekeeping(OutputFolder(tmp_path / "session"))
    keeping.start(list(names), tmp_path)
    assert keeping.keep() == []
    return keeping


def outcomes(restored: list[Restored]) -> list[tuple[str, str, str | None]]:
    return [(item.name, item.how, item.problem) for item in restored]


def test_a_file_code_changed_or_removed_is_put_back_and_one_it_left_is_not(tmp_path: Path) -> None:
    keeping = kept(tmp_path, "expenses.csv", "rates.csv")
    assert keeping.check() == []
    (tmp_path / "expenses.csv").write_text("")
    (tmp_path / "rates.csv").unlink()
    assert outcomes(keeping.check()) == [("expenses.csv", "changed", None), ("rates.csv", "removed", None)]
    assert (tmp_path / "expenses.csv").read_text() == DATA and (tmp_path / "rates.csv").read_text() == DATA
    assert keeping.check() == []  # put back once: the file as restored is the one watched now


def test_a_file_written_again_with_the_same_bytes_or_touched_is_left_as_it_is(tmp_path: Path) -> None:
    keeping = kept(tmp_path, "expenses.csv")
    (tmp_path / "expenses.csv").write_text(DATA)
    os.utime(tmp_path / "expenses.csv", (1, 1))
    assert keeping.check() == []
    assert (tmp_path / "expenses.csv").stat().st_mtime == 1


def test_a_change_that_keeps_the_size_and_the_time_is_seen(tmp_path: Path) -> None:
    """The same size and a modification time set back (shutil.copy2 does, from another file): the inode's change
    time still moves, and the bytes decide."""
    keeping = kept(tmp_path, "expenses.csv")
    path = tmp_path / "expenses.csv"
    before = path.stat()
    path.write_text(DATA.replace("Acme", "Zeta"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert outcomes(keeping.check()) == [("expenses.csv", "changed", None)]
    assert path.read_text() == DATA


def test_a_link_left_in_the_files_place_is_replaced_not_written_through(tmp_path: Path) -> None:
    keeping = kept(tmp_path, "expenses.csv")
    (tmp_path / "elsewhere.txt").write_text("keep me")
    (tmp_path / "expenses.csv").unlink()
    (tmp_path / "expenses.csv").symlink_to(tmp_path / "elsewhere.txt")
    assert outcomes(keeping.check()) == [("expenses.csv", "changed", None)]
    assert not (tmp_path / "expenses.csv").is_symlink() and (tmp_path / "expenses.csv").read_text() == DATA
    assert (tmp_path / "elsewhere.txt").read_text() == "keep me"


def test_a_file_over_the_cap_is_not_copied_and_the_user_is_told(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safekeep, "MAX_BYTES", 10)
    (tmp_path / "big.csv").write_text(DATA)
    keeping = Safekeeping(OutputFolder(tmp_path / "session"))
    keeping.start(["big.csv"], tmp_path)
    assert keeping.keep() == ["big.csv is over 0 MB: no copy of it is kept aside, so code that changes it cannot be "
                              "undone."]
    (tmp_path / "big.csv").write_text("")
    assert keeping.check() == []


def test_the_copies_are_made_once_a_turn_and_removed_when_it_ends(tmp_path: Path) -> None:
    keeping = kept(tmp_path, "expenses.csv")
    [copy] = (tmp_path / "session" / "kept").iterdir()
    (tmp_path / "expenses.csv").write_text("")
    assert keeping.keep() == []  # a later run of the turn: the copy made before the first stays
    assert copy.read_text() == DATA
    keeping.end()
    assert not (tmp_path / "session").exists()
    assert keeping.check() == []


# Ways code emptied, changed or removed the file the request reads that its text does not show as a literal
# open(..., 'w') (guard.py): each is run, and the file is put back.
DAMAGES = [
    ("python", "name = 'expenses.csv'\nopen(name, 'w').close()", "changed"),
    ("python", "import os\nopen(os.path.join('.', 'expenses.csv'), 'w').close()", "changed"),
    ("python", "import os\nopen(os.path.abspath('expenses.csv'), 'w').close()", "changed"),
    ("python", "open('expenses.csv', 'r+').truncate(0)", "changed"),
    ("python", "import shutil\nshutil.copy('other.csv', 'expenses.csv')", "changed"),
    ("python", "import os\nos.remove('expenses.csv')", "removed"),
    ("shell", "sed -i 's/Acme/Zeta/' expenses.csv", "changed"),
]


@pytest.mark.parametrize(("language", "code", "how"), DAMAGES)
def test_code_that_changes_the_file_the_request_reads_runs_and_the_file_is_restored(
        tmp_path: Path, env: dict[str, str], language: str, code: str, how: str) -> None:
    """A scripted model damages expenses.csv in a way the guard cannot read: it runs, the file is put back, the user
    is told in one line and the model as a failure; its next code writes the file asked for from the data."""
    (tmp_path / "expenses.csv").write_text(DATA)
    (tmp_path / "other.csv").write_text("x\n")
    fixed = ("```python\nimport csv\nwith open('expenses.csv') as f:\n    rows = list(csv.DictReader(f))\n"
             "with open('expenses_clean.csv', 'w') as f:\n    f.write('vendor,amount\\n')\n    for r in rows:\n"
             "        f.write(f\"{r['vendor']},{r['amount'].strip('$')}\\n\")\n```")
    result, told = run_scripted(tmp_path, env, [f"```{language}\n{code}\n```", fixed, "Wrote expenses_clean.csv."],
                                "Write expenses_clean.csv from expenses.csv, the amounts without $.")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "expenses.csv").read_text() == DATA
    assert (tmp_path / "expenses_clean.csv").read_text() == "vendor,amount\nAcme,1\nBolt,35\n"
    assert f"expenses.csv, which the request reads, was {how} while the code ran; put it back as it was before the " \
           "run." in result.stderr
    assert f"interp put expenses.csv back as it was: this code {how} expenses.csv" in told[1]
    assert "write the result to expenses_clean.csv" in told[1]
    assert [(r["file"], r["how"]) for r in records(tmp_path / "j.jsonl", "restored")] == [("expenses.csv", how)]
    assert [e["status"] for e in records(tmp_path / "j.jsonl", "execution")] == ["ok", "ok"]
    assert not (tmp_path / "j" / "kept").exists()  # the copy went with the turn
    exported = script(records(tmp_path / "j.jsonl"))  # what a user reruns leaves the file alone too
    assert code.splitlines()[-1] not in exported and repr(code) not in exported and "expenses_clean.csv" in exported


def test_a_link_planted_where_the_copy_used_to_be_made_is_not_written_through(tmp_path: Path) -> None:
    """Probe 3.1: code links the name interp once used for its temporary file to a file outside, then changes the
    file the request reads. interp puts the file back without writing through that link (or any other)."""
    keeping = kept(tmp_path, "data.csv")
    target = tmp_path / "outside.txt"
    target.write_text("ORIGINAL-TARGET\n")
    (tmp_path / ".data.csv.interp-restore").symlink_to(target)
    with open(tmp_path / "data.csv", "a") as f:
        f.write("3,4\n")
    assert outcomes(keeping.check()) == [("data.csv", "changed", None)]
    assert target.read_text() == "ORIGINAL-TARGET\n"
    assert (tmp_path / "data.csv").read_text() == DATA and not (tmp_path / "data.csv").is_symlink()


def test_a_folder_swapped_for_a_link_is_not_followed_and_the_copy_is_kept(tmp_path: Path) -> None:
    """Probe 3.2: code renames the folder of the file the request reads and puts a link to another folder in its
    place. Nothing is written there; the user is told where the copy is, and it stays there."""
    (tmp_path / "keys").mkdir()
    keeping = kept(tmp_path, "keys/authorized_keys")
    outside = tmp_path / "sshdir"
    outside.mkdir()
    (tmp_path / "keys").rename(tmp_path / "keys_old")
    (tmp_path / "keys").symlink_to(outside)
    [(name, how, problem)] = outcomes(keeping.check())
    assert (name, how) == ("keys/authorized_keys", "moved") and problem and "its copy is" in problem
    copy = Path(problem.rsplit("its copy is ", 1)[1])
    assert list(outside.iterdir()) == []
    keeping.end()
    assert copy.read_text() == DATA  # named to the user: not removed with the others


@pytest.mark.parametrize("what", ["fifo", "zero"])
def test_a_fifo_or_dev_zero_in_the_files_place_is_replaced_unread(tmp_path: Path, what: str) -> None:
    """Probe 3.3: code puts a FIFO, or a link to /dev/zero, where the file was; reading it would block or never end."""
    keeping = kept(tmp_path, "data.csv")
    path = tmp_path / "data.csv"
    path.unlink()
    if what == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    with deadline(30):
        assert outcomes(keeping.check()) == [("data.csv", "changed", None)]
    assert path.is_file() and not path.is_symlink() and path.read_text() == DATA


def test_a_change_made_while_the_code_ran_is_kept_beside_the_file_put_back(tmp_path: Path) -> None:
    """Probe 3.4: who changed the file cannot be known (the user's editor, or the code); either way the version
    found is kept, and the user is told where."""
    keeping = kept(tmp_path, "data.csv")
    with open(tmp_path / "data.csv", "a") as f:
        f.write("Cog,$7\n")
    [item] = keeping.check()
    assert item.changed and Path(item.changed).read_text() == DATA + "Cog,$7\n"
    assert (tmp_path / "data.csv").read_text() == DATA
    keeping.end()
    assert Path(item.changed).read_text() == DATA + "Cog,$7\n"  # it outlives the turn


def _probe_run(tmp_path: Path, env: dict[str, str], code: str, request: str) -> str:
    """`interp -y` on a request, the model's code fixed; what it said on stderr."""
    result, _ = run_scripted(tmp_path, env, [f"```python\n{code}\n```", "Done."], request)
    return result.stderr


def test_the_cli_puts_a_file_back_without_following_links_code_planted(tmp_path: Path, env: dict[str, str]) -> None:
    target = tmp_path / "target.txt"
    target.write_text("ORIGINAL-TARGET\n")
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    code = (f"import os\nn = 'da' + 'ta.csv'\nos.symlink({str(target)!r}, '.' + n + '.interp-restore')\n"
            "with open(n, 'a') as f:\n    f.write('3,4\\n')\nprint('planted')")
    said = _probe_run(tmp_path, env, code, "Write out.csv from data.csv with the column a doubled.")
    assert "data.csv, which the request reads, was changed while the code ran; put it back" in said
    assert target.read_text() == "ORIGINAL-TARGET\n"
    assert (tmp_path / "data.csv").read_text() == "a,b\n1,2\n" and not (tmp_path / "data.csv").is_symlink()


def test_the_cli_does_not_follow_a_swapped_folder(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "authorized_keys").write_text("ssh-ed25519 AAAA user@host\n")
    outside = tmp_path / "sshdir"
    outside.mkdir()
    code = f"import os\nos.rename('keys', 'keys_old')\nos.symlink({str(outside)!r}, 'keys')\nprint('swapped')"
    said = _probe_run(tmp_path, env, code, "Write count.txt from keys/authorized_keys with its number of lines.")
    assert "keys/authorized_keys, which the request reads, was moved while the code ran; could not put it back" in said
    assert "its copy is" in said
    assert list(outside.iterdir()) == []


def test_the_cli_does_not_hang_on_a_fifo_in_the_files_place(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    code = "import os\nn = 'da' + 'ta.csv'\nos.remove(n)\nos.mkfifo(n)\nprint('fifo made')"
    said = _probe_run(tmp_path, env, code, "Write out.csv from data.csv with the column a doubled.")
    assert "was changed while the code ran; put it back" in said
    assert (tmp_path / "data.csv").read_text() == "a,b\n1,2\n"


def test_the_cli_keeps_a_change_the_user_made_while_the_code_ran(tmp_path: Path, env: dict[str, str]) -> None:
    """Probe 3.4 as a person meets it: the code only reads the file and waits; meanwhile the user adds a row."""
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    script = tmp_path / "script.json"
    code = ("import time, pathlib\nrows = open('data.csv').read()\npathlib.Path('started').touch()\n"
            "while not pathlib.Path('edited').exists():\n    time.sleep(0.05)\nprint(len(rows))")
    script.write_text(json.dumps([f"```python\n{code}\n```", "Done."]))
    interp = subprocess.Popen([*INTERP, "-y", "--model", f"script:{script}", "--transcript", str(tmp_path / "j.jsonl"),
                               "Write out.csv from data.csv with the column a doubled."], cwd=tmp_path, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = time.monotonic()
    while not (tmp_path / "started").exists():
        assert interp.poll() is None and time.monotonic() - started < 120, "the code never started"
        time.sleep(0.05)
    with open(tmp_path / "data.csv", "a") as f:  # the user, in an editor
        f.write("3,4\n")
    (tmp_path / "edited").touch()
    _, said = interp.communicate(timeout=120)
    assert "The version the run left is kept as " in said
    kept_as = Path(said.split("The version the run left is kept as ", 1)[1].split(" (in case", 1)[0])
    assert kept_as.read_text() == "a,b\n1,2\n3,4\n"


def test_a_link_in_place_of_the_output_folder_or_its_copies_leads_nowhere(tmp_path: Path, env: dict[str, str]) -> None:
    """With --transcript in the working directory, code may plant links where interp keeps its copies and its
    outputs (the folder beside the journal, its kept/ folder): interp writes nothing through them."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (tmp_path / "data.csv").write_text("a,b\n1,2\n")
    code = (f"import os\nos.rename('j', 'j_old')\nos.symlink({str(victim)!r}, 'j')\n"
            "open('j_old/kept/0-data.csv', 'w').write('planted')\n"
            "from IPython.display import display, Markdown\ndisplay(Markdown('PWNED'))\n"
            "open('da' + 'ta.csv', 'a').write('3,4\\n')")
    said = _probe_run(tmp_path, env, code, "Write out.csv from data.csv with the column a doubled.")
    assert list(victim.iterdir()) == [], said
    # The copy the code rewrote is what was put back: no gain for code that may write data.csv itself.
    assert (tmp_path / "data.csv").read_text() == "planted"
    assert "put it back as it was before the run" in said
