"""Copies of the files a request reads, kept aside while its code runs and put back when code changes them.

The rule writes_over_source (rules/guards/) stops code whose text names, as a literal, the file it would write over;
code can reach that file in ways no reading of its text finds: a name held in a variable, os.path.join or abspath,
open(..., 'r+').truncate(0), shutil.copy over it, os.remove, a shell `sed -i`. What is always there to see is the file
itself. So, in a turn whose request reads files and asks for another to be written (`sources`), each file it reads is
copied into the session's folder before the turn's first run; after every run, a file that is gone, or whose bytes
differ from the copy's, is put back, the user is told in one line and the model is told, as a failure, to leave the file
as it is and write the one the request asks for. The copies are removed when the turn ends.

interp is not confined, and the file lies where the code may write: each file's folder is held open from before the
first run, and everything after a run goes through that handle, following no link (heldfolder.py); when the folder
is no longer at its path, nothing is put back and the user is told where the copy is. Only regular files are read (a
FIFO or a device left in the file's place is replaced, never read). Whoever changed the file (the code, or the user in
an editor while the code ran), the version found is kept in the session's folder before the file is put back.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from interp.common.events import Event, ExecutionDone, Notice
from interp.common.heldfolder import SUPPORTED, HeldFolder, Moved, chunks
from interp.runtime.outputs import OutputFolder
from interp.stores.journal import Journal

KEPT, CHANGED = "kept", "changed"  # the output folder's folders of copies: this turn's, and the versions runs left
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
    """A file the request reads: its folder, held open from before the code ran (heldfolder.py), its copy, and what
    it was when copied (or last put back)."""

    name: str  # as the request names it: what the user and the model are told
    path: Path
    folder: HeldFolder
    copy: Path  # where the copy is, as the user is told; it is reached through the output folder's handles
    stamp: Stamp
    digest: str
    like: os.stat_result  # its mode and times, given back with its bytes


@dataclass(frozen=True)
class Restored:
    """A file changed or removed while code ran; `problem`: why it could not be put back, or None when it was;
    `changed`: where the version found after the run was kept (it may hold a change of the user's own)."""

    name: str
    how: str  # "changed" or "removed"
    problem: str | None = None
    changed: str | None = None


class Safekeeping:
    """The copies of one turn's files, in the session's output folder (its "kept" folder, reached through its handles:
    runtime/outputs.py): `start` names them, `keep` copies them before the first run, `check` puts back those a run
    changed (keeping the changed version in its "changed" folder), `end` removes the copies."""

    def __init__(self, outputs: OutputFolder) -> None:
        self.outputs = outputs
        self.folder = outputs.folder / KEPT
        self._wanted: list[tuple[str, Path]] = []
        self._kept: list[Kept] = []
        self._told: set[Path] = set()  # copies a message pointed the user to: not removed
        self._changed = 0

    def start(self, names: list[str], cwd: Path) -> None:
        """The files this turn's request reads (names as typed, relative to `cwd`); nothing is copied yet."""
        self.end()
        self._wanted = [(name, (cwd / Path(name).expanduser()).resolve()) for name in names]

    def keep(self) -> list[str]:
        """Copies the files named at `start`, the first time it is called in a turn; a line for each not copied."""
        skipped = []
        for index, (name, path) in enumerate(self._wanted):
            try:
                kept = self._keep_one(index, name, path)
            except OSError as exc:
                skipped.append(f"{name} could not be copied aside ({exc.strerror or exc}): code that changes it "
                               "cannot be undone.")
                continue
            if isinstance(kept, str):
                skipped.append(kept)
            elif kept is not None:
                self._kept.append(kept)
        self._wanted = []
        return skipped

    def _keep_one(self, index: int, name: str, path: Path) -> Kept | str | None:
        if not SUPPORTED:
            return f"{name}: no copy is kept aside on this system, so code that changes it cannot be undone."
        folder = HeldFolder(path.parent)
        try:
            info = folder.lstat(path.name)
            if info is None or not stat.S_ISREG(info.st_mode):  # a FIFO or a device: nothing to copy
                folder.close()
                return None
            if info.st_size > MAX_BYTES:
                folder.close()
                return (f"{name} is over {MAX_BYTES // 2**20} MB: no copy of it is kept aside, so code that changes "
                        "it cannot be undone.")
            copy = f"{index}-{path.name}"
            with contextlib.suppress(FileNotFoundError):  # a copy an earlier session left
                os.unlink(copy, dir_fd=self.outputs.subfolder(KEPT))
            with folder.open_regular(path.name) as source:
                digest = _copy_new(source, self.outputs.new_file(copy, KEPT))
                stamp = _stamp(os.fstat(source.fileno()))
            return Kept(name, path, folder, self.folder / copy, stamp, digest, info)
        except BaseException:
            folder.close()
            raise

    def check(self) -> list[Restored]:
        """Puts back each kept file that is gone or whose bytes changed since it was copied; refuses, saying where
        the copy is, when the file's folder is no longer where the request named it."""
        restored = []
        for i, kept in enumerate(self._kept):
            try:
                kept.folder.check_in_place()
            except Moved as exc:
                self._told.add(kept.copy)
                restored.append(Restored(kept.name, "moved", f"{exc.strerror}; its copy is {kept.copy}"))
                continue
            info = kept.folder.lstat(kept.path.name)
            if info is not None and _stamp(info) == kept.stamp:
                continue
            if info is not None and stat.S_ISREG(info.st_mode) and self._same_bytes(kept, info):
                self._kept[i] = replace(kept, stamp=_stamp(info))  # touched, or written with the same bytes
                continue
            changed = self._keep_changed(kept) if info is not None and stat.S_ISREG(info.st_mode) else None
            how = "removed" if info is None else "changed"
            try:
                kept.folder.check_in_place()
                with self._copy(kept) as copy:
                    self._kept[i] = replace(kept, stamp=_stamp(kept.folder.replace(kept.path.name, chunks(copy),
                                                                                    kept.like)))
                restored.append(Restored(kept.name, how, changed=changed))
            except OSError as exc:
                self._told.add(kept.copy)
                restored.append(Restored(kept.name, how, f"{exc.strerror or exc}; its copy is {kept.copy}", changed))
        return restored

    def _copy(self, kept: Kept) -> BinaryIO:
        """A kept copy open for reading, through the output folder's handle."""
        fd = os.open(kept.copy.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.outputs.subfolder(KEPT))
        return os.fdopen(fd, "rb")

    @staticmethod
    def _same_bytes(kept: Kept, info: os.stat_result) -> bool:
        if info.st_size != kept.stamp[0]:
            return False
        with contextlib.suppress(OSError), kept.folder.open_regular(kept.path.name) as f:
            return _digest(f) == kept.digest
        return False

    def _keep_changed(self, kept: Kept) -> str | None:
        """A copy of the file as the run left it, in the session's folder: the change may be the user's own, made in
        an editor while the code ran, and putting the file back must not lose it."""
        self._changed += 1
        name = f"{self._changed}-{kept.path.name}"
        try:
            with kept.folder.open_regular(kept.path.name) as f:
                if os.fstat(f.fileno()).st_size > MAX_BYTES:
                    return None
                _copy_new(f, self.outputs.new_file(name, CHANGED))
        except OSError:
            return None
        return str(self.outputs.folder / CHANGED / name)

    def end(self) -> None:
        """Removes the copies (but those a message named), and their folder and the session's when that leaves them
        empty: the turn is over."""
        for kept in self._kept:
            kept.folder.close()
            if kept.copy not in self._told:
                with contextlib.suppress(OSError):
                    os.unlink(kept.copy.name, dir_fd=self.outputs.subfolder(KEPT))
        if self._kept:
            with contextlib.suppress(OSError):
                self.outputs.prune(KEPT)
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
        yield Notice(_notice(item), "warning")
    error = "\n\n".join([*(told(item) for item in restored), *([done.error] if done.error else [])])
    return replace(done, status="error", error=error)


def _record(journal: Journal, item: Restored) -> None:
    journal.record("restored", file=item.name, how=item.how, **({"problem": item.problem} if item.problem else {}),
                   **({"changed": item.changed} if item.changed else {}))


def _notice(item: Restored) -> str:
    """The user's line: what happened to the file, whether it is back, and where the version found is."""
    said = f"{item.name}, which the request reads, was {item.how} while the code ran; " + (
        f"could not put it back: {item.problem}." if item.problem else "put it back as it was before the run.")
    return said + (f" The version the run left is kept as {item.changed} (in case the change was yours)."
                   if item.changed else "")


def _stamp(status: os.stat_result) -> Stamp:
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino


def _digest(f: BinaryIO) -> str:
    digest = hashlib.sha256()
    for chunk in chunks(f):
        digest.update(chunk)
    return digest.hexdigest()


def _copy_new(source: BinaryIO, fd: int) -> str:
    """Copies an open file into a new file open for writing (OutputFolder.new_file); its digest."""
    digest = hashlib.sha256()
    with os.fdopen(fd, "wb") as dst:
        for chunk in chunks(source):
            digest.update(chunk)
            dst.write(chunk)
    return digest.hexdigest()
