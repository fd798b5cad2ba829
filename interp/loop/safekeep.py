"""Copies of the files a request reads, kept aside while its code runs and put back when code changes them.

The rule writes_over_source (rules/guards/) stops code whose text names, as a literal, the file it would write over;
code can reach that file in ways no reading of its text finds: a name held in a variable, os.path.join or abspath,
open(..., 'r+').truncate(0), shutil.copy over it, os.remove, a shell `sed -i`. What is always there to see is the file
itself. So, in a turn whose request reads files and asks for another to be written (`sources`), each file it reads is
copied into the session's folder before the turn's first run; after every run, a file that is gone, or whose bytes
differ from the copy's, is put back, the user is told in one line and the model is told, as a failure, to leave the file
as it is and write the one the request asks for. The copies are removed when the turn ends.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from pathlib import Path

from interp.events import Event, ExecutionDone, Notice
from interp.stores.journal import Journal

MAX_BYTES = 100 * 1024 * 1024  # larger files are not copied: the copy would cost the disk and the time of a run
Stamp = tuple[int, int, int, int]  # size, mtime and ctime (ns), inode: any write, rename over or removal changes it

_CHANGES_IT = re.compile(r"\b(?:fix(?:es|ed)?|edit|change|update|correct|repair|modify|rewrite|refactor|debug|bug|set|"
                         r"append|add|remove|delete|replace|insert|overwrite|in place|save (?:the|that|this) file|"
                         r"back to)\b", re.I)


def sources(text: str, existing: list[str], missing: list[str]) -> list[str]:
    """The files a request reads and does not ask to be written: the existing files it names, when it also names a
    file that is not there yet (the one to write) and asks for no change (attach.file_words gives the two lists)."""
    return existing if missing and not _CHANGES_IT.search(text) else []


@dataclass(frozen=True)
class Kept:
    """A file the request reads, with its copy and what it was when copied (or last put back)."""

    name: str  # as the request names it: what the user and the model are told
    path: Path
    copy: Path
    stamp: Stamp
    digest: str


@dataclass(frozen=True)
class Restored:
    """A file code changed or removed; `problem`: why it could not be put back, or None when it was."""

    name: str
    how: str  # "changed" or "removed"
    problem: str | None = None


class Safekeeping:
    """The copies of one turn's files, in `folder`: `start` names them, `keep` copies them before the first run,
    `check` puts back those a run changed, `end` removes the copies."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._wanted: list[tuple[str, Path]] = []
        self._kept: list[Kept] = []

    def start(self, names: list[str], cwd: Path) -> None:
        """The files this turn's request reads (names as typed, relative to `cwd`); nothing is copied yet."""
        self.end()
        self._wanted = [(name, (cwd / Path(name).expanduser()).resolve()) for name in names]

    def keep(self) -> list[str]:
        """Copies the files named at `start`, the first time it is called in a turn; a line for each not copied."""
        skipped = []
        for index, (name, path) in enumerate(self._wanted):
            try:
                if not stat.S_ISREG(path.stat().st_mode):  # a FIFO or a device: nothing to copy, reading it blocks
                    continue
                if path.stat().st_size > MAX_BYTES:
                    skipped.append(f"{name} is over {MAX_BYTES // 2**20} MB: no copy of it is kept aside, so code "
                                   "that changes it cannot be undone.")
                    continue
                self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # private, like the journal beside it
                copy = self.folder / f"{index}-{path.name}"
                _copy_new(path, copy)
                self._kept.append(Kept(name, path, copy, _stamp(path), _digest(copy)))
            except OSError as exc:
                skipped.append(f"{name} could not be copied aside ({exc.strerror or exc}): code that changes it "
                               "cannot be undone.")
        self._wanted = []
        return skipped

    def check(self) -> list[Restored]:
        """Puts back each kept file that is gone or whose bytes changed since it was copied."""
        restored = []
        for i, kept in enumerate(self._kept):
            try:
                stamp: Stamp | None = _stamp(kept.path)
            except OSError:
                stamp = None
            if stamp == kept.stamp:
                continue
            with contextlib.suppress(OSError):
                if stamp is not None and _digest(kept.path) == kept.digest:
                    self._kept[i] = replace(kept, stamp=stamp)  # touched, or written with the same bytes
                    continue
            how = "removed" if stamp is None else "changed"
            try:
                self._kept[i] = replace(kept, stamp=_put_back(kept))
                restored.append(Restored(kept.name, how))
            except OSError as exc:
                restored.append(Restored(kept.name, how, f"{exc.strerror or exc}; its copy is {kept.copy}"))
        return restored

    def end(self) -> None:
        """Removes the copies, and their folder and the session's when that leaves them empty: the turn is over."""
        for kept in self._kept:
            with contextlib.suppress(OSError):
                kept.copy.unlink()
        if self._kept:
            with contextlib.suppress(OSError):
                self.folder.rmdir()
                self.folder.parent.rmdir()
        self._wanted, self._kept = [], []


def guarded(keeping: Safekeeping, run: Generator[Event, None, ExecutionDone], journal: Journal,
            told: Callable[[Restored], str]) -> Generator[Event, None, ExecutionDone]:
    """A run with the request's files kept aside before it and put back after it: a run that changed one is a failure
    whose error is `told(file)` (with the run's own error after it); the user gets a line for each file."""
    for line in keeping.keep():
        yield Notice(line, "warning")
    try:
        done = yield from run
    except BaseException:  # an interrupted run puts the files back too; nothing more can be said on the way out
        for item in keeping.check():
            _record(journal, item)
        raise
    restored = keeping.check()
    if not restored:
        return done
    for item in restored:
        _record(journal, item)
        yield Notice(f"{item.name}, which the request reads, was {item.how} by the code; " + (
            f"could not restore it: {item.problem}." if item.problem else "restored it."), "warning")
    error = "\n\n".join([*(told(item) for item in restored), *([done.error] if done.error else [])])
    return replace(done, status="error", error=error)


def _record(journal: Journal, item: Restored) -> None:
    journal.record("restored", file=item.name, how=item.how, **({"problem": item.problem} if item.problem else {}))


def _stamp(path: Path) -> Stamp:
    status = path.stat()
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _put_back(kept: Kept) -> Stamp:
    """Copies the file back beside its place, then renames it there: what code left at the path (a link to another
    file, a folder that cannot be renamed over) is replaced, not written through."""
    temporary = kept.path.with_name(f".{kept.path.name}.interp-restore")
    shutil.copy2(kept.copy, temporary)
    try:
        os.replace(temporary, kept.path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    return _stamp(kept.path)


def _copy_new(source: Path, copy: Path) -> None:
    """Copies `source` to a new file `copy`, never through a link left where the copy goes."""
    with contextlib.suppress(FileNotFoundError):
        copy.unlink()
    with source.open("rb") as src, os.fdopen(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                                                     0o600), "wb") as dst:
        shutil.copyfileobj(src, dst)
    shutil.copystat(source, copy)
