"""A GGUF model run in-process by llama-cpp-python, with constant work per generated token."""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import logging
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from interp.events import ModelStats
from interp.models import prefix_cache, together
from interp.models.base import GenParams, Message, ModelError, StopReply
from interp.models.gguf import display_name, read_metadata
from interp.models.llama_load import gpu_offload_supported, import_llama_cpp, load_params
from interp.models.scoring import choose
from interp.models.speculate import MAX_DRAFT, DraftLength, Lookup, Sampling, sample, verify
from interp.models.threads import ThreadChooser, candidate_counts, default_threads

DEFAULT_CTX = 8192
# Used only for a GGUF that carries no chat template of its own.
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class LlamaModel:
    """One GGUF file loaded with llama.cpp. The chat template comes from the file; `name` (a catalog name) is how
    people see it, else the file's general.name."""

    def __init__(
        self,
        path: str | Path,
        *,
        name: str = "",
        n_ctx: int = 0,
        n_threads: int = 0,
        n_gpu_layers: int | None = None,
        progress: Callable[[float], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.metadata = read_metadata(self.path)
        arch = self.metadata.get("general.architecture", "")
        self.trained_ctx = int(self.metadata.get(f"{arch}.context_length") or DEFAULT_CTX)
        self.n_ctx = n_ctx or min(self.trained_ctx, DEFAULT_CTX)
        self.name = display_name(self.path, name, self.metadata)
        self.n_threads = n_threads or default_threads()
        # An explicit --threads is kept as given; by default the count follows measured token times.
        self.threads = ThreadChooser([n_threads] if n_threads else candidate_counts(self.n_threads))

        llama_cpp = import_llama_cpp()
        if n_gpu_layers is None:
            n_gpu_layers = -1 if gpu_offload_supported() else 0
        try:
            with load_params(llama_cpp, progress):
                self.llm = llama_cpp.Llama(
                    model_path=str(self.path),
                    n_ctx=self.n_ctx,
                    n_threads=self.n_threads,
                    n_threads_batch=self.n_threads,
                    n_gpu_layers=n_gpu_layers,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as exc:
            raise ModelError(f"{self.path}: llama.cpp could not load it ({exc}); is the file complete?") from None
        self._llama_cpp = llama_cpp
        self._threads_in_use = self.n_threads
        # llama.cpp logs through this logger; at run time its lines (an abort, a cache trim) are noise in a REPL.
        logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL + 1)
        self._vocab = self.llm._model.vocab
        self._setup_template()
        self._piece_buf = ctypes.create_string_buffer(256)
        self._n_vocab = self.llm.n_vocab()
        from llama_cpp._internals import LlamaBatch

        self._batch = LlamaBatch(n_tokens=max(MAX_DRAFT + 1, together.MOST), embd=0, n_seq_max=1)
        self._kept = together.Kept()
        # Ctrl-C must stop a long prompt evaluation inside llama_decode, where Python cannot raise: while a call
        # runs, SIGINT only sets this flag, which llama.cpp polls through its abort callback (CPU backend).
        self._interrupted = False
        self._abort_cb = llama_cpp.ggml_abort_callback(lambda _data: self._interrupted)
        self._watching = False

    def _watch_abort(self, on: bool) -> None:
        """llama.cpp asks the abort callback at every node of its graph: about a thousand times per token of the
        1.5B, a microsecond each through ctypes, 2% of a token's time. A prompt evaluation needs it (for Ctrl-C);
        one-token steps do not, as the token loop checks the flag between them."""
        if on != self._watching:
            callback = self._abort_cb if on else self._llama_cpp.ggml_abort_callback(0)  # 0: none
            self._llama_cpp.llama_set_abort_callback(self.llm._ctx.ctx, callback, None)
            self._watching = on

    def _setup_template(self) -> None:
        """The chat template (ChatML when the file has none) with the model's own BOS and EOS texts."""
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        inner = self.llm._model
        bos_id, eos_id = inner.token_bos(), inner.token_eos()
        self._bos_text = inner.token_get_text(bos_id) if bos_id >= 0 else ""
        eos_text = inner.token_get_text(eos_id) if eos_id >= 0 else ""
        self._add_bos = inner.add_bos_token() and bos_id >= 0
        self.chat_template = str(self.metadata.get("tokenizer.chat_template") or CHATML)
        self._format = Jinja2ChatFormatter(template=self.chat_template, eos_token=eos_text, bos_token=self._bos_text)

    def tokens(self, messages: list[Message]) -> list[int]:
        """The prompt for these messages as the model's tokens, ending with the assistant's turn opening."""
        chat: list[Any] = list(messages)  # llama_cpp types each role's message apart; ours carry role and content
        prompt = self._format(messages=chat).prompt
        add_bos = self._add_bos and not (self._bos_text and prompt.startswith(self._bos_text))
        return self.llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    def prefix_tokens(self, prefix: list[Message]) -> list[int]:
        """The tokens every prompt that starts with these messages starts with: what two prompts that differ only
        in a following user message share (the template decides where the prefix's text ends)."""
        a = self.tokens([*prefix, {"role": "user", "content": "a"}])
        b = self.tokens([*prefix, {"role": "user", "content": "Z"}])
        shared = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        return a[:shared]

    def warm(self, prefix: list[Message], folder: Path | None = None) -> str:
        """Gets the KV cache holding the fixed prefix (prefix_cache.warm): 'loaded', 'saved' or 'evaluated'."""
        return prefix_cache.warm(self, self.prefix_tokens(prefix), folder)

    def count_tokens(self, messages: list[Message]) -> int:
        return len(self.tokens(messages))

    def _piece(self, token: int) -> bytes:
        n = self._llama_cpp.llama_token_to_piece(self._vocab, token, self._piece_buf, len(self._piece_buf), 0, False)
        return self._piece_buf.raw[:n] if n > 0 else b""

    @contextlib.contextmanager
    def _sigint_as_flag(self) -> Iterator[None]:
        """While the model runs, Ctrl-C sets a flag (seen by llama.cpp and by the token loop) instead of raising."""
        self._interrupted = False
        self._watch_abort(True)
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def on_sigint(_signum: int, _frame: object) -> None:
            self._interrupted = True

        previous = signal.signal(signal.SIGINT, on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def _check_interrupt(self) -> None:
        if self._interrupted:
            self._interrupted = False
            raise KeyboardInterrupt

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        if params.opening:
            try:
                yield params.opening  # part of the prompt (_complete): shown at once, nothing to decode
            except StopReply:
                return ModelStats()
        with self._sigint_as_flag():
            try:
                return (yield from self._complete(messages, params))
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
        return room > 0 and self._kept.waiting((tuple(tokens), params.temperature, _budget(params, room)))

    def _prompt(self, messages: list[Message], params: GenParams) -> list[int]:
        """The prompt's tokens: the messages' and the reply's opening."""
        tokens = self.tokens(messages)
        if params.opening:
            tokens += self.llm.tokenize(params.opening.encode("utf-8"), add_bos=False, special=False)
        return tokens

    def _complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
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
        if (drawn := self._drawn(tokens, params, stats, budget, room)) is not None:
            return (yield from drawn)
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

    def _drawn(self, tokens: list[int], params: GenParams, stats: ModelStats, budget: int,
               room: int) -> Generator[str, None, ModelStats] | None:
        """A reply decoded earlier beside another for this prompt and sampling, taken whole whatever params.together;
        else replies decoded together when params.together or params.beside asks for them and they fit the cache the
        prompt leaves (each may need all of its budget); else None: the reply is decoded alone."""
        if params.temperature <= 0:
            return None
        if kept := self._kept.take((tuple(tokens), params.temperature, budget)):
            return _taken(kept, stats)
        wanted = [params.temperature, *params.beside] if params.beside else [params.temperature] * params.together
        temperatures = wanted[:min(together.MOST, room // budget)]
        return self._together(tokens, temperatures, params, stats, budget) if len(temperatures) > 1 else None

    def _together(self, tokens: list[int], temperatures: list[float], params: GenParams, stats: ModelStats,
                  budget: int) -> Generator[str, None, ModelStats]:
        """Decodes a reply at each temperature side by side (together.py), each in a sequence of its own that shares
        the prompt's cache: one token of each per batch. The first streams; the others stop where params.whole says
        they are whole, and each is kept for the next call with this prompt at its temperature unless params.deadline
        passes first."""
        llm, low = self.llm, self._llama_cpp
        started = time.perf_counter()
        self._evaluate(tokens, stats.cached_tokens)
        prompt = llm.n_tokens
        writing = together.writers(temperatures, params.seed)
        stats.together = len(writing)
        try:
            for sequence in range(1, len(writing)):
                low.llama_memory_seq_rm(llm._ctx.memory, sequence, -1, -1)
                low.llama_memory_seq_cp(llm._ctx.memory, 0, sequence, -1, -1)
            together.first_tokens(self._row(-1), writing)
            self._watch_abort(False)
            first = time.perf_counter()
            if not (yield from self._side_by_side(writing, params, prompt, budget)):
                return stats
            elapsed = time.perf_counter() - first
            tps = sum(w.tokens for w in writing) / elapsed if elapsed > 0 else 0.0
            self._kept.put([((tuple(tokens), w.sampling.temperature, budget), w.drawn(tps))
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

    def _side_by_side(self, writing: list[together.Writing], params: GenParams, prompt: int,
                      budget: int) -> Generator[str, None, bool]:
        """The steps of _together until every reply has ended; yields the first one's text. False when its consumer
        stopped it before it was whole (its time was up): then all of them end there."""
        shown = writing[0]
        while True:
            self._check_interrupt()
            for w in writing:
                if w.ended:
                    continue
                if not params.ignore_eos and self._llama_cpp.llama_vocab_is_eog(self._vocab, w.newest):
                    w.ended = "stop"
                    continue
                added = w.add(self._piece(w.newest), params.opening, None if w is shown else params.whole, budget)
                if w is shown and added:
                    try:
                        yield added
                    except StopReply:
                        whole = params.whole(params.opening + w.text) if params.whole else None
                        if not whole:
                            return False
                        w.ended = whole
                        w.decoder.reset()  # nothing more goes to a consumer that has what it wants
            if params.deadline and time.monotonic() >= params.deadline:
                for w in writing[1:]:
                    w.ended = w.ended or "time"
            live = [(j, w) for j, w in enumerate(writing) if not w.ended]
            if not live:
                return True
            self._decode_apart([(w.newest, prompt + w.tokens - 1, j) for j, w in live])
            for row, (_j, w) in enumerate(live):
                w.newest = sample(self._row(row), w.sampling, w.rng)

    def _evaluate(self, tokens: list[int], cached: int) -> None:
        """Evaluates the prompt past its first `cached` tokens, which the cache holds (all of it when the cache
        cannot be cut there)."""
        if cached <= 0 or not self.llm._ctx.kv_cache_seq_rm(-1, cached, -1):
            cached = 0
        self.llm.n_tokens = cached
        self.llm.eval(tokens[cached:])

    def _decode_apart(self, entries: list[tuple[int, int, int]]) -> None:
        """Evaluates one token for each of several sequences: (token, position, sequence), logits for each."""
        batch = self._batch.batch
        batch.n_tokens = len(entries)
        for i, (token, position, sequence) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.seq_id[i][0], batch.n_seq_id[i], batch.logits[i] = \
                token, position, sequence, 1, True
        self.llm._ctx.decode(self._batch)

    def _decode(self, batch: list[int]) -> None:
        """Evaluates tokens at the cache's end with logits for each of them."""
        n = self.llm.n_tokens
        self._batch.set_batch(batch, n, logits_all=True)
        self.llm._ctx.decode(self._batch)
        self.llm.input_ids[n:n + len(batch)] = batch
        self.llm.n_tokens = n + len(batch)

    def _row(self, index: int) -> np.ndarray:
        """The logits after the last batch's token `index` (-1: its last), as a view of llama.cpp's buffer."""
        pointer = self._llama_cpp.llama_get_logits_ith(self.llm._ctx.ctx, index)
        return np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))

    def choose(self, messages: list[Message], options: list[str]) -> int:
        """The index of the option the model finds likeliest as its reply's start (scoring.py)."""
        return choose(self, messages, options)

    def _use_threads(self, count: int) -> None:
        if count != self._threads_in_use:
            self._llama_cpp.llama_set_n_threads(self.llm._ctx.ctx, count, count)
            self._threads_in_use = count

    def close(self) -> None:
        self._batch.close()
        self.llm.close()


def _taken(drawn: together.Drawn, stats: ModelStats) -> Generator[str, None, ModelStats]:
    """A reply decoded earlier beside another (together.py), given whole: nothing to evaluate or decode."""
    stats.cached_tokens, stats.completion_tokens, stats.stop_reason = stats.prompt_tokens, drawn.tokens, \
        drawn.stop_reason
    stats.decode_tps, stats.kept = drawn.tokens_per_s, True
    with contextlib.suppress(StopReply):
        yield drawn.text
    return stats


def _budget(params: GenParams, room: int) -> int:
    """The most tokens a reply may have: params.max_tokens, within the room the prompt leaves (all of it for 0)."""
    return min(params.max_tokens, room) if params.max_tokens > 0 else room
