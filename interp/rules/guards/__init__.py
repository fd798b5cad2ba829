"""The rules of the phase "before_run": read the code about to run, and when one fires the code is not run. The model
is told the rule's text as the run's failure, which counts as an attempt; the user gets one line."""

from __future__ import annotations

from interp.rules.guards import writes
from interp.rules.rule import Rule, Scope

RULES: list[Rule] = [
    Rule("writes_over_source", "before_run", writes.writes_over_source, Scope(languages=("python", "shell"))),
]
