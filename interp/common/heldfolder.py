"""A folder held open from before code ran, and file work inside it that nothing code did since can redirect.

interp acts with more rights than sandboxed code: its own process is not confined. When it works on a file in a place
the code may write (safekeep.py puts back a file the code changed), a path looked up again after the run could lead
anywhere the code pointed it: a link planted at a predictable name, a folder on the way renamed and replaced by a link
to `~/.ssh`. So the folder is opened once, before the code runs, by a walk that follows no link; after the run every
step goes through that handle: names are looked up in it without following links (`O_NOFOLLOW`), a new file is made
under a name nobody can have planted (`O_EXCL`, random), and moved into place by a rename within the same handle. And
before acting, the path is walked again the same way: when it no longer leads to the held folder, interp does not act.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

_WALK = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
SUPPORTED = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd


class Moved(OSError):
    """The path no longer leads to the folder held: something on the way was renamed, removed or replaced."""


def _walk(folder: Path) -> int:
    """A handle on `folder` (an absolute path with no link in it), reached one name at a time, following no link."""
    fd = os.open("/", _WALK)
    try:
        for part in folder.parts[1:]:
            step = os.open(part, _WALK, dir_fd=fd)
            os.close(fd)
            fd = step
    except BaseException:
        os.close(fd)
        raise
    return fd


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


class HeldFolder:
    """A folder opened once (`path`: absolute, its links already resolved by the caller, before any code ran)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        walked = _walk(path)
        try:
            self.identity = _identity(self.fd)
            if _identity(walked) != self.identity:
                raise Moved(errno.EXDEV, "the folder changed while it was opened", str(path))
        finally:
            os.close(walked)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def check_in_place(self) -> None:
        """Raises Moved unless the path, walked again without following a link, still leads to this folder."""
        try:
            walked = _walk(self.path)
        except OSError as exc:
            raise Moved(exc.errno or errno.ENOENT, "a folder on its path was moved, removed or replaced by a link",
                        str(self.path)) from None
        try:
            if _identity(walked) != self.identity:
                raise Moved(errno.EXDEV, "its folder was moved or replaced", str(self.path))
        finally:
            os.close(walked)

    def lstat(self, name: str) -> os.stat_result | None:
        """What is at `name` in the folder, a link itself rather than what it points to; None when nothing is."""
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open_regular(self, name: str) -> BinaryIO:
        """`name` open for reading: a regular file only (a link, a FIFO, a device or a folder raise OSError)."""
        fd = os.open(name, _READ, dir_fd=self.fd)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file", name)
            return os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise

    def replace(self, name: str, chunks: Iterator[bytes], like: os.stat_result) -> os.stat_result:
        """Puts a new file with these bytes at `name`, with the mode and times of `like`: made under a fresh random
        name, then renamed over whatever is at `name` (a file, a link, a FIFO: replaced, never written through).
        Returns what is at `name` then."""
        temporary = f".{name}.interp-{secrets.token_hex(6)}"
        fd = os.open(temporary, _CREATE, 0o600, dir_fd=self.fd)
        try:
            with os.fdopen(fd, "wb") as out:
                for chunk in chunks:
                    out.write(chunk)
                out.flush()
                os.fchmod(out.fileno(), stat.S_IMODE(like.st_mode))
                os.utime(out.fileno(), ns=(like.st_atime_ns, like.st_mtime_ns))
            os.rename(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self.fd)
            raise
        done = self.lstat(name)
        if done is None:
            raise FileNotFoundError(errno.ENOENT, "removed as it was put back", name)
        return done


def chunks(f: BinaryIO, size: int = 1 << 20) -> Iterator[bytes]:
    """A file's bytes in pieces."""
    while piece := f.read(size):
        yield piece
