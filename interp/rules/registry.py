"""Every rule interp has, in the order the engine tries them within a phase."""

from __future__ import annotations

from interp.rules import errors, guards, notes, replies
from interp.rules.rule import Rule

RULES: list[Rule] = [*guards.RULES, *errors.RULES, *notes.RULES, *replies.RULES]


def unknown(without: tuple[str, ...] | list[str]) -> list[str]:
    """The ids among `without` (each item may join several with commas) that name no rule."""
    known = {rule.id for rule in RULES}
    return sorted({part for item in without for part in item.split(",") if part and part not in known})


def by_id() -> dict[str, Rule]:
    """The rules by id."""
    return {rule.id: rule for rule in RULES}
