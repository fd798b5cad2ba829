"""The schedule for drawing new versions of a function from the request alone (fresh.py): how many, until when, how
many decoded together, and which one the turn keeps when none passed."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from interp.common.events import Notice
from interp.models.base import GenParams
from interp.turn.policy.actions import End
from interp.versions.examples import definitions

DRAW_GRACE = 5.0  # seconds past draw_seconds a version being drawn (or asserts asked for, choosing.py) may still write
TOGETHER = 4  # new versions of a function decoded together (models/together.py)
TOGETHER_SECONDS = 15.0  # with less of draw_seconds left, a new version is decoded alone


def opened(params: GenParams, opening: str) -> GenParams:
    """The params of a reply that begins with `opening` (examples.opening): it writes only new text, which drafts copied
    from earlier text rarely match, so it decodes a token at a time (drafts that are mostly rejected cost more time
    than they save)."""
    return replace(params, opening=opening, speculative=params.speculative and not opening)


@dataclass
class Drawing:
    """`candidates`: new versions drawn from the request alone after a function fails one of the request's examples,
    or its code fails (fresh.py); such a failure does not end the turn while versions are left. `draw_seconds`: no new
    version is drawn once the turn has run this long (0: no limit); `clock` tells how long it has run; `waiting`
    whether a version decoded beside the last one drawn is there to take (models/together.py), which is tried even
    then, until DRAW_GRACE more seconds are over."""

    candidates: int = 0
    draw_seconds: float = 0
    clock: Callable[[], float] = time.monotonic
    waiting: Callable[[], bool] = lambda: False
    drawn: int = 0  # new versions drawn after a failed example or a function that did not parse
    active: bool = False  # a new version is being drawn now
    failure: str | None = None  # the standing failure sets the function aside (fresh.py): the example or the error
    on_example: bool = False  # it is the request's example's
    versions: list[tuple[int, str]] = field(default_factory=list)  # each function the examples ran on: passed, code
    _started: float = field(init=False)

    def __post_init__(self) -> None:
        self._started = self.clock()

    def set_aside(self, failure: str | None, on_example: bool) -> None:
        """A step failed: `failure` is what a new version would be drawn for, the example the function failed or its
        code's error (None: an error repaired in view); `on_example`, the request's example's."""
        self.failure, self.on_example = failure, on_example

    def scored(self, passed: int, code: str) -> None:
        """The request's examples ran on a version of the function (`code`, the step's clean code): `passed` of their
        values came out right."""
        self.versions.append((passed, code))

    def next(self, failed: bool) -> bool:
        """After a step: whether the next reply is a new version (`active`, counted in `drawn`). Whether the time to
        draw it was up (late)."""
        to_draw = failed and self.failure is not None and self.drawn < self.candidates
        # A version already decoded beside the last one costs no time to take, so it is tried even past
        # draw_seconds: a turn that ends with such versions untried gives up chances it has paid for. Not once
        # DRAW_GRACE is over too: its examples may still run for up to execution.CHECKS_SECONDS each (a version
        # that loops on them holds the turn that long).
        late = to_draw and self.past() and not (self.waiting() and not self.past(DRAW_GRACE))
        self.active = to_draw and not late
        self.drawn += self.active
        return late

    @property
    def sets_aside(self) -> bool:
        """The standing failure is one a new version is drawn for: a version failing the same way again is one draw
        spent, not a stuck turn (candidates and draw_seconds bound those)."""
        return self.failure is not None and bool(self.candidates)

    def spent(self, late: bool) -> End:
        """No version passed and no more are drawn: the candidates are spent, or the time to draw more was up."""
        limit = (f"--draw-seconds {self.draw_seconds:g}: the time to draw more was up" if late
                 else f"--candidates {self.candidates}")
        return End("attempts", Notice(f"None of the {self.drawn + 1} versions of the function gave every value the "
                                      f"request's examples show ({limit}).", "error"))

    def best_version(self) -> str | None:
        """At the end of a turn that drew new versions of a function and kept none (fresh.py): the imports and
        definitions of the version that gave the most of the request's example values, the earliest of equals, when it
        is not the one defined last; else None. Drawn at a higher temperature, a later version is not a better guess for
        failing too: the example may be what is wrong, and then the first version may be right."""
        if not self.drawn or len(self.versions) < 2:
            return None
        best = max(range(len(self.versions)), key=lambda i: (self.versions[i][0], -i))
        return None if best == len(self.versions) - 1 else definitions(self.versions[best][1])

    def elapsed(self) -> float:
        """How long the turn has run, by its clock."""
        return self.clock() - self._started

    def past(self, grace: float = 0.0) -> bool:
        """The turn has run draw_seconds and `grace` seconds more (never when draw_seconds is 0, no limit)."""
        return bool(self.draw_seconds) and self.elapsed() >= self.draw_seconds + grace

    def together(self, wanted: int) -> int:
        """How many new versions to decode together (models/together.py) when `wanted` more may be drawn: TOGETHER
        at most, and one once less than TOGETHER_SECONDS of draw_seconds are left (four decoded together took about
        three times as long as one, bench.py --together, and those not done when the version being drawn is cut are
        given up)."""
        if self.draw_seconds and self.draw_seconds - self.elapsed() < TOGETHER_SECONDS:
            return 1
        return max(min(TOGETHER, wanted), 1)

    def seconds_left(self) -> float:
        """Seconds until a version being drawn would be cut (overdue); 0 when never (no draw_seconds)."""
        return max(self.draw_seconds + DRAW_GRACE - self.elapsed(), 0.001) if self.draw_seconds else 0.0

    def overdue(self) -> bool:
        """A new version is being drawn and the turn has run DRAW_GRACE seconds past draw_seconds: the reply is cut
        (a version that enumerates cases, `if n == 2`, `if n == 3`, ..., can go on until its tokens run out)."""
        return self.active and self.past(DRAW_GRACE)

    def cut(self) -> End:
        """The version being drawn was cut (overdue): the turn ends with the versions it has (best_version)."""
        self.active = False
        return End("attempts", Notice(f"The version of the function being drawn ({self.drawn} of {self.candidates}) "
                                      f"was still being written {DRAW_GRACE:g} s after --draw-seconds "
                                      f"{self.draw_seconds:g}: it was cut, and the turn ends with the versions it has.",
                                      "error"))
