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
import psutil

from interp.events import ModelStats
from interp.models.base import GenParams, Message, ModelError, StopReply
from interp.models.gguf import read_metadata
from interp.models.threads import ThreadChooser, candidate_counts

DEFAULT_CTX = 8192
# Used only for a GGUF that carries no chat template of its own.
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def import_llama_cpp() -> Any:
    """Imports llama_cpp. OpenMP's default wait policy (spin, then sleep) is kept: passive waiting cost 3x in decode
    speed on a quiet machine; the collapse that spinning threads suffer when another process holds a core is
    avoided by choosing the thread count from measured token times (threads.py)."""
    import llama_cpp

    return llama_cpp


def cpu_has_amx() -> bool:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            return any(line.startswith("flags") and " amx_int8" in line for line in f)
    except OSError:
        return False


@contextlib.contextmanager
def load_params(llama_cpp: Any, progress: Callable[[float], None] | None) -> Iterator[None]:
    """Sets model-load parameters that llama-cpp-python's Llama() does not expose, by wrapping its defaults while
    it loads: a progress callback, and on CPUs with AMX no extra buffer types (llama.cpp's AMX matmul, reached
    through them, segfaulted on the first multi-token batch of the embedded model on an Intel Xeon with AMX,
    llama-cpp-python 0.3.36)."""
    low = llama_cpp.llama_cpp
    original = low.llama_model_default_params
    callback = None
    if progress is not None:

        def report(fraction: float, _data: object) -> bool:
            progress(fraction)
            return True

        callback = low.llama_progress_callback(report)

    def params() -> Any:
        p = original()
        if cpu_has_amx():
            p.use_extra_bufts = False
        if callback is not None:
            p.progress_callback = callback
        return p

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = original


def default_threads() -> int:
    """Physical cores: llama.cpp's threads spin-wait, so logical siblings add contention, not speed. The most threads
    a call uses; the chooser may use fewer while other processes take cores."""
    return psutil.cpu_count(logical=False) or psutil.cpu_count() or 1


def gpu_offload_supported() -> bool:
    return bool(import_llama_cpp().llama_supports_gpu_offload())


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
        self.name = name or str(self.metadata.get("general.name") or self.path.stem)
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
        # Ctrl-C must stop a long prompt evaluation inside llama_decode, where Python cannot raise: while a call
        # runs, SIGINT only sets this flag, which llama.cpp polls through its abort callback (CPU backend).
        self._interrupted = False
        self._abort_cb = llama_cpp.ggml_abort_callback(lambda _data: self._interrupted)
        llama_cpp.llama_set_abort_callback(self.llm._ctx.ctx, self._abort_cb, None)

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

    def count_tokens(self, messages: list[Message]) -> int:
        return len(self.tokens(messages))

    def _piece(self, token: int) -> bytes:
        n = self._llama_cpp.llama_token_to_piece(self._vocab, token, self._piece_buf, len(self._piece_buf), 0, False)
        return self._piece_buf.raw[:n] if n > 0 else b""

    @contextlib.contextmanager
    def _sigint_as_flag(self) -> Iterator[None]:
        """While the model runs, Ctrl-C sets a flag (seen by llama.cpp and by the token loop) instead of raising."""
        self._interrupted = False
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
        with self._sigint_as_flag():
            try:
                return (yield from self._complete(messages, params))
            except RuntimeError:
                # llama_decode reports an abort as a failed call; the KV cache keeps what was evaluated before it.
                self._check_interrupt()
                raise

    def _complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        tokens = self.tokens(messages)
        room = self.n_ctx - len(tokens)
        if room <= 0:
            raise ModelError(f"the prompt ({len(tokens)} tokens) does not fit the context window ({self.n_ctx})")
        cached = 0
        for old, new in zip(self.llm._input_ids.tolist(), tokens, strict=False):
            if old != new:
                break
            cached += 1
        stats = ModelStats(prompt_tokens=len(tokens), cached_tokens=min(cached, len(tokens) - 1))
        budget = min(params.max_tokens, room) if params.max_tokens > 0 else room
        self.llm.set_seed(self._llama_cpp.LLAMA_DEFAULT_SEED if params.seed is None else params.seed)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        is_eog = self._llama_cpp.llama_vocab_is_eog
        self._use_threads(self.threads.current)
        started = time.perf_counter()
        first = last = started
        stats.stop_reason = "length"
        for token in self.llm.generate(
            tokens, temp=params.temperature, top_k=40, top_p=0.95, min_p=0.05, repeat_penalty=1.0
        ):
            self._check_interrupt()
            now = time.perf_counter()
            if stats.completion_tokens == 0:
                first = now
            else:
                self._use_threads(self.threads.record(now - last))
            if not params.ignore_eos and is_eog(self._vocab, token):
                stats.stop_reason = "stop"
                break
            last = now
            stats.completion_tokens += 1
            text = decoder.decode(self._piece(token))
            if text:
                try:
                    yield text
                except StopReply:
                    break
            if stats.completion_tokens >= budget:
                break
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail
        stats.ttft_s = first - started
        if stats.completion_tokens > 1 and last > first:
            stats.decode_tps = (stats.completion_tokens - 1) / (last - first)
        return stats

    def choose(self, messages: list[Message], options: list[str]) -> int:
        """Scores each option as the start of the reply by its log-probability (summed over its tokens) and returns
        the best one's index: the answer is one of the options by construction, never parsed from free text."""
        prompt = self.tokens(messages)
        pieces = [self.llm.tokenize(option.encode("utf-8"), add_bos=False, special=False) for option in options]
        if len(prompt) + max(map(len, pieces)) >= self.n_ctx:
            raise ModelError(f"the prompt ({len(prompt)} tokens) does not fit the context window ({self.n_ctx})")
        self._use_threads(self.threads.current)
        with self._sigint_as_flag():
            try:
                after_prompt = self._eval_logprobs(prompt)
                scores = [self._score(len(prompt), after_prompt, tokens) for tokens in pieces]
            except RuntimeError:
                self._check_interrupt()
                raise
            finally:
                # The context's logits are now those after an option's tokens: leave the prompt's last token
                # unevaluated, so the next generation evaluates it again instead of sampling from stale logits.
                self.llm.n_tokens = max(min(self.llm.n_tokens, len(prompt) - 1), 0)
            self._check_interrupt()
        return max(range(len(options)), key=scores.__getitem__)

    def _eval_logprobs(self, tokens: list[int]) -> Any:
        """Evaluates the tokens, reusing the cached prefix; the log-probabilities of the token after them."""
        cached = 0
        for old, new in zip(self.llm._input_ids.tolist(), tokens, strict=False):
            if old != new:
                break
            cached += 1
        self.llm.n_tokens = min(cached, len(tokens) - 1)  # the last token again at least: its logits are wanted
        self.llm.eval(tokens[self.llm.n_tokens:])
        logits = np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.llm.n_vocab(),)).astype(np.float64)
        top = logits.max()
        return logits - top - np.log(np.exp(logits - top).sum())

    def _score(self, prompt_length: int, after_prompt: Any, tokens: list[int]) -> float:
        total = float(after_prompt[tokens[0]])
        self.llm.n_tokens = prompt_length
        for previous, token in zip(tokens, tokens[1:], strict=False):
            self.llm.eval([previous])
            logits = np.ctypeslib.as_array(self.llm._ctx.get_logits(), shape=(self.llm.n_vocab(),))
            top = float(logits.max())
            total += float(logits[token]) - top - float(np.log(np.exp(logits.astype(np.float64) - top).sum()))
        return total

    def _use_threads(self, count: int) -> None:
        if count != self._threads_in_use:
            self._llama_cpp.llama_set_n_threads(self.llm._ctx.ctx, count, count)
            self._threads_in_use = count

    def close(self) -> None:
        self.llm.close()
