"""What `--model` may name: a path, `script:FILE`, a catalog name, `ollama:NAME[:TAG]`, or a unique part of the file
name of a GGUF found on this machine."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from interp.models.base import ModelError
from interp.models.catalog import CATALOG, DEFAULT, Entry
from interp.models.discover import find_ollama, local_models

SCRIPT_PREFIX = "script:"
OLLAMA_PREFIX = "ollama:"


@dataclass
class Choice:
    """A resolved --model: a catalog entry (its file may still need assembling) or a GGUF file, named for people."""

    name: str
    path: Path | None = None
    entry: Entry | None = None


def _looks_like_path(spec: str) -> bool:
    return "/" in spec or "\\" in spec or spec.lower().endswith(".gguf") or spec.startswith(("~", "."))


def resolve(spec: str | None) -> Choice:
    """Raises ModelError with one line (close candidates included) when the name is unknown or ambiguous."""
    if not spec:
        return Choice(DEFAULT, entry=CATALOG[DEFAULT])
    if spec.startswith(OLLAMA_PREFIX):
        name = spec[len(OLLAMA_PREFIX):]
        return Choice(spec, path=find_ollama(name))
    path = Path(spec).expanduser()
    if path.exists() or _looks_like_path(spec):
        return Choice("", path=path)
    if spec.lower() in CATALOG:
        return Choice(spec.lower(), entry=CATALOG[spec.lower()])
    found = local_models()
    matches = [f for f in found if spec.lower() in f.name.lower()]
    exact = [f for f in matches if f.name.lower() == spec.lower()]
    if len(exact) == 1 or len(matches) == 1:
        chosen = (exact or matches)[0]
        return Choice("", path=chosen.path)
    names = [*CATALOG, *(f.name for f in found)]
    if matches:
        listed = ", ".join(f"{f.name} ({f.source})" for f in matches[:8])
        raise ModelError(f"model '{spec}' is ambiguous: it matches {listed}; give more of the name or a path")
    close = difflib.get_close_matches(spec, names, n=5, cutoff=0.4)
    hint = f" (close: {', '.join(close)})" if close else ""
    raise ModelError(f"no model named '{spec}'{hint}; `interp --models` lists what is installed and found")
