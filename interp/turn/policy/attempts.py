"""A turn's budget: failed steps in a row, replies whose code ran, and the same failure come back (stuck); and the
temperature each failure in a row raises."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from interp.common.events import Notice, TurnStatus
from interp.models.base import GenParams
from interp.turn.policy.actions import End

STUCK_REPEATS = 3  # the same code failing the same way this many times in a turn ends the turn
RETRY_TEMPERATURE_STEP = 0.2


def retry_params(base: GenParams, failures: int) -> GenParams:
    """Each failed attempt in a row raises the temperature, so a retry is not the same sample again. Speculative
    decoding (when `base` allows it) is for retries only: a repair re-types its block and decodes faster with
    drafts, while fresh replies, which drafts rarely match, decode slower (docs/models.md, scripts/bench.py --turns)."""
    if not failures:
        return replace(base, speculative=False)
    return replace(base, temperature=min(base.temperature + RETRY_TEMPERATURE_STEP * failures, 1.0))


@dataclass
class Attempts:
    """One turn's counts. `max_attempts`: failed steps in a row before the turn stops; `max_steps`: replies whose code
    ran, the versions of a function drawn apart (drawing.py bounds those); 0 means no limit for either. `failures`:
    failed steps in a row; `steps`: steps so far."""

    max_attempts: int = 3
    max_steps: int = 10
    failures: int = 0
    steps: int = 0
    _seen: dict[tuple[str, str], int] = field(default_factory=dict)  # each failure (code, error) and its count

    def count(self, failed: bool, failure: tuple[str, str] | None) -> int:
        """Counts a step; how many times in this turn its failure (what makes it the same again: the code and its
        error's last line) has come, this one included (0: the step left no failure standing)."""
        self.failures = self.failures + 1 if failed else 0
        self.steps += 1
        if not failed or failure is None:
            return 0
        self._seen[failure] = self._seen.get(failure, 0) + 1
        return self._seen[failure]

    @property
    def spent(self) -> bool:
        """The failures in a row reached max_attempts."""
        return bool(self.max_attempts) and self.failures >= self.max_attempts

    def stuck(self, repeats: int) -> End:
        """The same failing code came back STUCK_REPEATS times: the turn stops."""
        return End("stuck", Notice(f"The model wrote the same failing code {repeats} times; stopping.", "error"))

    def exhausted(self) -> End:
        """The failures in a row reached max_attempts: the turn stops."""
        return End("attempts", Notice(f"Stopped after {self.failures} failed attempts in a row "
                                      f"(--max-attempts {self.max_attempts}).", "error"))

    def bounded(self, drawn: int, status: TurnStatus) -> End | None:
        """The turn ends as it is once max_steps replies ran code, the `drawn` new versions apart; else None."""
        if self.max_steps and self.steps - drawn >= self.max_steps:
            return End(status, Notice(f"Stopped after {self.steps} code runs in this turn.", "warning"))
        return None
