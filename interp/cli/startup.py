"""Getting ready while the prompt already takes input: the model loads (and reads the fixed prefix) and the kernel
starts in a background thread; the first request that needs them waits, saying what for."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from interp.common.events import ModelStats, Notice
from interp.models.base import FromFile, GenParams, Message, Model, Together, together_service, warm_prefix
from interp.runtime import stack
from interp.runtime.kernel import Kernel

WAIT_STEP_S = 0.1


class Startup:
    """The model and the kernel made ready in a thread. `status` says what it is doing; `wait` returns the model
    once both are ready, or raises what went wrong."""

    def __init__(self, load: Callable[[], Model], kernel: Kernel, prefix: list[Message]) -> None:
        self.status = "loading the model"
        self.prefix_state: str | None = None
        self._load, self._kernel, self._prefix = load, kernel, prefix
        self._model: Model | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="interp-startup", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._model = self._load()
            self.status = "reading the system prompt"
            self.prefix_state = warm_prefix(self._model, self._prefix)
            self.status = "starting the kernel"
            self._kernel.wait_ready()
            self._kernel.warm(stack.WARM)
            self.status = "ready"
        except BaseException as exc:  # handed to the thread that waits, which reports it
            self._error = exc
        finally:
            self._done.set()

    @property
    def ready(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> Model | None:
        """The model, once the model and the kernel are ready (None if `timeout` passed first)."""
        if not self._done.wait(timeout):
            return None
        if self._error is not None:
            raise self._error
        assert self._model is not None
        return self._model


def wait_visibly(startup: Startup, show: Callable[[Notice], None]) -> None:
    """Waits for the model and the kernel, showing each stage it waits on; raises what went wrong."""
    shown = None
    while startup.wait(WAIT_STEP_S) is None:
        if startup.status != shown:
            shown = startup.status
            show(Notice(f"Waiting for the model: {shown}…"))


class PendingModel:
    """Stands for the model while it loads: the session and the toolbar can hold it; a call waits for the load.
    `name` says what the start is doing until the model is ready; `n_ctx` and `n_threads` are the asked-for window
    and threads until then. Its own attributes never wait: a check by type (`FromFile`) reads them before the
    prompt."""

    def __init__(self, startup: Startup, name: str, n_ctx: int, path: Path, n_threads: int) -> None:
        self.startup = startup
        self.path = path
        self._name, self._n_ctx, self._n_threads = name, n_ctx, n_threads

    def _loaded(self) -> Model | None:
        return self.startup.wait(0) if self.startup.ready else None

    @property
    def name(self) -> str:
        model = self._loaded()
        return model.name if model is not None else f"{self._name} ({self.startup.status}…)"

    @property
    def n_ctx(self) -> int:
        model = self._loaded()
        return model.n_ctx if model is not None else self._n_ctx

    @property
    def n_threads(self) -> int:
        model = self._loaded()
        return model.n_threads if isinstance(model, FromFile) else self._n_threads

    def __getattr__(self, attribute: str) -> Any:
        """Anything else the loaded model has (threads, path facts for %model): waits for it."""
        if attribute.startswith("_") or attribute == "startup":
            raise AttributeError(attribute)
        return getattr(self.startup.wait(), attribute)

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        model = self.startup.wait()
        assert model is not None
        return (yield from model.complete(messages, params))

    def together(self) -> Together | None:
        """The loaded model's service of replies decoded together, where it has one (models/base.py)."""
        model = self.startup.wait()
        return together_service(model) if model is not None else None

    def count_tokens(self, messages: list[Message]) -> int:
        model = self.startup.wait()
        assert model is not None
        return model.count_tokens(messages)

    def close(self) -> None:
        try:
            model = self.startup.wait()
        except BaseException:  # a model that never loaded has nothing to close
            return
        if model is not None:
            model.close()
