"""Runs a phase's rules in order over one moment's facts, and reports which fired."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from string import Template

from interp.rules.facts import Facts
from interp.rules.rule import Act, Finding, Phase, Rule


@dataclass(frozen=True)
class Failed:
    """A rule that raised instead of answering: skipped, and journaled (`rule_failed`), so that the worst a broken
    rule may do is not help."""

    rule: str
    phase: Phase
    error: str
    kind = "rule_failed"

    def record(self) -> dict[str, object]:
        """The journal's `rule_failed` record."""
        return {"rule": self.rule, "phase": self.phase, "error": self.error}


@dataclass(frozen=True)
class Fired:
    """A rule that fired: its id, its phase, what it found and the text the model is told."""

    rule: str
    phase: Phase
    finding: Finding
    text: str
    act: Act | None = None  # an on_reply rule's: what the turn does with the reply
    kind = "rule_fired"

    def record(self) -> dict[str, object]:
        """The journal's `rule_fired` record."""
        values = {key: str(value) for key, value in self.finding.values.items()}
        return {"rule": self.rule, "phase": self.phase, "variant": self.finding.variant, "finding": values}


class Engine:
    """The rules of one session. `without`: rule ids left out (the eval's ablations); `small`: the model is a small one
    (rules scoped to small models apply)."""

    def __init__(self, rules: Sequence[Rule], templates: Mapping[str, Template], without: Collection[str] = (),
                 small: bool = False) -> None:
        unknown = set(without) - {rule.id for rule in rules}
        if unknown:
            raise ValueError(f"no such rule: {', '.join(sorted(unknown))}")
        self.rules = [rule for rule in rules if rule.id not in without]
        self.templates = templates
        self.small = small
        self._said: set[str] = set()
        self._fired: list[Fired | Failed] = []

    def start_turn(self) -> None:
        """A new turn: once-a-turn rules may fire again."""
        self._said.clear()

    def run(self, phase: Phase, facts: Facts, first: bool = False) -> list[Fired]:
        """The rules of `phase` that fire on `facts`, in order; with `first`, the first alone (and the `extra` ones).
        A rule that raises is skipped (Failed, in what `drain` gives) and the others go on."""
        found: list[Fired] = []
        taken = False
        for rule in self.rules:
            if rule.phase != phase or (taken and not rule.extra) or (rule.once and rule.id in self._said):
                continue
            try:
                fired = self._try(rule, phase, facts)
            except Exception as exc:  # noqa: BLE001 - help must never end a session, whatever its facts
                self._fired.append(Failed(rule.id, phase, f"{type(exc).__name__}: {str(exc)[:300]}"))
                continue
            if fired is None:
                continue
            self._said.add(rule.id)
            found.append(fired)
            taken = first and (taken or not rule.extra)
        self._fired.extend(found)
        return found

    def _try(self, rule: Rule, phase: Phase, facts: Facts) -> Fired | None:
        if not self._applies(rule, facts):
            return None
        finding = rule.detect(facts)
        return None if finding is None else Fired(rule.id, phase, finding, self.render(rule.id, finding), rule.act)

    def render(self, rule: str, finding: Finding) -> str:
        """The text of a finding: its rule's template (its variant's), filled with its values; a template that ends
        in a value left empty ends where its text does. A value that starts the text keeps its own spaces."""
        key = f"{rule}.{finding.variant}" if finding.variant else rule
        return self.templates[key].safe_substitute({k: str(v) for k, v in finding.values.items()}).rstrip()

    def drain(self) -> list[Fired | Failed]:
        """The rules that fired (or failed) since the last call, for the loop to journal (each as its `kind`) and
        show."""
        fired, self._fired = self._fired, []
        return fired

    def _applies(self, rule: Rule, facts: Facts) -> bool:
        scope = rule.scope
        return ((not scope.languages or facts.language in scope.languages) and (self.small or not scope.small)
                and all(facts.importable(module) for module in scope.libraries))
