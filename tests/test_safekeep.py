"""The files a request reads are copied aside while its code runs and put back when code changes them (safekeep.py):
whatever way the code found to reach the file, the user's data is there when the turn ends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import records, run_scripted

from interp.loop import safekeep
from interp.loop.safekeep import Restored, Safekeeping
from interp.stores.notebook import script

DATA = "vendor,amount\nAcme,$1\nBolt,$35\n"


def kept(tmp_path: Path, *names: str) -> Safekeeping:
    """A Safekeeping of these files of tmp_path (each holding DATA), copied as before a turn's first run."""
    for name in names:
        (tmp_path / name).write_text(DATA)
    keeping = Safekeeping(tmp_path / "session" / "kept")
    keeping.start(list(names), tmp_path)
    assert keeping.keep() == []
    return keeping


def test_a_file_code_changed_or_removed_is_put_back_and_one_it_left_is_not(tmp_path: Path) -> None:
    keeping = kept(tmp_path, "expenses.csv", "rates.csv")
    assert keeping.check() == []
    (tmp_path / "expenses.csv").write_text("")
    (tmp_path / "rates.csv").unlink()
    assert keeping.check() == [Restored("expenses.csv", "changed"), Restored("rates.csv", "removed")]
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
    assert keeping.check() == [Restored("expenses.csv", "changed")]
    assert path.read_text() == DATA


def test_a_link_left_in_the_files_place_is_replaced_not_written_through(tmp_path: Path) -> None:
    keeping = kept(tmp_path, "expenses.csv")
    (tmp_path / "elsewhere.txt").write_text("keep me")
    (tmp_path / "expenses.csv").unlink()
    (tmp_path / "expenses.csv").symlink_to(tmp_path / "elsewhere.txt")
    assert keeping.check() == [Restored("expenses.csv", "changed")]
    assert not (tmp_path / "expenses.csv").is_symlink() and (tmp_path / "expenses.csv").read_text() == DATA
    assert (tmp_path / "elsewhere.txt").read_text() == "keep me"


def test_a_file_over_the_cap_is_not_copied_and_the_user_is_told(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safekeep, "MAX_BYTES", 10)
    (tmp_path / "big.csv").write_text(DATA)
    keeping = Safekeeping(tmp_path / "session" / "kept")
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
    assert f"expenses.csv, which the request reads, was {how} by the code; restored it." in result.stderr
    assert f"interp put expenses.csv back as it was: this code {how} expenses.csv" in told[1]
    assert "write the result to expenses_clean.csv" in told[1]
    assert [(r["file"], r["how"]) for r in records(tmp_path / "j.jsonl", "restored")] == [("expenses.csv", how)]
    assert [e["status"] for e in records(tmp_path / "j.jsonl", "execution")] == ["ok", "ok"]
    assert not (tmp_path / "j" / "kept").exists()  # the copy went with the turn
    exported = script(records(tmp_path / "j.jsonl"))  # what a user reruns leaves the file alone too
    assert code.splitlines()[-1] not in exported and repr(code) not in exported and "expenses_clean.csv" in exported
