"""What changes while a session runs, beside its frozen Config: the user's own switches."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SessionState:
    auto_run: bool  # run code without asking: -y, then %auto or answering 'a'
    interactive: bool  # a person is there to answer confirmations and input()
