"""A progress bar for getting a model ready: assembling it (first start) and loading it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn


@contextlib.contextmanager
def load_progress(enabled: bool) -> Iterator[Callable[[str, float], None] | None]:
    """Yields a callback taking the stage and the fraction of it done, or None when disabled. The bar is drawn on a
    duplicate of the terminal's stderr, because llama-cpp-python points descriptors 1 and 2 at /dev/null while it
    loads."""
    if not enabled:
        yield None
        return
    with os.fdopen(os.dup(2), "w") as terminal:
        bar = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                       console=Console(file=terminal), transient=True)
        task = bar.add_task("loading model", total=1.0)
        with bar:
            yield lambda stage, fraction: bar.update(task, description=stage, completed=fraction)
