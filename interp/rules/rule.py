"""What a rule is: its id, its phase, what it detects and where it applies."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from interp.rules.facts import Facts

Phase = Literal["before_run", "on_error", "after_run", "on_reply"]
PHASES: tuple[Phase, ...] = ("before_run", "on_error", "after_run", "on_reply")


@dataclass(frozen=True)
class Finding:
    """What a rule found: the values its template is filled with, and which of its templates (`variant`, when it has
    several: prompts/rules/ID.json) says it."""

    values: Mapping[str, object] = field(default_factory=dict)
    variant: str = ""


@dataclass(frozen=True)
class Scope:
    """Where a rule applies. `languages`: the code's languages it reads ("python", "shell"; empty: any, or no code);
    `small`: only for models under a billion parameters (prompts.profile); `libraries`: modules its advice assumes the
    kernel can import (empty: none)."""

    languages: tuple[str, ...] = ("python",)
    small: bool = False
    libraries: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    """One piece of help. `detect` is pure: it reads `Facts` and returns a Finding or None. `once`: said at most once a
    turn. `general`: its advice is a truth of Python or its libraries for any model and any data (kept by `--rules
    general`); a rule that is not is kept only while the eval measures a gain for it. `extra`: said besides whichever
    rule of its phase fires first (`Engine.run(first=True)` neither stops before it nor counts it): facts that go
    with any advice, such as what the failing line held."""

    id: str
    phase: Phase
    detect: Callable[[Facts], Finding | None]
    scope: Scope = Scope()
    once: bool = False
    general: bool = True
    extra: bool = False

    @property
    def doc(self) -> str:
        """What mistake the rule catches and why its advice is right: its detect function's docstring."""
        return (self.detect.__doc__ or "").strip()
