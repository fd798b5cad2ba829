"""Loading a GGUF with llama-cpp-python: the import, the parameters its Llama() does not expose, set while it loads."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator
from typing import Any

# The context's sequences: replies decoded together at most (together.py), one sequence each.
SEQUENCES = 8


def cpu_has_amx() -> bool:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            return any(line.startswith("flags") and " amx_int8" in line for line in f)
    except OSError:
        return False


class _Unredirected:
    """Stands in for llama-cpp-python's suppress_stdout_stderr, which points descriptors 1 and 2 at /dev/null while
    it loads: the REPL's prompt is on the screen while the model loads in another thread, and would vanish.
    llama.cpp's log lines are silenced at the logger instead."""

    def __init__(self, disable: bool = True) -> None:
        pass

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@contextlib.contextmanager
def load_params(llama_cpp: Any, progress: Callable[[float], None] | None) -> Iterator[None]:
    """Sets load parameters that llama-cpp-python's Llama() does not expose, by wrapping its defaults while it
    loads: a context for several sequences in one unified cache (replies drawn together, together.py; each sequence
    can use the whole context), a progress callback, and on CPUs with AMX no extra buffer types (llama.cpp's AMX
    matmul, reached through them, segfaulted on the first multi-token batch of the embedded model on an Intel Xeon
    with AMX, llama-cpp-python 0.3.36). Its logging is silenced without touching the terminal's descriptors."""
    low = llama_cpp.llama_cpp
    high: Any = sys.modules["llama_cpp.llama"]
    internals: Any = sys.modules["llama_cpp._internals"]
    original = low.llama_model_default_params, high.suppress_stdout_stderr, internals.suppress_stdout_stderr, \
        high.set_verbose, low.llama_context_default_params
    callback = None
    if progress is not None:

        def report(fraction: float, _data: object) -> bool:
            progress(fraction)
            return True

        callback = low.llama_progress_callback(report)

    def params() -> Any:
        p = original[0]()
        if cpu_has_amx():
            p.use_extra_bufts = False
        if callback is not None:
            p.progress_callback = callback
        return p

    def context() -> Any:
        c = original[4]()
        c.n_seq_max, c.kv_unified = SEQUENCES, True
        return c

    logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL + 1)
    low.llama_model_default_params, low.llama_context_default_params = params, context
    high.suppress_stdout_stderr = internals.suppress_stdout_stderr = _Unredirected
    high.set_verbose = lambda _verbose: None
    try:
        yield
    finally:
        low.llama_model_default_params, high.suppress_stdout_stderr, internals.suppress_stdout_stderr, \
            high.set_verbose, low.llama_context_default_params = original


def import_llama_cpp() -> Any:
    """Imports llama_cpp. OpenMP's default wait policy (spin, then sleep) is kept: passive waiting decodes several
    times slower on a quiet machine (docs/models.md); the collapse that spinning threads suffer when another process
    holds a core is avoided by choosing the thread count from measured token times (threads.py)."""
    import llama_cpp

    return llama_cpp


def gpu_offload_supported() -> bool:
    return bool(import_llama_cpp().llama_supports_gpu_offload())
