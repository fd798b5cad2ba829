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
class Act:
    """What an on_reply rule asks the turn to do with the reply it fired on: the loop reads this, never the rule's
    id, so a new reply rule is its detect, its Act and its templates. `kind`: "nudge" asks once more with the rule's
    note, "answer" takes the reply as the turn's answer, "redraw" drops the reply and draws it again (its template is
    the notice). A nudge: `marks` the turn once ("nudged": an empty reply or a guess, "formed": the answer's parts asked
    for, "opened": asked for begun in the form), `opens` the next reply with the finding's `opening`, `unpreviews` (a
    small model's answer read off a text preview: the request is sent again without it), and `drops` the reply before
    its note for these variants of the finding (a guess a model would confirm if it kept it in view). A redraw:
    `unseen`, the second time drawn without the code in view; `doubts`, its note stands for the reply drawn again."""

    kind: Literal["nudge", "answer", "redraw"] = "redraw"
    marks: Literal["", "nudged", "formed", "opened"] = ""
    opens: bool = False
    unpreviews: bool = False
    drops: tuple[str, ...] = ()
    unseen: bool = False
    doubts: bool = False


@dataclass(frozen=True)
class Rule:
    """One piece of help. `detect` is pure: it reads `Facts` and returns a Finding or None. `once`: said at most once a
    turn. `extra`: said besides whichever rule of its phase fires first (`Engine.run(first=True)` neither stops before
    it nor counts it): facts that go with any advice, such as what the failing line held. `act`: what an on_reply
    rule asks the turn to do."""

    id: str
    phase: Phase
    detect: Callable[[Facts], Finding | None]
    scope: Scope = Scope()
    once: bool = False
    extra: bool = False
    act: Act | None = None

    @property
    def doc(self) -> str:
        """What mistake the rule catches and why its advice is right: its detect function's docstring."""
        return (self.detect.__doc__ or "").strip()
