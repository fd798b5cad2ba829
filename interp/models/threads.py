"""How many threads llama.cpp decodes with, chosen from measured token times rather than guessed from the load.

llama.cpp's OpenMP threads spin at their barriers: on a quiet machine that is the fastest way to decode (passive waiting
decodes several times slower, docs/models.md), but when another process holds a core, spinning threads wait for a thread
that is not running and decode collapses, where one thread fewer keeps nearly full speed. No reading of the system load
tells which case a call is in (code left running in the kernel, a compile, a browser), so the chooser measures: it
decodes in short windows, tries the other thread counts now and then, and keeps whichever gave the fastest tokens
lately. A probe ends after two tokens when they ran clearly slower than the best known count (on a quiet machine one
thread fewer loses a little; a collapsed count loses several times over), and a count that keeps losing is probed less
and less often, so probing costs a small share of a short reply's decode time (docs/models.md). A probe that wins is
checked once: the count it displaced is measured again one window later, since the first tokens after a prompt decode
slower and can make a quiet machine's best count lose its first window.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import psutil

WINDOW = 8  # tokens per measurement
PROBE_EVERY = 16  # windows between probes of the other counts, at first
MAX_PROBE_EVERY = 256
ABANDON = 1.25  # a probe whose tokens average more than this many times the best estimate ends at once
ABANDON_AFTER = 2  # tokens of a probe timed before it can be ended (the first alone can carry the switch)
SMOOTHING = 0.5  # weight of a new window in the estimate of the count in use


def candidate_counts(cores: int) -> list[int]:
    """All cores first, then one fewer, then half: the counts worth trying when some cores may be taken."""
    return sorted({cores, max(cores - 1, 1), max(cores // 2, 1)}, reverse=True)


@dataclass
class ThreadChooser:
    """Fed the time of each decoded token; says which thread count to decode the next token with."""

    counts: list[int]
    seconds_per_token: dict[int, float] = field(default_factory=dict)
    current: int = 0
    probing: bool = False
    _window_tokens: int = 0
    _window_seconds: float = 0.0
    _since_probe: int = 0
    _probe_every: dict[int, int] = field(default_factory=dict)
    _confirm: int | None = None  # the count a probe just displaced: measured again after one window
    _home: int | None = None  # the count in use between probes

    def __post_init__(self) -> None:
        self.current = self.current or self.counts[0]
        self._probe_every = {n: PROBE_EVERY for n in self.counts}

    def best(self) -> int:
        known = {n: s for n, s in self.seconds_per_token.items() if n in self.counts}
        return min(known, key=known.__getitem__) if known else self.counts[0]

    def record(self, seconds: float) -> int:
        """One token took `seconds`; returns the count to use for the next one."""
        if len(self.counts) < 2:
            return self.current
        self._window_tokens += 1
        self._window_seconds += seconds
        abandon = self.probing and self._window_tokens >= ABANDON_AFTER and \
            self._window_seconds > ABANDON * self._window_tokens * self.seconds_per_token.get(self.best(), float("inf"))
        if self._window_tokens < WINDOW and not abandon:
            return self.current
        self._close_window()
        return self.current

    def _close_window(self) -> None:
        measured = self._window_seconds / self._window_tokens
        previous = self.seconds_per_token.get(self.current)
        # A probe replaces its count's estimate, which dates from an earlier probe and another load.
        self.seconds_per_token[self.current] = measured if previous is None or self.probing else \
            SMOOTHING * measured + (1 - SMOOTHING) * previous
        self._window_tokens, self._window_seconds = 0, 0.0
        if self.probing:
            self.probing = False
            lost = self.best() != self.current
            every = self._probe_every[self.current]
            self._probe_every[self.current] = min(every * 2, MAX_PROBE_EVERY) if lost else PROBE_EVERY
            if not lost:
                # A win can be the displaced count's bad window (the first tokens after a prompt run slower):
                # measure that count again soon rather than only after PROBE_EVERY windows.
                self._confirm = self._home
            self.current = self.best()
            return
        self.current = self._home = self.best()
        unmeasured = [n for n in self.counts if n not in self.seconds_per_token]
        self._since_probe += 1
        due = [n for n in self.counts if n != self.current and self._since_probe >= self._probe_every[n]]
        confirm = [self._confirm] if self._confirm not in (None, self.current) else []
        self._confirm = None
        probe = next(iter(unmeasured + confirm + due), None)
        if probe is not None:
            self._since_probe = 0
            self.current, self.probing = probe, True


def default_threads() -> int:
    """Physical cores: llama.cpp's threads spin-wait, so logical siblings add contention, not speed. The most threads
    a call uses; the chooser may use fewer while other processes take cores."""
    return psutil.cpu_count(logical=False) or psutil.cpu_count() or 1
