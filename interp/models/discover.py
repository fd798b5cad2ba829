"""GGUF files already on this machine, from the tools people use: Hugging Face's cache, llama.cpp's cache, LM Studio,
GPT4All, Ollama's store (read from its manifests, no server needed) and interp's own models folder."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from interp.common.regular_files import irregular, read_regular
from interp.models.base import ModelError
from interp.models.gguf import FILE_TYPES, read_header
from interp.models.store import models_dir

OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
OLLAMA_DEFAULT_HOST = "registry.ollama.ai"
_DIGEST = re.compile(r"[a-z0-9]+[:-][0-9a-fA-F]{1,128}")  # sha256:HEX; a path (../../x) is not one
MAX_MANIFEST_BYTES = 1 << 20  # a manifest is a small JSON file
# Only the first file of a split model is loaded (llama.cpp finds the rest); projectors are not chat models.
_LATER_SHARD = re.compile(r"-0*([2-9]|\d{2,})-of-\d+\.gguf$", re.IGNORECASE)


@dataclass
class Found:
    """One model file on disk, with where it came from; `name` is how --model can call it."""

    name: str
    source: str
    path: Path


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _env_dir(variable: str, default: Path) -> Path:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else default


def hf_hub_dir() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    return _env_dir("HF_HOME", _home() / ".cache" / "huggingface") / "hub"


def ollama_dirs() -> list[Path]:
    if os.environ.get("OLLAMA_MODELS"):
        return [Path(os.environ["OLLAMA_MODELS"]).expanduser()]
    return [_home() / ".ollama" / "models", Path("/usr/share/ollama/.ollama/models")]


def _gguf_files(folder: Path, pattern: str = "**/*.gguf") -> Iterator[Path]:
    if not folder.is_dir():
        return
    for path in sorted(folder.glob(pattern)):
        if "mmproj" in path.name.lower() or _LATER_SHARD.search(path.name):
            continue
        if path.is_file():
            yield path


def _huggingface() -> Iterator[Found]:
    for repo in sorted(hf_hub_dir().glob("models--*")):
        repo_id = repo.name[len("models--"):].replace("--", "/")
        for path in _gguf_files(repo / "snapshots"):
            yield Found(path.stem, f"huggingface {repo_id}", path)


def _folders() -> Iterator[tuple[str, Path]]:
    home = _home()
    yield "llama.cpp cache", _env_dir("LLAMA_CACHE", home / ".cache" / "llama.cpp")
    yield "LM Studio", home / ".lmstudio" / "models"
    yield "LM Studio", home / ".cache" / "lm-studio" / "models"
    gpt4all = "Library/Application Support/nomic.ai/GPT4All" if sys.platform == "darwin" else \
        ".local/share/nomic.ai/GPT4All"
    yield "GPT4All", home / gpt4all
    yield "interp", models_dir()


def _manifests() -> Iterator[tuple[str, Path, Path | str]]:
    """Each Ollama manifest: the name it gives (`name:tag` for the default library, else `host/namespace/name:tag`),
    where it is, and its model file or, for a manifest that names none that can be used, what is wrong."""
    for store in ollama_dirs():
        manifests = store / "manifests"
        if not manifests.is_dir():
            continue
        for manifest in sorted(manifests.glob("*/*/*/*")):
            tag, model, namespace, host = (manifest.parts[-1], manifest.parts[-2], manifest.parts[-3],
                                           manifest.parts[-4])
            short = f"{model}:{tag}" if (host, namespace) == (OLLAMA_DEFAULT_HOST, "library") else \
                f"{host}/{namespace}/{model}:{tag}"
            yield short, manifest, _manifest_blob(store, manifest)


def _manifest_blob(store: Path, manifest: Path) -> Path | str:
    """The model file that a manifest names, or what is wrong with the manifest, in a few words."""
    try:
        document = json.loads(read_regular(manifest, MAX_MANIFEST_BYTES))
    except OSError as exc:  # a FIFO or a device is refused without a read that could hang or never end
        return f"cannot be read: {exc.strerror}"
    except (ValueError, RecursionError):
        return "is not JSON"
    layers = document.get("layers") if isinstance(document, dict) else None
    digests = [layer.get("digest") for layer in layers if isinstance(layer, dict)
               and layer.get("mediaType") == OLLAMA_MODEL_LAYER] if isinstance(layers, list) else []
    if not digests:
        return "names no model layer"
    digest = digests[0]
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        return f"has a model layer whose digest is not a digest ({repr(digest)[:40]})"
    for blob in (store / "blobs" / digest.replace(":", "-"), store / "blobs" / digest):
        if blob.is_file():
            return blob
        if kind := irregular(blob):
            return f"names a model file that is {kind}, not a file: {blob}"
    return f"names a model file that is not in {store / 'blobs'}"


def ollama_models() -> Iterator[Found]:
    """Each Ollama manifest's model file; manifests that name none that can be used are skipped."""
    for short, _manifest, blob in _manifests():
        if isinstance(blob, Path):
            yield Found(short, "ollama", blob)


def local_models() -> list[Found]:
    """Every GGUF found, each file once (the first source that has it wins)."""
    found: list[Found] = list(_huggingface())
    for source, folder in _folders():
        found.extend(Found(path.stem, source, path) for path in _gguf_files(folder))
    found.extend(ollama_models())
    seen: set[Path] = set()
    unique = []
    for item in found:
        key = item.path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique


def find_ollama(name: str) -> Path:
    """The model file behind an Ollama name (`qwen2.5-coder`, `qwen2.5-coder:1.5b`, `user/model:tag`)."""
    wanted = name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"
    found = list(_manifests())
    for short, manifest, blob in found:
        if short == wanted or short.endswith("/" + wanted):
            if isinstance(blob, str):
                raise ModelError(f"Ollama model '{name}': its manifest {manifest} {blob}")
            return blob
    known = ", ".join(short for short, _manifest, blob in found if isinstance(blob, Path)) or "none"
    raise ModelError(f"no Ollama model '{name}' in {', '.join(map(str, ollama_dirs()))} (found: {known})")


def describe(path: Path) -> dict[str, str]:
    """What the table shows of a file, from its header; ModelError for files that are not usable GGUF."""
    header = read_header(path, brief=True)
    meta = header.metadata
    arch = str(meta.get("general.architecture", "?"))
    params = meta.get("general.size_label")
    if not params:
        count = read_header(path, with_tensors=True).parameters
        params = f"{count / 1e9:.1f}B" if count >= 1e9 else f"{count / 1e6:.0f}M"
    file_type = meta.get("general.file_type")
    return {
        "arch": arch,
        "params": str(params),
        "quant": FILE_TYPES.get(file_type, "?") if isinstance(file_type, int) else "?",
        "ctx": str(meta.get(f"{arch}.context_length", "?")),
        "title": str(meta.get("general.name", path.stem)),
    }
