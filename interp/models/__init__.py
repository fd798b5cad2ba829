"""Model back ends behind one interface (see base.Model)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from interp.models.base import GenParams, Message, Model, ModelError
from interp.models.lookup import SCRIPT_PREFIX, resolve

# Told the stage ("assembling model", "loading model") and the fraction of it done.
Progress = Callable[[str, float], None]


def model_path(spec: str | None, progress: Progress | None = None) -> tuple[Path, str]:
    """The GGUF file that --model names (a catalog model is assembled first if needed) and a name for people: the
    catalog name, else empty (the file's own general.name is used once it is read)."""
    choice = resolve(spec)
    if choice.entry is None:
        assert choice.path is not None
        return choice.path, choice.name
    from interp.models.store import model_file

    report = (lambda fraction: progress("assembling model (first start only)", fraction)) if progress else None
    return model_file(choice.entry, report), choice.name


def load_model(
    spec: str | None,
    *,
    n_ctx: int = 0,
    n_threads: int = 0,
    n_gpu_layers: int | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    progress: Progress | None = None,
) -> Model:
    """`script:FILE.json` for a scripted model, anything `names.resolve` takes, or None for the default; with
    `api_base`, `spec` is the model's name on that OpenAI-compatible server."""
    if api_base:
        from interp.models.remote import RemoteModel

        return RemoteModel(api_base, spec, api_key, n_ctx=n_ctx)
    if spec and spec.startswith(SCRIPT_PREFIX):
        from interp.models.script import ScriptModel

        return ScriptModel.from_file(spec[len(SCRIPT_PREFIX):], n_ctx=n_ctx)
    from interp.models.llama import LlamaModel

    path, name = model_path(spec, progress)
    report = (lambda fraction: progress("loading model", fraction)) if progress else None
    return LlamaModel(path, name=name, n_ctx=n_ctx, n_threads=n_threads, n_gpu_layers=n_gpu_layers, progress=report)


__all__ = ["GenParams", "Message", "Model", "ModelError", "Progress", "load_model", "model_path"]
