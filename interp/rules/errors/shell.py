"""Rules for shell commands that failed."""

from __future__ import annotations

import re

from interp.rules.facts import Facts
from interp.rules.rule import Finding

_GREP = re.compile(r"(?:^|[|;&(]\s*|\s)grep\b")


def grep_none(facts: Facts) -> Finding | None:
    """For a shell command with grep that printed nothing and ended with exit status 1: grep's way of saying that no
    line matched, not a failure to fix (told only the status, a model sends `ls src/ | grep TODO` back unchanged)."""
    if (facts.error.strip() != "The command failed with exit status 1." or facts.output.strip()
            or not _GREP.search(facts.code)):
        return None
    return Finding()
