"""What a session is told to do: the settings that shape its loop."""

from __future__ import annotations

from dataclasses import dataclass, field

from interp.models.base import GenParams


@dataclass
class Settings:
    auto_run: bool = False  # run code without asking
    interactive: bool = True  # a person is there to answer confirmations and input()
    max_attempts: int = 3  # consecutive failed executions in one turn; 0 = no limit
    max_steps: int = 10  # code-running replies in one turn; 0 = no limit
    timeout: float = 120.0  # seconds per execution; 0 = none
    max_output: int = 2000  # characters of output kept for the model, head and tail
    condense: str = "cut"  # how old turns leave a full window: 'cut' drops them, 'summary' has the model summarize
    reflect: bool = False  # after a second failure in a row, ask the model for the cause in one sentence
    verify: bool = True  # ask for asserts that test functions the code defined and never called (verify.py)
    gen: GenParams = field(default_factory=GenParams)
