"""Catalog models on disk: a model shipped in parts is assembled once into the user cache, verified, and stamped.

Assembly streams the parts into a temporary file beside the target, hashes what was written, checks size and
SHA-256 against the pinned values, and only then renames it into place: an interrupted or full-disk assembly leaves
no half-written model. A stamp beside the file records its size, inode and mtime, so later starts check it with one
stat() instead of re-hashing a gigabyte; `verify` re-hashes on request.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import platformdirs
import psutil

from interp.common.regular_files import read_regular
from interp.models.base import ModelError
from interp.models.catalog import Entry

CHUNK = 8 << 20
STAMP_BYTES = 4096  # a stamp is one line of JSON
Progress = Callable[[float], None]


def models_dir() -> Path:
    """interp's own models folder (assembled catalog models); INTERP_MODELS_DIR moves it."""
    return Path(os.environ.get("INTERP_MODELS_DIR") or Path(platformdirs.user_cache_dir("interp")) / "models")


def target(entry: Entry) -> Path:
    return models_dir() / f"{entry.name}-{entry.sha256[:12]}.gguf"


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".stamp")


def _fingerprint(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "inode": st.st_ino, "mtime_ns": st.st_mtime_ns}


def stamped(entry: Entry, path: Path) -> bool:
    """Whether the file is the one that was verified: same size, inode and mtime as its stamp records."""
    try:
        stamp = json.loads(read_regular(_stamp_path(path), STAMP_BYTES))
        return stamp == {"sha256": entry.sha256, **_fingerprint(path)} and stamp["size"] == entry.size
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return False


def stamped_sha256(path: Path) -> str | None:
    """The SHA-256 that the stamp beside any GGUF records, if the file is still the one that was stamped."""
    try:
        stamp = json.loads(read_regular(_stamp_path(path), STAMP_BYTES))
        sha = stamp.pop("sha256")
        return str(sha) if stamp == _fingerprint(path) else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def sha256_of(path: Path, progress: Progress | None = None) -> str:
    digest, total, done = hashlib.sha256(), max(path.stat().st_size, 1), 0
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
            done += len(chunk)
            if progress:
                progress(done / total)
    return digest.hexdigest()


def model_file(entry: Entry, progress: Progress | None = None) -> Path:
    """The GGUF of a catalog model, assembling it first if it is not in the cache (or not as verified)."""
    if not entry.parts:
        return entry.shipped_file()
    path = target(entry)
    if stamped(entry, path):
        return path
    if path.exists() and path.stat().st_size == entry.size and sha256_of(path, progress) == entry.sha256:
        _write_stamp(entry, path)  # the file is right; its stamp was lost or it was copied in
        return path
    return assemble(entry, entry.part_files(), progress)


def verify(entry: Entry, progress: Progress | None = None) -> str:
    """Re-hashes an assembled model: 'ok', 'not assembled yet', or what is wrong (and the file is removed)."""
    path = target(entry)
    if not entry.parts:
        return f"ok ({entry.shipped_file()}, shipped whole by its package)"
    if not path.exists():
        return "not assembled yet"
    size = path.stat().st_size
    if size == entry.size and sha256_of(path, progress) == entry.sha256:
        _write_stamp(entry, path)
        return f"ok ({path})"
    _remove(path)
    return f"corrupt ({path}: {'wrong size' if size != entry.size else 'wrong SHA-256'}); removed, the next start " \
           "assembles it again"


def assemble(entry: Entry, parts: list[Path], progress: Progress | None = None) -> Path:
    path = target(entry)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"cannot create the models folder {path.parent}: {exc.strerror}; "
                         "set INTERP_MODELS_DIR (or XDG_CACHE_HOME) to a writable folder") from None
    _remove_stale_temporaries(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    total = sum(p.stat().st_size for p in parts) or 1
    try:
        digest, done = hashlib.sha256(), 0
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as f:
                    while chunk := f.read(CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        done += len(chunk)
                        if progress:
                            progress(done / total)
            out.flush()
            os.fsync(out.fileno())
        if done != entry.size or digest.hexdigest() != entry.sha256:
            what = f"{done} bytes, not {entry.size}" if done != entry.size else "the SHA-256 does not match"
            raise ModelError(f"model {entry.name}: its parts do not make the pinned file ({what}); reinstall them: "
                             f"{entry.install}")
        os.replace(tmp, path)
    except OSError as exc:
        raise ModelError(f"cannot write the model to {path.parent}: {exc.strerror}; free "
                         f"{entry.size >> 20} MB there or set INTERP_MODELS_DIR to another folder") from None
    finally:
        _remove(tmp)  # gone already once renamed into place; removed if anything stopped the assembly
    _write_stamp(entry, path)
    return path


def _write_stamp(entry: Entry, path: Path) -> None:
    with contextlib.suppress(OSError):
        _stamp_path(path).write_text(json.dumps({"sha256": entry.sha256, **_fingerprint(path)}), encoding="utf-8")


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def _remove_stale_temporaries(path: Path) -> None:
    """Temporary files of assemblies whose process is gone (killed mid-way) are removed."""
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        pid = tmp.name[len(path.name) + 2:-len(".tmp")]
        if not pid.isdigit() or not psutil.pid_exists(int(pid)):
            _remove(tmp)
