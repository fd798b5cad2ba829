"""The append-only JSONL record of a session: every line is flushed as it is written, so nothing shown is lost."""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any


def default_path(folder: Path) -> Path:
    """A new file per session in the folder, named so that names sort by time."""
    return folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}.jsonl"


class Journal:
    """Appends one JSON object per line; each record gets a `type` and a `ts` (Unix time)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._file = os.fdopen(fd, "a", encoding="utf-8")

    def record(self, type_: str, **fields: Any) -> None:
        line = json.dumps({"type": type_, "ts": round(time.time(), 3), **fields}, ensure_ascii=False)
        self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read(path: Path | str) -> list[dict[str, Any]]:
    """Reads a journal back, skipping a last line cut short by a crash."""
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records
