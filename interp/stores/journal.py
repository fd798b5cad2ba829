"""The append-only JSONL record of a session: every line is flushed as it is written, so nothing shown is lost. One
process writes a journal at a time (a lock held for the session's life), and each record names the session."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interp.common.messages import KINDS, history_problem


def default_path(folder: Path) -> Path:
    """A new file per session in the folder, named so that names sort by time."""
    return folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}.jsonl"


class JournalError(Exception):
    """The journal cannot be written where it was asked for; the message is one line naming the file."""


class JournalInUse(JournalError):
    """Another process writes the journal (a shared --transcript, a --resume of a session still running)."""


def pid_path(journal: Path) -> Path:
    """Beside a journal: the PID of the process that holds it, for the message of one that is refused."""
    return journal.with_name(journal.name + ".pid")


def _holder(journal: Path) -> int | None:
    try:
        return int(pid_path(journal).read_text(encoding="ascii").split()[0])
    except (OSError, ValueError, IndexError):  # not written yet, or gone with the holder's close
        return None


def _file_key(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


# The journals this process holds: the lock keeps other processes out, while within one process the code that opens
# a journal twice (a test's second session) orders its writes itself.
_HELD: set[tuple[int, int]] = set()


def _lock(fd: int, path: Path) -> bool:
    """Holds the journal for this process's life, or raises JournalInUse naming the holder; True when this call took
    the lock. flock, not a POSIX lock: it dies with the process however it ends (kill -9 too), and reading the file
    elsewhere in this process (--resume, %save) does not release it. False where the file system has no locks: the
    session goes on unguarded."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if _file_key(fd) in _HELD:
            return False
        pid = _holder(path)
        holder = f"PID {pid}" if pid else "another process"
        raise JournalInUse(f"session in use by {holder}: another interp is writing {path}; end it first or use "
                           "another journal") from None
    except OSError:
        return False
    _HELD.add(_file_key(fd))
    with contextlib.suppress(OSError):
        pid_path(path).write_text(f"{os.getpid()}\n", encoding="ascii")
    return True


class Journal:
    """Appends one JSON object per line; each record gets a `type`, a `ts` (Unix time) and the `session_id` of this
    process's session (several sessions may append to one journal, one after another: --resume, --transcript). A
    record that cannot be written (a full disk) is taken back whole, so that no partial line is left for the next
    record to continue; the failure is kept in `failure` until the session reports it."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # conversations are private
            created = not self.path.exists()
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError as exc:
            raise JournalError(f"cannot write the journal {self.path}: {exc.strerror or exc}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise JournalError(f"cannot write the journal {self.path}: not a regular file")
        try:
            self._locked = _lock(fd, self.path)
        except JournalInUse:
            os.close(fd)  # the file is the other process's: nothing of it is removed
            raise
        self.id = uuid.uuid4().hex[:12]
        self._fd, self._created, self._written = fd, created, 0
        self.failure: str | None = None
        self._reported = False
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            self._write(b"\n")  # a line cut short by a crash: the next record starts on a line of its own

    def record(self, type_: str, **fields: Any) -> None:
        line = json.dumps({"type": type_, "ts": round(time.time(), 3), "session_id": self.id, **fields},
                          ensure_ascii=False)
        self._write((line + "\n").encode("utf-8"))

    def _write(self, data: bytes) -> None:
        start = os.fstat(self._fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, start)
            if not self._reported:
                self.failure = f"cannot write to the journal {self.path}: {exc.strerror or exc}"
            return
        self._written += len(data)

    def take_failure(self) -> str | None:
        """The first write failure, once: the session tells the user, and only once."""
        failure, self.failure = self.failure, None
        if failure:
            self._reported = True
        return failure

    def close(self) -> None:
        """Closes the file; a journal this run created and never wrote to is removed (a model that failed to
        load leaves no empty conversation behind). The lock goes with the file."""
        if self._locked:
            _HELD.discard(_file_key(self._fd))
            with contextlib.suppress(OSError):
                pid_path(self.path).unlink()
        os.close(self._fd)
        if self._created and not self._written:
            with contextlib.suppress(OSError):
                self.path.unlink()


@dataclass
class Damage:
    """A journal line that was skipped on reading, and why."""

    path: Path
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}, line {self.line}" if self.line else str(self.path)
        return f"{where}: {self.reason}; skipped"


def describe_damage(damage: list[Damage], most: int = 3) -> list[str]:
    """One line per damaged line, the first `most` of them, then how many more."""
    lines = [str(d) for d in damage[:most]]
    if len(damage) > most:
        lines.append(f"... and {len(damage) - most} more damaged lines")
    return lines


_TEXT, _TEXT_OR_NONE = (str,), (str, type(None))
# The fields that readers of a journal use (--resume, the notebook export, --conversations) and the types they need;
# each may be absent unless _REQUIRED names it. A record with a field of another type is skipped as damaged.
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "session": {"cwd": _TEXT, "model": _TEXT, "kernel": _TEXT_OR_NONE, "language_info": (dict, type(None))},
    "execution": {"code": _TEXT, "language": _TEXT, "status": _TEXT, "output": _TEXT, "error": _TEXT_OR_NONE,
                  "ename": _TEXT_OR_NONE, "outputs": (list,)},
    "user": {"typed": _TEXT},
    "unpreviewed": {"content": _TEXT},
}
_REQUIRED = {"execution": "code", "unpreviewed": "content"}


def record_problem(record: object) -> str | None:
    """What makes a parsed line unusable as a journal record, or None when it is usable."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if not isinstance(record.get("type"), str):
        return "no record type"
    if not isinstance(record.get("ts", 0), (int, float)):
        return "a time stamp that is not a number"
    kind = record["type"]
    message = kind in ("user", "assistant") and record.get("kind") is not None
    if message and (record["kind"] not in KINDS or not isinstance(record.get("content"), str)):
        return f"{_a(kind)} record without text content or a known kind"
    if kind == "load":
        return history_problem(record.get("history"))
    required = _REQUIRED.get(kind)
    if required and required not in record:
        return f"{_a(kind)} record without its {required}"
    for name, types in _FIELDS.get(kind, {}).items():
        if name in record and not isinstance(record[name], types):
            return f"{_a(kind)} record whose {name} has the wrong type ({type(record[name]).__name__})"
    return _outputs_problem(record["outputs"]) if kind == "execution" and "outputs" in record else None


def _a(word: str) -> str:
    return f"{'an' if word[:1] in tuple('aeiou') else 'a'} {word}"


def _outputs_problem(items: list[Any]) -> str | None:
    """What makes an execution's outputs unusable: each is {"stream", "text"} or {"files": {mime: path}, "text"?}."""
    for item in items:
        if not isinstance(item, dict):
            return "an execution record with an output that is not an object"
        text = item.get("text", None if "stream" in item else "")  # a stream is its text; files may have a text form
        if not isinstance(text, str) or not isinstance(item.get("stream", ""), str):
            return "an execution record with an output that is not text"
        files = item.get("files", {})
        if not isinstance(files, dict) or not all(isinstance(v, str) for v in [*files, *files.values()]):
            return "an execution record with saved files that are not paths"
    return None


def read(path: Path | str, damage: list[Damage] | None = None) -> list[dict[str, Any]]:
    """Reads a journal back. A line that is not a usable record (a last line cut short by a crash, bytes that are
    not UTF-8, JSON of another shape) is skipped, and noted in `damage` when it is given."""
    records: list[dict[str, Any]] = []
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            problem: str | None
            try:
                record = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                problem = "not UTF-8 text"
            except json.JSONDecodeError:
                problem = "not complete JSON"
            else:
                problem = record_problem(record)
            if problem is None:
                records.append(record)
            elif damage is not None:
                damage.append(Damage(Path(path), number, problem))
    return records
