"""Every rule interp has, in the order the engine tries them within a phase."""

from __future__ import annotations

from interp.rules import errors, notes, replies
from interp.rules.base import Rule

RULES: list[Rule] = [*errors.RULES, *notes.RULES, *replies.RULES]


def by_id() -> dict[str, Rule]:
    """The rules by id."""
    return {rule.id: rule for rule in RULES}
