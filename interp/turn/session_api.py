"""The session seam: what a turn (turn.py, blocks.py, choose.py) uses of the session it runs in.

A turn reads its session's parts when it uses them, not once when it starts: the model, the prompts and the Config
may be replaced between turns or during one (Session.configure). The Protocol names those parts, so the turn's
modules need not import session.py, which builds the turns.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Protocol

from interp.common.events import Event, ModelStats, TurnStatus
from interp.config import Config
from interp.models.base import Message, Model
from interp.prompts import Prompts
from interp.rules import Engine
from interp.running.execution import Executor
from interp.running.packages import Packages
from interp.running.state import SessionState
from interp.runtime.kernel_api import KernelPool
from interp.runtime.outputs import OutputFolder
from interp.stores.conversation import Conversation
from interp.stores.journal import Journal
from interp.turn.feedback import Feedback
from interp.turn.notes import Notes


class SessionLike(Protocol):
    """A session as its turns see it (session.Session)."""

    model: Model
    kernels: KernelPool
    prompts: Prompts
    config: Config
    outputs: OutputFolder
    conversation: Conversation
    state: SessionState
    rules: Engine
    feedback: Feedback
    notes: Notes
    executor: Executor
    packages: Packages
    last_status: TurnStatus  # how the latest turn ended
    last_stats: ModelStats | None  # the figures of the latest call in view

    @property
    def journal(self) -> Journal:
        """Where the conversation is recorded."""
        ...

    @property
    def history(self) -> list[Message]:
        """The conversation's messages."""
        ...

    def prefix(self, function: bool = False) -> list[Message]:
        """What every prompt starts with."""
        ...

    def fired(self) -> Generator[Event, None, None]:
        """Journals and shows the rules that fired since the last call."""
        ...

    def cwd(self) -> Path:
        """Where relative paths point."""
        ...

    def evaluate(self, expressions: dict[str, str]) -> dict[str, str]:
        """Expressions evaluated in the Python kernel's namespace."""
        ...
