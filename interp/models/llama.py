"""A GGUF model run in-process by llama-cpp-python, with constant work per generated token."""

from __future__ import annotations

import codecs
import functools
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from interp.common.events import ModelStats
from interp.models import prefix_cache, scoring
from interp.models.base import NOTHING_AHEAD, Ahead, GenParams, Message, ModelError, StopReply, Together
from interp.models.llama_context import LlamaContext
from interp.models.speculate import DraftLength, Lookup, Sampling, sample, verify
from interp.models.together import SideBySide


class LlamaModel(LlamaContext):
    """A model (base.Model) on a GGUF loaded with llama.cpp (llama_context.py), which also decodes several replies of
    one prompt together (base.Together, together.py)."""

    @functools.cached_property
    def _beside(self) -> SideBySide:
        """The replies decoded together with this model's, and those kept for later calls."""
        return SideBySide(self)

    def warm(self, prefix: list[Message], folder: Path | None = None) -> str:
        """Gets the KV cache holding the fixed prefix (prefix_cache.warm): 'loaded', 'saved' or 'evaluated'."""
        return prefix_cache.warm(self, self.prefix_tokens(prefix), folder)

    def count_tokens(self, messages: list[Message]) -> int:
        return len(self.tokens(messages))

    def together(self) -> Together:
        """Replies decoded together (together.py): this model is its own service, its `complete` takes the replies
        asked for ahead."""
        return self

    def complete(self, messages: list[Message], params: GenParams,
                 ahead: Ahead = NOTHING_AHEAD) -> Generator[str, None, ModelStats]:
        """The reply, with `ahead`'s replies decoded beside it (together.py); one decoded earlier beside another for
        this prompt and sampling is given whole, whatever is asked ahead."""
        if params.opening:
            try:
                yield params.opening  # part of the prompt (_complete): shown at once, nothing to decode
            except StopReply:
                return ModelStats()
        with self._sigint_as_flag():
            try:
                return (yield from self._complete(messages, params, ahead))
            except RuntimeError:
                # llama_decode reports an abort as a failed call; the KV cache keeps what was evaluated before it.
                self._check_interrupt()
                raise

    def waiting(self, messages: list[Message], params: GenParams) -> bool:
        """Whether a reply decoded beside another is kept for this call (together.py): it would be taken at once."""
        if params.temperature <= 0:
            return False
        tokens = self._prompt(messages, params)
        room = self.n_ctx - len(tokens)
        return room > 0 and self._beside.kept.waiting((tuple(tokens), params.temperature, _budget(params, room)))

    def _complete(self, messages: list[Message], params: GenParams,
                  ahead: Ahead) -> Generator[str, None, ModelStats]:
        tokens = self._prompt(messages, params)
        room = self.n_ctx - len(tokens)
        if room <= 0:
            raise ModelError(f"the prompt ({len(tokens)} tokens) does not fit the context window ({self.n_ctx})")
        cached = 0
        for old, new in zip(self.llm._input_ids.tolist(), tokens, strict=False):
            if old != new:
                break
            cached += 1
        stats = ModelStats(prompt_tokens=len(tokens), cached_tokens=min(cached, len(tokens) - 1))
        budget = _budget(params, room)
        self.llm.set_seed(self._llama_cpp.LLAMA_DEFAULT_SEED if params.seed is None else params.seed)
        self._use_threads(self.threads.current)
        if (drawn := self._beside.reply(tokens, params, ahead, stats, budget, room)) is not None:
            return (yield from drawn)
        return (yield from self._alone(tokens, params, stats, budget))

    def _alone(self, tokens: list[int], params: GenParams, stats: ModelStats,
               budget: int) -> Generator[str, None, ModelStats]:
        """The reply decoded by itself: token by token, or with drafts (speculate.py) when sampled."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        is_eog = self._llama_cpp.llama_vocab_is_eog
        # Greedy decoding never speculates: a batch's logits are not bit-identical to one token's (speculate.py).
        steps = self._speculative(tokens, stats.cached_tokens, params, stats) \
            if params.speculative and params.temperature > 0 else (([token], 1) for token in self.llm.generate(
                tokens, temp=params.temperature, top_k=40, top_p=0.95, min_p=0.05, repeat_penalty=1.0))
        started = time.perf_counter()
        first = last = started
        stats.stop_reason = "length"
        for step, batch_size in steps:
            self._check_interrupt()
            now = time.perf_counter()
            if stats.completion_tokens == 0:
                first = now
                self._watch_abort(False)  # the prompt is evaluated; from here on, steps of one token or a few
            elif batch_size == 1:
                # Only one-token steps are timed for the thread choice: a batch's time says little about a token's.
                self._use_threads(self.threads.record(now - last))
            last = now
            if not (yield from self._emit(step, stats, decoder, is_eog if not params.ignore_eos else None, budget)):
                break
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail
        stats.ttft_s = first - started
        if stats.completion_tokens > 1 and last > first:
            stats.decode_tps = (stats.completion_tokens - 1) / (last - first)
        return stats

    def _emit(self, step: list[int], stats: ModelStats, decoder: codecs.IncrementalDecoder,
              is_eog: Callable[[Any, int], bool] | None, budget: int) -> Generator[str, None, bool]:
        """Yields the text of one step's tokens; returns whether the reply goes on."""
        for token in step:
            if is_eog is not None and is_eog(self._vocab, token):
                stats.stop_reason = "stop"
                return False
            stats.completion_tokens += 1
            text = decoder.decode(self._piece(token))
            if text:
                try:
                    yield text
                except StopReply:
                    return False
            if stats.completion_tokens >= budget:
                return False
        return True

    def _speculative(
        self, tokens: list[int], cached: int, params: GenParams, stats: ModelStats
    ) -> Iterator[tuple[list[int], int]]:
        """The reply's tokens in steps, each with the size of its batch: a step decodes the newest token with a draft
        looked up in earlier text and yields what the model accepted of it and its own next token (speculate.py)."""
        llm = self.llm
        self._evaluate(tokens, cached)
        sampling = Sampling(params.temperature)
        rng = np.random.default_rng(params.seed)
        lookup, length = Lookup(), DraftLength()
        lookup.extend(tokens)
        newest = sample(self._row(-1), sampling, rng)  # emitted, not yet in the cache
        yield [newest], 1
        lookup.extend([newest])
        while True:
            room = self.n_ctx - llm.n_tokens - 2
            most = min(length.allowed(), room)
            draft = lookup.propose(most) if most > 0 else []
            base = llm.n_tokens
            self._decode([newest, *draft])
            verdict = verify([self._row(j) for j in range(len(draft) + 1)], draft, sampling, rng)
            stats.draft_tokens += len(draft)
            stats.accepted_tokens += len(verdict.accepted)
            length.update(len(draft), len(verdict.accepted))
            emitted = [*verdict.accepted, verdict.next_token]
            # The cache keeps every emitted token but the newest, which the next step decodes.
            keep = base + len(emitted)
            llm.n_tokens = keep
            llm._ctx.kv_cache_seq_rm(-1, keep, -1)
            yield emitted, len(draft) + 1
            lookup.extend(emitted)
            newest = emitted[-1]

    def choose(self, messages: list[Message], options: list[str]) -> int:
        """The index of the option the model finds likeliest as its reply's start (scoring.py)."""
        return scoring.choose(self, messages, options)


def _budget(params: GenParams, room: int) -> int:
    """The most tokens a reply may have: params.max_tokens, within the room the prompt leaves (all of it for 0)."""
    return min(params.max_tokens, room) if params.max_tokens > 0 else room
