"""The help interp gives the model, as rules: each a small object with an id, a phase, a pure `detect` over facts
computed lazily, and a template in prompts/rules/. One engine runs a phase's rules in order and reports which fired.

Adding help is adding a rule to a module of this package and to `catalog.RULES`, its template under prompts/rules/,
and a table-driven test: the loop, the prompts and the policy do not change.
"""

from __future__ import annotations

from interp.rules.engine import Engine, Failed, Fired
from interp.rules.facts import Facts
from interp.rules.rule import Finding, Phase, Rule, Scope

__all__ = ["Engine", "Facts", "Failed", "Finding", "Fired", "Phase", "Rule", "Scope"]
