"""Help for the model runs so that the worst it can do is not help.

Everything interp adds to what the model reads (a file's preview, what a silent run's names hold, the imports code
lacks, a request's examples and answer parts, recalled observations) is computed from things no one controls: files of
any shape, frames with no columns, errors without a traceback, text of any kind. A piece of help that raises on one of
them must not end the session: `helped` runs it, journals a `help_failed` record, and gives the turn what it would
have had without that help. The rules have the same promise from their engine (interp/rules/engine.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from interp.stores.journal import Journal

T = TypeVar("T")


def helped(journal: Journal, what: str, fallback: T, work: Callable[[], T]) -> T:
    """`work()`, or `fallback` when it raises (journaled as `help_failed`, with `what` and the error)."""
    try:
        return work()
    except Exception as exc:  # noqa: BLE001 - help must never end a session, whatever it met
        journal.record("help_failed", help=what, error=f"{type(exc).__name__}: {str(exc)[:300]}")
        return fallback
