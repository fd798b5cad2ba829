"""Every message after an error is bounded, whatever the hints it carries."""

from __future__ import annotations

from interp.prompts import HINT_CHARS, Prompts


def test_a_hint_past_the_budget_is_cut_and_a_short_one_is_whole() -> None:
    prompts = Prompts.load()
    long = prompts.feedback("", "NameError: x", hint="y" * (HINT_CHARS * 5))
    assert "y" * HINT_CHARS + " ..." in long and "y" * (HINT_CHARS + 1) not in long
    assert "short hint" in prompts.feedback("", "NameError: x", hint="short hint")
