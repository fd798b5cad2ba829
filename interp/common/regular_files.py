"""Reading files that a user or a program names, without hanging on a FIFO or reading a device forever.

A FIFO opened for reading blocks until a writer comes; /dev/zero never ends. Files are opened with O_NONBLOCK (a
FIFO then opens at once), checked with fstat to be regular files, and read up to a limit.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


class NotRegularFile(OSError):
    """A path that is a folder, a FIFO, a device or a socket; `strerror` says which, in a few words."""


class TooLarge(OSError):
    """A file over the size its reader allows; `strerror` names the limit."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """The file open for binary reading; NotRegularFile for anything but a regular file (never blocking on a FIFO),
    other OSErrors as open() raises them."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(errno.EINVAL, f"not a regular file ({_kind(mode)})", str(path))
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def irregular(path: str | os.PathLike[str]) -> str | None:
    """What a path that exists but is no regular file is ("a FIFO", "a device", ...); None for a regular file or a
    path that cannot be looked at (opening it says why)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else _kind(mode)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a file")


def read_regular(path: str | os.PathLike[str], most: int) -> bytes:
    """The bytes of a regular file of at most `most` bytes; NotRegularFile, TooLarge or another OSError."""
    with open_regular(path) as f:
        data = f.read(most + 1)
    if len(data) > most:
        raise TooLarge(errno.EFBIG, f"larger than {size_words(most)}, the most that is read", str(path))
    return data


def size_words(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} bytes"
