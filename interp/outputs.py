"""Saves rich outputs (images, HTML, ...) of executed code to files in the session's output folder."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

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
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # private, like the journal beside it
            self._count += 1
            path = self.folder / f"output-{self._count}{_EXTENSIONS.get(mime, '.' + mime.split('/')[-1])}"
            if mime in _BINARY and isinstance(value, str):
                content = base64.b64decode(value)
            elif isinstance(value, str):
                content = value.encode("utf-8")
            else:
                content = json.dumps(value, indent=1).encode("utf-8")
            with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
                f.write(content)
            saved.append((mime, path))
        return saved
