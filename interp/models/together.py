"""Replies drawn together: several samples of one prompt decoded side by side, one token of each per batch.

On a CPU a batch of a few tokens costs little more than one (the weights are read once for all of them): on this
2-core machine, the 1.5B drew two, four and six replies of 120 tokens at temperature 0.8 in 1.26x, 1.29x and 1.46x
less time together than one after another (scripts/bench.py --together). Where interp draws new versions of a
function from the same prompt (fresh.py, choosing.py), it asks for several at once: the first streams as a reply
always does, the others are kept here, whole, and each later call with the same prompt and sampling gets one of them
at once instead of decoding it.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from interp.models.speculate import Sampling, sample

MOST = 8  # replies decoded together at most (the context's sequences)
KEEP = 2 * MOST  # replies kept for later calls at most, the newest
WHOLE_EVERY = 32  # tokens: a reply decoded unseen is asked whether it is whole at each new line and this often


@dataclass
class Drawn:
    """A reply decoded beside another, whole: its text, its tokens and why it ended."""

    text: str
    tokens: int
    stop_reason: str
    tokens_per_s: float  # the tokens of all the replies decoded together, over the seconds they took


@dataclass
class Kept:
    """The replies drawn beside a streamed one, each for the next call with the same prompt and sampling as it (its
    key). A draw for another prompt keeps them (the newest KEEP): choosing's asserts are drawn between versions of a
    function, and the versions decoded beside the one that passed the examples are the first ones it scores: were
    only the latest draw's kept, the draw of asserts (two decoded together) would drop them."""

    replies: list[tuple[tuple[object, ...], Drawn]] = field(default_factory=list)

    def waiting(self, key: tuple[object, ...]) -> bool:
        """Whether a reply is kept for this key."""
        return any(its == key for its, _ in self.replies)

    def take(self, key: tuple[object, ...]) -> Drawn | None:
        for i, (its, drawn) in enumerate(self.replies):
            if its == key:
                del self.replies[i]
                return drawn
        return None

    def put(self, replies: list[tuple[tuple[object, ...], Drawn]]) -> None:
        self.replies = [*self.replies, *replies][-KEEP:]


@dataclass
class Writing:
    """One of the replies being decoded together: its sampler's state, its text so far and, once it ends, why."""

    rng: np.random.Generator
    sampling: Sampling
    decoder: codecs.IncrementalDecoder = field(default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace"))
    text: str = ""
    tokens: int = 0
    newest: int = -1  # sampled, not yet in the cache
    ended: str = ""  # the stop reason once it has ended

    def add(self, piece: bytes, opening: str, whole: Callable[[str], str | None] | None, budget: int) -> str:
        """Takes the newest token's bytes; returns the text they add. Ends the reply when it is whole (`whole`, asked
        at each new line and every WHOLE_EVERY tokens) or has used its budget."""
        self.tokens += 1
        added = self.decoder.decode(piece)
        self.text += added
        asking = "\n" in added or self.tokens % WHOLE_EVERY == 0
        if whole is not None and asking and (reason := whole(opening + self.text)):
            self.ended = reason
        elif self.tokens >= budget:
            self.ended = "length"
        return added

    def drawn(self, tokens_per_s: float) -> Drawn:
        return Drawn(self.text + self.decoder.decode(b"", final=True), self.tokens, self.ended, tokens_per_s)


def writers(temperatures: list[float], seed: int | None) -> list[Writing]:
    """A reply at each temperature, each sampled with a generator of its own (from `seed` and its index when one is
    given)."""
    return [Writing(np.random.default_rng(None if seed is None else [seed, j]), Sampling(temperature))
            for j, temperature in enumerate(temperatures)]


def first_tokens(row: np.ndarray, writing: list[Writing]) -> None:
    """Each reply's first token, drawn from the prompt's last logits by the reply's own generator and sampling."""
    for w in writing:
        w.newest = sample(row, w.sampling, w.rng)
