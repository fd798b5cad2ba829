"""Replies drawn together: several samples of one prompt decoded side by side, one token of each per batch.

On a CPU a batch of a few tokens costs little more than one (the weights are read once for all of them; docs/models.md,
scripts/bench.py --together). Where interp draws new versions of a function from the same prompt (fresh.py,
choosing.py), it asks for several at once: the first streams as a reply always does, the others are kept here, whole,
and each later call with the same prompt and sampling gets one of them at once instead of decoding it.

This is the llama.cpp model's Together service (models/base.py): a call says, with an Ahead, which replies the loop
may ask for next, and decoding them in llama.cpp's batches is this module's business; a model that cannot decode
replies together is asked for each reply alone instead.
"""

from __future__ import annotations

import codecs
import contextlib
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field

import numpy as np

from interp.common.events import ModelStats
from interp.models.base import Ahead, GenParams, StopReply
from interp.models.llama_context import LlamaContext
from interp.models.llama_load import SEQUENCES
from interp.models.speculate import Sampling, sample

KEEP = 2 * SEQUENCES  # replies kept for later calls at most, the newest
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



class SideBySide:
    """A llama.cpp model's replies decoded together: the ones kept for later calls, and the decoding of new ones in
    sequences of their own beside the one streamed."""

    def __init__(self, model: LlamaContext) -> None:
        self.model = model
        self.kept = Kept()

    def reply(self, tokens: list[int], params: GenParams, ahead: Ahead, stats: ModelStats, budget: int,
              room: int) -> Generator[str, None, ModelStats] | None:
        """A reply decoded earlier beside another for this prompt and sampling, taken whole whatever is asked ahead;
        else replies decoded together when `ahead` asks for them and they fit the cache the prompt leaves (each may
        need all of its budget); else None: the reply is decoded alone."""
        if params.temperature <= 0:
            return None
        if kept := self.kept.take((tuple(tokens), params.temperature, budget)):
            return _taken(kept, stats)
        wanted = [params.temperature, *ahead.beside] if ahead.beside else [params.temperature] * ahead.together
        temperatures = wanted[:min(SEQUENCES, room // budget)]
        return self._together(tokens, temperatures, params, ahead, stats, budget) if len(temperatures) > 1 else None

    def _together(self, tokens: list[int], temperatures: list[float], params: GenParams, ahead: Ahead,
                  stats: ModelStats, budget: int) -> Generator[str, None, ModelStats]:
        """Decodes a reply at each temperature side by side, each in a sequence of its own that shares the prompt's
        cache: one token of each per batch. The first streams; the others stop where ahead.whole says they are
        whole, and each is kept for the next call with this prompt at its temperature unless ahead.deadline passes
        first."""
        model = self.model
        llm, low = model.llm, model._llama_cpp
        started = time.perf_counter()
        model._evaluate(tokens, stats.cached_tokens)
        prompt = llm.n_tokens
        writing = writers(temperatures, params.seed)
        stats.together = len(writing)
        try:
            for sequence in range(1, len(writing)):
                low.llama_memory_seq_rm(llm._ctx.memory, sequence, -1, -1)
                low.llama_memory_seq_cp(llm._ctx.memory, 0, sequence, -1, -1)
            first_tokens(model._row(-1), writing)
            model._watch_abort(False)
            first = time.perf_counter()
            if not (yield from self._side_by_side(writing, params, ahead, prompt, budget)):
                return stats
            elapsed = time.perf_counter() - first
            tps = sum(w.tokens for w in writing) / elapsed if elapsed > 0 else 0.0
            self.kept.put([((tuple(tokens), w.sampling.temperature, budget), w.drawn(tps))
                           for w in writing[1:] if w.ended != "time"])
            shown = writing[0]
            tail = shown.decoder.decode(b"", final=True)
            if tail:
                yield tail
            stats.completion_tokens, stats.stop_reason = shown.tokens, shown.ended
            stats.ttft_s, stats.decode_tps = first - started, tps
            return stats
        finally:
            # The cache keeps the prompt but its last token: the replies' batches replaced the logits it gave, so a
            # next call with this prompt evaluates it again (llama-cpp-python's generate() would sample from them).
            for sequence in range(1, len(writing)):
                low.llama_memory_seq_rm(llm._ctx.memory, sequence, -1, -1)
            llm._ctx.kv_cache_seq_rm(-1, prompt - 1, -1)
            llm.n_tokens = prompt - 1

    def _side_by_side(self, writing: list[Writing], params: GenParams, ahead: Ahead, prompt: int,
                      budget: int) -> Generator[str, None, bool]:
        """The steps of _together until every reply has ended; yields the first one's text. False when its consumer
        stopped it before it was whole (its time was up): then all of them end there."""
        model, shown = self.model, writing[0]
        while True:
            model._check_interrupt()
            for w in writing:
                if w.ended:
                    continue
                if not params.ignore_eos and model._llama_cpp.llama_vocab_is_eog(model._vocab, w.newest):
                    w.ended = "stop"
                    continue
                added = w.add(model._piece(w.newest), params.opening, None if w is shown else ahead.whole, budget)
                if w is shown and added:
                    try:
                        yield added
                    except StopReply:
                        whole = ahead.whole(params.opening + w.text) if ahead.whole else None
                        if not whole:
                            return False
                        w.ended = whole
                        w.decoder.reset()  # nothing more goes to a consumer that has what it wants
            if ahead.deadline and time.monotonic() >= ahead.deadline:
                for w in writing[1:]:
                    w.ended = w.ended or "time"
            live = [(j, w) for j, w in enumerate(writing) if not w.ended]
            if not live:
                return True
            model._decode_apart([(w.newest, prompt + w.tokens - 1, j) for j, w in live])
            for row, (_j, w) in enumerate(live):
                w.newest = sample(model._row(row), w.sampling, w.rng)

def _taken(drawn: Drawn, stats: ModelStats) -> Generator[str, None, ModelStats]:
    """A reply decoded earlier beside another, given whole: nothing to evaluate or decode."""
    stats.cached_tokens, stats.completion_tokens, stats.stop_reason = stats.prompt_tokens, drawn.tokens, \
        drawn.stop_reason
    stats.decode_tps, stats.kept = drawn.tokens_per_s, True
    with contextlib.suppress(StopReply):
        yield drawn.text
    return stats
