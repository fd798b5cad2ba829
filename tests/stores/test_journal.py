"""The journal when things go wrong: damaged files on reading, a torn last line, paths and disks it cannot write."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pexpect
import pytest
from conftest import records, run_interp, spawn, write_script

from interp.stores.journal import Damage, Journal, JournalInUse, pid_path, read

GOOD = [
    {"type": "session", "ts": 1.0, "model": "m"},
    {"type": "user", "ts": 2.0, "content": "first request", "kind": "request"},
    {"type": "assistant", "ts": 3.0, "content": "an answer", "kind": "reply"},
]
BAD_LINES = [
    b'{"type": "user", "ts": 4.0, "content": "caf\xe9", "kind": "request"}',  # Latin-1, not UTF-8
    b"[1, 2, 3]",
    b'{"ts": 5.0, "content": "no type"}',
    b'{"type": "user", "ts": 6.0, "kind": "request"}',
    b'{"type": "load", "ts": 7.0, "source": "x", "history": "not a list"}',
    b'{"type": "load", "ts": 8.0, "source": "x", "history": [{"role": "user", "content": 5, "kind": "request"}]}',
    b'{"type": "assistant", "ts": 9.0, "cont',  # cut short by a crash
]


def damaged_journal(path: Path) -> Path:
    lines = [json.dumps(r).encode() for r in GOOD] + BAD_LINES
    path.write_bytes(b"\n".join(lines))
    return path


def test_damaged_lines_are_skipped_and_named(tmp_path: Path) -> None:
    path = damaged_journal(tmp_path / "j.jsonl")
    damage: list[Damage] = []
    assert read(path, damage) == GOOD
    assert [d.line for d in damage] == [4, 5, 6, 7, 8, 9, 10]
    assert str(damage[0]) == f"{path}, line 4: not UTF-8 text; skipped"
    assert "not a JSON object" in damage[1].reason and "no record type" in damage[2].reason


def test_conversations_and_resume_survive_a_damaged_journal(tmp_path: Path, env: dict[str, str]) -> None:
    sessions = tmp_path / "data" / "interp" / "sessions"
    sessions.mkdir(parents=True)
    damaged = damaged_journal(sessions / "20260101-000000-aaaaaa.jsonl")
    (sessions / "20260102-000000-bbbbbb.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOOD))
    listed = run_interp(["--conversations"], env=env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "20260101-000000-aaaaaa" in listed.stdout and "20260102-000000-bbbbbb" in listed.stdout
    assert f"interp: {damaged}, line 4: not UTF-8 text; skipped" in listed.stderr
    assert "Traceback" not in listed.stderr
    script = write_script(tmp_path, ["Resumed answer."])
    resumed = run_interp(["--resume", "20260101", "-y", "--model", f"script:{script}", "go on"], env=env,
                         cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "line 5: not a JSON object; skipped" in resumed.stderr
    assert "Resumed 2 messages" in resumed.stderr


WRONG_TYPES = [  # each line is JSON of the right outline with one field of the wrong type
    {"type": "execution", "ts": 10.0, "language": "python", "code": 5, "status": "ok", "output": "", "error": None},
    {"type": "execution", "ts": 11.0, "language": "python", "status": "ok", "output": "", "error": None},
    {"type": "execution", "ts": 12.0, "code": "x", "status": "ok", "error": ["no"]},
    {"type": "execution", "ts": 13.0, "code": "x", "outputs": [{"stream": "stdout", "text": 5}]},
    {"type": "execution", "ts": 14.0, "code": "x", "outputs": [{"stream": "stdout"}]},
    {"type": "execution", "ts": 15.0, "code": "x", "outputs": [{"files": {"image/png": 7}}]},
    {"type": "execution", "ts": 16.0, "code": "x", "outputs": "printed"},
    {"type": "session", "ts": 17.0, "cwd": 5, "model": "m"},
    {"type": "session", "ts": 18.0, "model": "m", "language_info": "python"},
    {"type": "unpreviewed", "ts": 19.0, "content": 5},
    {"type": "user", "ts": 20.0, "kind": "request", "content": "go", "typed": ["go"]},
]


def test_records_with_a_field_of_the_wrong_type_are_skipped_and_named(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*GOOD, *WRONG_TYPES]))
    damage: list[Damage] = []
    assert read(path, damage) == GOOD
    assert [d.line for d in damage] == list(range(4, 4 + len(WRONG_TYPES)))
    assert damage[0].reason == "an execution record whose code has the wrong type (int)"
    assert damage[1].reason == "an execution record without its code"


def test_export_and_resume_of_a_journal_with_wrong_typed_records_skip_them_in_a_line_each(
        tmp_path: Path, env: dict[str, str]) -> None:
    sessions = tmp_path / "data" / "interp" / "sessions"
    sessions.mkdir(parents=True)
    ran = {"type": "execution", "ts": 3.5, "language": "python", "code": "print(1)", "status": "ok", "output": "1\n",
           "error": None, "outputs": [{"stream": "stdout", "text": "1\n"}]}
    wrong = [WRONG_TYPES[0], WRONG_TYPES[9]]
    lines = [json.dumps(r).encode() for r in [*GOOD, ran, *wrong]] + [b"not json", BAD_LINES[-1]]
    journal = sessions / "20260101-000000-aaaaaa.jsonl"
    journal.write_bytes(b"\n".join(lines))
    exported = run_interp(["--export", str(journal), "out.ipynb"], env=env, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert "Traceback" not in exported.stderr
    assert f"interp: {journal}, line 5: an execution record whose code has the wrong type (int); skipped" in (
        exported.stderr)
    assert "... and 1 more damaged lines" in exported.stderr
    code = [c for c in nbformat.read(tmp_path / "out.ipynb", as_version=4).cells if c.cell_type == "code"]
    assert [c.source for c in code] == ["print(1)"]
    script = write_script(tmp_path, ["Resumed answer."])
    resumed = run_interp(["--resume", "20260101", "-y", "--model", f"script:{script}", "go on"], env=env,
                         cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr and "Resumed 2 messages" in resumed.stderr


def test_a_value_the_notebook_schema_rejects_is_refused_in_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    journal = tmp_path / "j.jsonl"
    session = {"type": "session", "ts": 1.0, "model": "m", "language_info": {"name": "python", "mimetype": 5}}
    journal.write_text(json.dumps(session) + "\n")
    result = run_interp(["--export", str(journal), "out.ipynb"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("interp: the journal holds a value a notebook cannot: ")
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_a_torn_last_line_is_not_continued(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps(GOOD[0]) + '\n{"type": "assistant", "cont')
    journal = Journal(path)
    journal.record("session", model="again")
    journal.close()
    assert [r.get("model") for r in read(path)] == ["m", "again"]
    damage: list[Damage] = []
    read(path, damage)
    assert [d.line for d in damage] == [2]


@pytest.mark.parametrize("where", ["file/j.jsonl", "folder", "/dev/full"], ids=["parent-is-a-file", "a-folder",
                                                                                "dev-full"])
def test_a_journal_that_cannot_be_written_is_a_usage_error_before_loading(tmp_path: Path, env: dict[str, str],
                                                                          where: str) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "folder").mkdir()
    result = run_interp(["--model", "script:missing.json", "--transcript", where, "hi"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"interp: cannot write the journal {where}: ")
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_a_full_disk_mid_session_is_said_once_and_leaves_whole_lines(tmp_path: Path, env: dict[str, str]) -> None:
    """A file size limit stands in for a full disk: writes past it fail (EFBIG) like writes to a full one."""
    script = write_script(tmp_path, ["```python\nprint('x' * 4000)\n```", "Done.", "```python\nprint(6 * 7)\n```",
                                     "Done."])
    journal = tmp_path / "j.jsonl"

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))

    result = subprocess.run([sys.executable, "-m", "interp", "-y", "--plain", "--model", f"script:{script}",
                             "--transcript", str(journal)], input="one\ntwo\n", capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=120, preexec_fn=limit_file_size)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("cannot write to the journal") == 1, result.stderr
    assert "42" in result.stdout  # the second turn ran
    damage: list[Damage] = []
    read(journal, damage)
    assert not damage
    assert journal.read_bytes().endswith(b"\n")
    assert records(journal, "session")


def test_interps_own_data_is_private(tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    html = "```python\nfrom IPython.display import HTML, display\ndisplay(HTML('<b>mine</b>'))\n```"
    script = write_script(tmp_path, [html, "Done."])
    result = run_interp(["-y", "--model", f"script:{script}", "go"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    sessions = tmp_path / "data" / "interp" / "sessions"
    (journal,) = sessions.glob("*.jsonl")
    (saved,) = journal.with_suffix("").iterdir()
    modes = {p.name: p.stat().st_mode & 0o777 for p in (sessions, journal, journal.with_suffix(""), saved)}
    assert modes == {sessions.name: 0o700, journal.name: 0o600, journal.stem: 0o700, saved.name: 0o600}

    from interp.ui.repl import history_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "fresh"))
    assert history_path().stat().st_mode & 0o777 == 0o600


def test_a_journal_is_held_by_one_process_until_it_ends_and_each_record_names_its_session(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    code = (f"import sys\nfrom interp.stores.journal import Journal\njournal = Journal({str(path)!r})\n"
            "journal.record('session')\nprint('held', flush=True)\nsys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert pid_path(path).read_text() == f"{holder.pid}\n"
        with pytest.raises(JournalInUse, match=f"^session in use by PID {holder.pid}: another interp is writing"):
            Journal(path)
    finally:
        holder.kill()  # kill -9: no close, no cleanup
        holder.communicate()
    first = Journal(path)  # the lock went with the process; its PID file, stale, is written over
    assert pid_path(path).read_text() == f"{os.getpid()}\n"
    first.record("session")
    again = Journal(path)  # this process holds it already: a second session of its own may follow the first
    again.record("session")
    again.close()
    first.close()
    assert not pid_path(path).exists()
    ids = [r["session_id"] for r in read(path)]
    assert len(ids) == 3 and len(set(ids)) == 3 and all(len(i) == 12 for i in ids)


def test_a_second_interp_on_a_journal_in_use_is_refused_until_the_first_dies(tmp_path: Path,
                                                                             env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["First answer.", "Second answer."])
    child = spawn(["--model", f"script:{script}"], env, tmp_path)  # a REPL, its journal in the sessions folder
    child.expect(">")
    (journal,) = (tmp_path / "data" / "interp" / "sessions").glob("*.jsonl")
    child.sendline("hello")
    child.expect("First answer.")
    child.expect(">")
    for how in (["--transcript", str(journal)], ["--resume", journal.stem]):
        refused = run_interp(["-y", "--model", f"script:{script}", *how, "interleave"], env=env, cwd=tmp_path)
        assert refused.returncode == 2
        assert refused.stderr == (f"interp: session in use by PID {child.pid}: another interp is writing {journal}; "
                                  "end it first or use another journal\n")
    os.kill(child.pid, signal.SIGKILL)  # no close, no cleanup: the lock goes with the process all the same
    child.expect(pexpect.EOF)
    child.close()
    resumed = run_interp(["-y", "--model", f"script:{script}", "--resume", journal.stem, "again"], env=env,
                         cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    written = records(journal)
    assert "interleave" not in json.dumps(written)
    sessions = {r["session_id"] for r in records(journal, "session")}
    assert len(sessions) == 2 and {r["session_id"] for r in written} == sessions
