"""A progress bar for loading a model."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn


@contextlib.contextmanager
def load_progress(enabled: bool) -> Iterator[Callable[[float], None] | None]:
    """Yields a callback taking the fraction loaded, or None when disabled. The bar is drawn on a duplicate of the
    terminal's stderr, because llama-cpp-python points descriptors 1 and 2 at /dev/null while it loads."""
    if not enabled:
        yield None
        return
    with os.fdopen(os.dup(2), "w") as terminal:
        bar = Progress(TextColumn("loading model"), BarColumn(), TaskProgressColumn(),
                       console=Console(file=terminal), transient=True)
        task = bar.add_task("load", total=1.0)
        with bar:
            yield lambda fraction: bar.update(task, completed=fraction)
