"""Reads the metadata header of a GGUF file: enough to check the file and describe the model before loading it."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

from interp.models.base import ModelError

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
# Arrays longer than this (token lists, merges) are skipped over, not kept: nothing here needs them.
_KEEP_ARRAY = 64


def _read(f: BinaryIO, fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise EOFError
    return struct.unpack(fmt, data)[0]


def _string(f: BinaryIO) -> str:
    length = _read(f, "<Q")
    if length > 1 << 26:
        raise ValueError("string length out of range")
    data = f.read(length)
    if len(data) != length:
        raise EOFError
    return data.decode("utf-8", errors="replace")


def _value(f: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        return _read(f, _SCALARS[kind])
    if kind == _STRING:
        return _string(f)
    if kind == _ARRAY:
        item_kind, count = _read(f, "<I"), _read(f, "<Q")
        if item_kind in _SCALARS and count > _KEEP_ARRAY:
            f.seek(count * struct.calcsize(_SCALARS[item_kind]), 1)
            return None
        items = [_value(f, item_kind) for _ in range(count)]
        return items if count <= _KEEP_ARRAY else None
    raise ValueError(f"unknown value type {kind}")


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The key/value header of a GGUF file. Raises ModelError with a one-line reason for anything unusable."""
    path = Path(path)
    if not path.exists():
        raise ModelError(f"{path}: no such file")
    if path.is_dir():
        raise ModelError(f"{path}: is a folder, not a GGUF file")
    try:
        with open(path, "rb") as f:
            if f.read(4) != b"GGUF":
                raise ModelError(f"{path}: not a GGUF file (it does not start with the GGUF magic bytes)")
            version = _read(f, "<I")
            if version not in (2, 3):
                raise ModelError(f"{path}: unsupported GGUF version {version}")
            _read(f, "<Q")  # tensor count
            kv_count = _read(f, "<Q")
            if kv_count > 1 << 16:
                raise ValueError("metadata count out of range")
            meta = {"gguf.version": version}
            for _ in range(kv_count):
                key = _string(f)
                meta[key] = _value(f, _read(f, "<I"))
            return meta
    except PermissionError:
        raise ModelError(f"{path}: permission denied") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot read it: {exc.strerror}") from None
    except (EOFError, ValueError, struct.error) as exc:
        detail = "the file is cut short" if isinstance(exc, EOFError) else str(exc)
        raise ModelError(f"{path}: corrupt GGUF header ({detail})") from None
