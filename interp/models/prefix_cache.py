"""The fixed prefix's llama.cpp state on disk, so a session's first request evaluates only its own tokens.

Every prompt starts with the same system prompt and few-shot examples: a few hundred tokens, seconds of prompt
evaluation on a CPU. After they are evaluated once, the context's state (the KV cache of those tokens) is written to
the user cache folder; later starts load it in milliseconds.

The file is named by a key over everything that makes the state valid: the model (its stamped SHA-256, else path,
size, inode and mtime), the exact prefix tokens, n_ctx and the llama.cpp version. A different cwd in the system
prompt or a profile's prompt is a different key: a miss, never a wrong hit. The file repeats its key and carries the
payload's SHA-256, so a truncated, corrupt or misplaced file is found and rewritten rather than trusted. Only the
KEEP states used last stay: saving one removes the older ones.

Why llama_state_get_data/set_data with our own header rather than llama_state_save_file or the high-level
LlamaState: the file functions write with fopen (no atomic rename, no private mode) and check only sizes, so a
flipped byte in the KV data would load; LlamaState pickles the whole input_ids array and the logits buffer
(n_batch x n_vocab floats: 311 MB for a 152k vocabulary) for every save.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

if TYPE_CHECKING:
    from interp.models.llama_context import LlamaContext

from interp.models.store import stamped_sha256

MAGIC = b"interp-prefix-state 1\n"
_LENGTH = struct.Struct("<Q")
KEEP = 16  # states kept, the most recently used: one per model, working folder and prompt (about 10 MB each, 1.5B)


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir("interp")) / "prefix"


def model_identity(path: Path) -> str:
    sha = stamped_sha256(path)
    if sha:
        return f"sha256:{sha}"
    st = path.stat()
    return f"{path.resolve()}:{st.st_size}:{st.st_ino}:{st.st_mtime_ns}"


def state_key(model: str, tokens: Sequence[int], n_ctx: int, version: str) -> str:
    text = json.dumps({"model": model, "tokens": list(tokens), "n_ctx": n_ctx, "llama_cpp": version})
    return hashlib.sha256(text.encode()).hexdigest()


def state_path(key: str, folder: Path | None = None) -> Path:
    return (folder or cache_dir()) / f"{key[:32]}.state"


def load(llama_cpp: Any, ctx: Any, path: Path, key: str) -> bool:
    """Restores the context's state from `path` if the file is whole and made for `key`; else leaves the context's
    memory empty and returns False."""
    try:
        data = path.read_bytes()
        head = len(MAGIC) + _LENGTH.size
        if not data.startswith(MAGIC):
            return False
        (length,) = _LENGTH.unpack_from(data, len(MAGIC))
        header = json.loads(data[head:head + length])
        payload = data[head + length:]
        if header.get("key") != key or header.get("sha256") != hashlib.sha256(payload).hexdigest():
            return False
    except (OSError, ValueError, struct.error):
        return False
    buffer = (ctypes.c_uint8 * len(payload)).from_buffer_copy(payload)
    if llama_cpp.llama_state_set_data(ctx, buffer, len(payload)) == len(payload):
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: the last to go (prune)
        return True
    llama_cpp.llama_memory_clear(llama_cpp.llama_get_memory(ctx), True)
    return False


def save(llama_cpp: Any, ctx: Any, path: Path, key: str) -> bool:
    """Writes the context's state for `key`: to a private temporary file, then renamed into place, so a reader
    never sees half a file. Returns False when it cannot be written (the cache is only a speed-up)."""
    size = llama_cpp.llama_state_get_size(ctx)
    buffer = (ctypes.c_uint8 * size)()
    written = llama_cpp.llama_state_get_data(ctx, buffer, size)
    payload = bytes(buffer)[:written]
    header = json.dumps({"key": key, "sha256": hashlib.sha256(payload).hexdigest()}).encode()
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + _LENGTH.pack(len(header)) + header + payload)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        return False
    prune(path.parent)
    return True


def prune(folder: Path) -> None:
    """Removes all but the KEEP states used last: each new working folder or prompt saves one more."""
    with contextlib.suppress(OSError):
        states = sorted(folder.glob("*.state"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in states[KEEP:]:
            old.unlink(missing_ok=True)


def warm(model: LlamaContext, tokens: list[int], folder: Path | None = None) -> str:
    """Gets the model's KV cache holding the prefix's tokens: from their saved state ('loaded'), else evaluated and
    saved ('saved'; 'evaluated' when the cache folder cannot be written). The next call reuses it."""
    llama_cpp, llm = model._llama_cpp, model.llm
    key = state_key(model_identity(model.path), tokens, model.n_ctx, llama_cpp.__version__)
    path = state_path(key, folder)
    llm.reset()
    llm._ctx.kv_cache_clear()
    if load(llama_cpp, llm._ctx.ctx, path, key):
        outcome = "loaded"
    else:
        with model._sigint_as_flag():
            llm.eval(tokens)
        outcome = "saved" if save(llama_cpp, llm._ctx.ctx, path, key) else "evaluated"
    llm.input_ids[:len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    return outcome
