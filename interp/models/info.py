"""`interp --info`: what llama.cpp can do here, and what a GGUF file holds, read from its header."""

from __future__ import annotations

from pathlib import Path

from interp.models.gguf import FILE_TYPES, read_metadata


def size_text(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return ""


def backend_lines() -> list[str]:
    from interp.models.llama_load import import_llama_cpp

    llama_cpp = import_llama_cpp()
    return [
        f"llama-cpp-python {llama_cpp.__version__}",
        f"GPU offload possible: {'yes' if llama_cpp.llama_supports_gpu_offload() else 'no'}",
        f"backend: {llama_cpp.llama_print_system_info().decode(errors='replace').strip()}",
    ]


def model_lines(path: Path, name: str = "") -> list[str]:
    meta = read_metadata(path)
    arch = str(meta.get("general.architecture", "unknown"))
    file_type = meta.get("general.file_type")
    quant = FILE_TYPES.get(file_type, f"type {file_type}") if file_type is not None else "unknown"
    template = str(meta.get("tokenizer.chat_template") or "(none: interp falls back to ChatML)")
    return [
        f"model file: {path} ({size_text(path.stat().st_size)})",
        *([f"catalog name: {name}"] if name else []),
        f"name: {meta.get('general.name', path.stem)}",
        f"architecture: {arch}, parameters: {meta.get('general.size_label', 'unknown')}",
        f"quantization: {quant}",
        f"trained context length: {meta.get(f'{arch}.context_length', 'unknown')}",
        f"layers: {meta.get(f'{arch}.block_count', 'unknown')}",
        "chat template:",
        *("    " + line for line in template.splitlines()),
    ]
