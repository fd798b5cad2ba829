"""Where interp's prompts lie: the folder of texts it tells the model (prompts/), shipped in the wheel."""

from __future__ import annotations

from pathlib import Path


def prompts_dir() -> Path:
    """prompts/ inside an installed wheel, else the one at the top of a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "prompts", package.parent / "prompts"):
        if (candidate / "system.md").is_file():
            return candidate
    raise FileNotFoundError(f"interp's prompts folder is missing (looked in {package / 'prompts'})")
