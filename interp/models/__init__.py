"""Model back ends behind one interface (see base.Model)."""

from __future__ import annotations

from collections.abc import Callable

from interp.models.base import GenParams, Message, Model, ModelError

SCRIPT_PREFIX = "script:"


def load_model(
    spec: str | None,
    *,
    n_ctx: int = 0,
    n_threads: int = 0,
    n_gpu_layers: int | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    progress: Callable[[float], None] | None = None,
) -> Model:
    """`script:FILE.json` for a scripted model, a GGUF path, or None for the embedded default; with `api_base`,
    `spec` is the model's name on that OpenAI-compatible server."""
    if api_base:
        from interp.models.remote import RemoteModel

        return RemoteModel(api_base, spec, api_key, n_ctx=n_ctx)
    if spec and spec.startswith(SCRIPT_PREFIX):
        from interp.models.script import ScriptModel

        return ScriptModel(spec[len(SCRIPT_PREFIX):], n_ctx=n_ctx)
    from interp.models.default import default_model_path
    from interp.models.llama import LlamaModel

    path = spec or default_model_path()
    return LlamaModel(path, n_ctx=n_ctx, n_threads=n_threads, n_gpu_layers=n_gpu_layers, progress=progress)


__all__ = ["GenParams", "Message", "Model", "ModelError", "load_model"]
