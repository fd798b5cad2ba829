"""Imported for its effect by interp/__init__.py, so before any of interp's modules: llama.cpp's shared libraries
enter the process before anything that brings in libstdc++ (pyzmq through jupyter_client, numpy).

A CUDA build of llama-cpp-python (0.3.36 from its sdist, CUDA 13.0, NVIDIA H100) has libggml-cuda.so export a copy of
part of libstdc++ (its locale, codecvt and regex code: 531 dynamic symbols). With libstdc++ loaded before it, the
tokenizer's std::regex in llama.cpp ran into that copy and crashed: SIGSEGV in llama_model_load_from_file
(llama_vocab::load, unicode_regex_split), on the GPU and with --gpu-layers 0 alike, after `import zmq` or
`import numpy` and after interp's own imports. With llama_cpp imported first, the same build loaded the model and
interp's one-shot run decoded on the GPU. This opens the library as llama_cpp will (from its lib folder, or
LLAMA_CPP_LIB_PATH; RTLD_GLOBAL), which costs far less than importing llama_cpp and numpy before the prompt
(docs/models.md); llama_cpp's own load later finds it open. Where llama_cpp or the library is not found nothing is done,
and llama_cpp reports its own error when a local model needs it."""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import os
import sys
from pathlib import Path


def library() -> Path | None:
    """libllama where llama_cpp will look for it (Linux and macOS; on Windows, None)."""
    name = {"linux": "libllama.so", "darwin": "libllama.dylib"}.get(sys.platform)
    spec = importlib.util.find_spec("llama_cpp")
    if name is None or spec is None or spec.origin is None:
        return None
    folder = Path(os.environ.get("LLAMA_CPP_LIB_PATH") or Path(spec.origin).parent / "lib")
    return folder / name if (folder / name).is_file() else None


def load() -> None:
    path = library()
    if path is not None:
        with contextlib.suppress(OSError):
            ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)


load()
