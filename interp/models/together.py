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


@dataclass
class Drawn:
    """A reply decoded beside another, whole: its text, its tokens and why it ended."""

    text: str
    tokens: int
    stop_reason: str
    tokens_per_s: float  # the tokens of all the replies decoded together, over the seconds they took


@dataclass
class Kept:
    """The replies drawn beside a streamed one, for the next calls with the same prompt and sampling (`key`). Only the
    latest draw's are kept: a call for another prompt draws anew and drops them."""

    key: tuple[object, ...] = ()
    replies: list[Drawn] = field(default_factory=list)

    def take(self, key: tuple[object, ...]) -> Drawn | None:
        return self.replies.pop(0) if key == self.key and self.replies else None

    def put(self, key: tuple[object, ...], replies: list[Drawn]) -> None:
        self.key, self.replies = key, replies


@dataclass
class Writing:
    """One of the replies being decoded together: its sampler's state, its text so far and, once it ends, why."""

    rng: np.random.Generator
    decoder: codecs.IncrementalDecoder = field(default_factory=lambda: codecs.getincrementaldecoder("utf-8")("replace"))
    text: str = ""
    tokens: int = 0
    newest: int = -1  # sampled, not yet in the cache
    ended: str = ""  # the stop reason once it has ended

    def add(self, piece: bytes, opening: str, whole: Callable[[str], str | None] | None, budget: int) -> str:
        """Takes the newest token's bytes; returns the text they add. Ends the reply when it is whole (`whole`, asked
        at each new line) or has used its budget."""
        self.tokens += 1
        added = self.decoder.decode(piece)
        self.text += added
        if whole is not None and "\n" in added and (reason := whole(opening + self.text)):
            self.ended = reason
        elif self.tokens >= budget:
            self.ended = "length"
        return added

    def drawn(self, tokens_per_s: float) -> Drawn:
        return Drawn(self.text + self.decoder.decode(b"", final=True), self.tokens, self.ended, tokens_per_s)


def writers(count: int, seed: int | None) -> list[Writing]:
    """`count` replies, each sampled with a generator of its own (from `seed` and its index when one is given)."""
    return [Writing(np.random.default_rng(None if seed is None else [seed, j])) for j in range(count)]


def first_tokens(row: np.ndarray, writing: list[Writing], sampling: Sampling) -> None:
    """Each reply's first token, drawn from the prompt's last logits by the reply's own generator."""
    for w in writing:
        w.newest = sample(row, sampling, w.rng)
