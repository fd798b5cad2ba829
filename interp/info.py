"""`interp --info`: what llama.cpp can do here, and what a GGUF file holds, read from its header."""

from __future__ import annotations

from pathlib import Path

from interp.models.gguf import read_metadata

# llama.cpp's llama_ftype values (general.file_type), for the ones GGUF files in the wild use.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
    12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS",
    20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
    28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4",
}


def size_text(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return ""


def backend_lines() -> list[str]:
    from interp.models.llama import import_llama_cpp

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
