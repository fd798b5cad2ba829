"""Saves rich outputs (images, HTML, ...) of executed code to files in the session's output folder."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

from interp.textclean import HeadTail, for_model

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


class OutputFolder:
    """Numbers the files it writes (output-1.png, output-2.html, ...) in one folder, made when first needed."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._count = 0

    def save(self, data: dict[str, object]) -> list[tuple[str, Path]]:
        """Writes every non-plain-text MIME type of a display bundle; returns (MIME type, file) for each."""
        saved = []
        for mime, value in data.items():
            if mime == "text/plain":
                continue
            if mime in _BINARY and isinstance(value, str):
                content = base64.b64decode(value)
            elif isinstance(value, str):
                content = value.encode("utf-8")
            else:
                content = json.dumps(value, indent=1).encode("utf-8")
            saved.append((mime, self._write(_EXTENSIONS.get(mime, "." + mime.split("/")[-1]), content)))
        return saved

    def _write(self, extension: str, content: bytes) -> Path:
        """A new file of the folder's: never one that is already there, nor through a link (the folder is private,
        like the journal beside it; these flags keep that true should anything else ever write in it)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        while True:
            self._count += 1
            path = self.folder / f"output-{self._count}{extension}"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            except FileExistsError:
                continue
            with os.fdopen(fd, "wb") as f:
                f.write(content)
            return path


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
