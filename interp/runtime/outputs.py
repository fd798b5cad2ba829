"""Saves rich outputs (images, HTML, ...) of executed code to files in the session's output folder."""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from interp.common.textclean import HeadTail, for_model

_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/gif": ".gif",
    "image/svg+xml": ".svg",
    "text/html": ".html",
    "text/markdown": ".md",
    "text/latex": ".tex",
    "application/json": ".json",
    "application/pdf": ".pdf",
}
_BINARY = {"image/png", "image/jpeg", "image/gif", "application/pdf"}
# A MIME type as IANA writes them: what a file's extension may be made from (no NUL, no slash, no name too long).
_MIME = re.compile(r"[A-Za-z0-9][\w.+-]{0,40}/[A-Za-z0-9][\w.+-]{0,63}", re.ASCII)
MAX_FILES_PER_RUN = 20  # rich outputs saved per execution, counted in files (a bundle may hold many)
MAX_BYTES_PER_RUN = 64 * 2**20  # and in bytes


@dataclass
class Budget:
    """What one execution may still save, and what it could not: files over the budget, items that were no output
    (a MIME type that names no file, an image that is not base64)."""

    files: int = MAX_FILES_PER_RUN
    size: int = MAX_BYTES_PER_RUN
    unsaved: int = 0
    bad: list[str] = field(default_factory=list)


_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OutputFolder:
    """Numbers the files it writes (output-1.png, output-2.html, ...) in one folder, made when first needed. The
    folder lies beside the journal, which `--transcript` may put where code can write: its parent is held open from
    the session's start, and the folder, its subfolders (`subfolder`) and every file in them are reached through
    handles, following no link, so a link code left in their place leads interp's writes nowhere (heldfolder.py)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._count = 0
        self._parent: int | None = None
        self._fds: dict[str, int] = {}
        with contextlib.suppress(OSError):  # a parent that is not there yet is made, and held, when first needed
            self._parent = os.open(folder.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    def subfolder(self, name: str = "") -> int:
        """A handle on the output folder (name ""), or on a folder of its by name, made if need be; OSError when a
        link or anything but a folder is in the way."""
        if name not in self._fds:
            if name:
                into, made = self.subfolder(), name
            else:
                if self._parent is None:
                    self.folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                    self._parent = os.open(self.folder.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
                into, made = self._parent, self.folder.name
            with contextlib.suppress(FileExistsError):
                os.mkdir(made, 0o700, dir_fd=into)
            self._fds[name] = os.open(made, _FOLDER, dir_fd=into)
        return self._fds[name]

    def prune(self, name: str) -> None:
        """Removes a folder of the output folder's, then the output folder, each only where it is empty."""
        self._forget(name)
        here = self._fds.get("")
        if here is None:
            return
        try:
            os.rmdir(name, dir_fd=here)
        except OSError:
            return
        self._forget("")
        if self._parent is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self.folder.name, dir_fd=self._parent)

    def _forget(self, name: str) -> None:
        fd = self._fds.pop(name, None)
        if fd is not None:
            os.close(fd)

    def new_file(self, name: str, folder: str = "") -> int:
        """A file made new in the output folder (or a folder of its), open for writing; never one already there."""
        return os.open(name, _NEW, 0o600, dir_fd=self.subfolder(folder))

    def save(self, data: dict[str, object], budget: Budget | None = None) -> list[tuple[str, Path]]:
        """Writes every non-plain-text MIME type of a display bundle, within the run's budget; returns (MIME type,
        file) for each written. What code sends is hostile until shown otherwise: an item that is not a MIME type, or
        not what its type says, is counted in the budget's `bad` and skipped."""
        budget = budget if budget is not None else Budget()
        saved = []
        for mime, value in data.items():
            if mime == "text/plain":
                continue
            content = _content(mime, value)
            if content is None:
                budget.bad.append(repr(mime)[:80])
            elif budget.files <= 0 or len(content) > budget.size:
                budget.unsaved += 1
            else:
                budget.files, budget.size = budget.files - 1, budget.size - len(content)
                saved.append((mime, self._write(_EXTENSIONS.get(mime, "." + mime.split("/")[-1]), content)))
        return saved

    def _write(self, extension: str, content: bytes) -> Path:
        """A new file of the folder's: never one that is already there, nor through a link."""
        while True:
            self._count += 1
            name = f"output-{self._count}{extension}"
            try:
                fd = self.new_file(name)
            except FileExistsError:
                continue
            with os.fdopen(fd, "wb") as f:
                f.write(content)
            return self.folder / name


def _content(mime: object, value: object) -> bytes | None:
    """The bytes an item of a bundle saves, or None when it is no output: its type is not a MIME type, or a binary
    type's value is not base64."""
    if not isinstance(mime, str) or not _MIME.fullmatch(mime):
        return None
    try:
        if mime in _BINARY and isinstance(value, str):
            return base64.b64decode(value, validate=True)
        if isinstance(value, str):
            return value.encode("utf-8", "replace")
        return json.dumps(value, indent=1).encode("utf-8")
    except (binascii.Error, ValueError, TypeError, RecursionError):
        return None


OUTPUT_LOG_CHARS = 20_000  # per stream run in the journal: generous for a notebook, bounded against floods


class OutputLog:
    """An execution's outputs in order, as the journal keeps them for notebook export: consecutive text of one
    stream merged and bounded head and tail; rich outputs by the files they were saved to."""

    def __init__(self, limit: int = OUTPUT_LOG_CHARS) -> None:
        self.limit = limit
        self._items: list[dict[str, object]] = []
        self._open: tuple[str, HeadTail] | None = None

    def text(self, stream: str, text: str) -> None:
        if self._open is None or self._open[0] != stream:
            self._open = (stream, HeadTail(self.limit))
            self._items.append({"stream": stream, "text": self._open[1]})
        self._open[1].add(text)

    def display(self, files: list[tuple[str, Path]], plain: object) -> None:
        self._open = None
        item: dict[str, object] = {"files": {mime: str(path) for mime, path in files}}
        if isinstance(plain, str):
            item["text"] = plain
        self._items.append(item)

    def items(self) -> list[dict[str, object]]:
        """JSON-ready records: {"stream", "text"} or {"files": {mime: path}, "text"?}."""
        return [{**item, "text": for_model(text.text())} if isinstance(text := item.get("text"), HeadTail)
                else item for item in self._items]
