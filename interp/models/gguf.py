"""Reads the header of a GGUF file: enough to check the file and describe the model without loading its weights."""

from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interp.common.regular_files import NotRegularFile, open_regular
from interp.models.base import ModelError

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
# Arrays longer than this (token lists, merges) are skipped over, not kept: nothing here needs them.
_KEEP_ARRAY = 64
_MAX_COUNT = 1 << 32
# llama.cpp's llama_ftype values (general.file_type), for the ones GGUF files in the wild use.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
    12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS",
    20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
    28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4",
}


@dataclass
class Header:
    """The key/value metadata and the tensor count; `parameters` is the sum of the tensors' element counts."""

    metadata: dict[str, Any] = field(default_factory=dict)
    tensors: int = 0
    parameters: int = 0


class _Reader:
    """Walks a memory-mapped header with struct.unpack_from: long token arrays are skipped without copies."""

    def __init__(self, data: mmap.mmap | bytes) -> None:
        self.data = data
        self.pos = 0

    def scalar(self, fmt: str) -> Any:
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        length = self.scalar("<Q")
        end = self.pos + length
        if length > 1 << 26 or end > len(self.data):
            raise EOFError
        text = bytes(self.data[self.pos:end]).decode("utf-8", errors="replace")
        self.pos = end
        return text

    def skip_strings(self, count: int) -> None:
        unpack, data, pos = struct.unpack_from, self.data, self.pos
        for _ in range(count):
            pos += 8 + unpack("<Q", data, pos)[0]
        if pos > len(data):
            raise EOFError
        self.pos = pos

    def value(self, kind: int) -> Any:
        if kind in _SCALARS:
            return self.scalar(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind != _ARRAY:
            raise ValueError(f"unknown value type {kind}")
        item_kind, count = self.scalar("<I"), self.scalar("<Q")
        if count > _MAX_COUNT:
            raise ValueError("array length out of range")
        if count > _KEEP_ARRAY and item_kind in _SCALARS:
            self.pos += count * struct.calcsize(_SCALARS[item_kind])
            return None
        if count > _KEEP_ARRAY and item_kind == _STRING:
            self.skip_strings(count)
            return None
        items = [self.value(item_kind) for _ in range(count)]
        return items if count <= _KEEP_ARRAY else None


def _parse(data: mmap.mmap | bytes, with_tensors: bool, brief: bool) -> Header:
    r = _Reader(data)
    if bytes(data[:4]) != b"GGUF":
        raise ModelError("not a GGUF file (it does not start with the GGUF magic bytes)")
    r.pos = 4
    version = r.scalar("<I")
    if version not in (2, 3):
        raise ModelError(f"unsupported GGUF version {version}")
    header = Header(tensors=r.scalar("<Q"))
    kv_count = r.scalar("<Q")
    if kv_count > 1 << 16 or header.tensors > 1 << 24:
        raise ValueError("metadata count out of range")
    header.metadata["gguf.version"] = version
    for _ in range(kv_count):
        key = r.string()
        kind = r.scalar("<I")
        if brief and kind == _ARRAY and struct.unpack_from("<Q", data, r.pos + 4)[0] > _KEEP_ARRAY:
            break  # the vocabulary: what describes a model came before it
        header.metadata[key] = r.value(kind)
    if with_tensors:
        for _ in range(header.tensors):
            r.string()
            dims = r.scalar("<I")
            if dims > 8:
                raise ValueError("tensor dimensions out of range")
            count = 1
            for _ in range(dims):
                count *= r.scalar("<Q")
            r.pos += 4 + 8  # type, offset
            header.parameters += count
    return header


def read_header(path: str | Path, *, with_tensors: bool = False, brief: bool = False) -> Header:
    """The header of a GGUF file. Raises ModelError with a one-line reason (naming the file) for anything unusable.
    `brief` stops at the first long array (the vocabulary), after the keys that describe the model: listing dozens of
    files stays fast. `with_tensors` also counts the parameters (and cannot be brief)."""
    path = Path(path)
    if not path.exists():
        raise ModelError(f"{path}: no such file")
    if path.is_dir():
        raise ModelError(f"{path}: is a folder, not a GGUF file")
    try:
        with open_regular(path) as f:  # a FIFO or a device (/dev/zero) is refused, never read
            if os.fstat(f.fileno()).st_size < 24:
                data: mmap.mmap | bytes = f.read(24)
                return _parse(data, with_tensors, brief and not with_tensors)
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return _parse(data, with_tensors, brief and not with_tensors)
    except ModelError as exc:
        raise ModelError(f"{path}: {exc}") from None
    except PermissionError:
        raise ModelError(f"{path}: permission denied") from None
    except NotRegularFile as exc:
        raise ModelError(f"{path}: {exc.strerror}, not a GGUF file") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot read it: {exc.strerror}") from None
    except (EOFError, ValueError, struct.error, IndexError) as exc:
        detail = "the file is cut short" if isinstance(exc, (EOFError, struct.error, IndexError)) else str(exc)
        raise ModelError(f"{path}: corrupt GGUF header ({detail})") from None


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The key/value metadata of a GGUF file (see read_header)."""
    return read_header(path).metadata


def display_name(path: Path, name: str = "", metadata: dict[str, Any] | None = None) -> str:
    """How people see a model: its catalog name, else the GGUF's general.name, else the file's name."""
    if name:
        return name
    metadata = read_metadata(path) if metadata is None else metadata
    return str(metadata.get("general.name") or path.stem)
