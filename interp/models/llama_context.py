"""A GGUF loaded into a llama.cpp context, and what every use of it needs: the chat template, tokens, evaluation,
batches of tokens with their logits, Ctrl-C while llama.cpp runs, and the thread count.

Decoding a reply (llama.py), decoding several together (together.py), scoring options (scoring.py) and the saved
prefix state (prefix_cache.py) all work on this one context."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from interp.models.base import GenParams, Message, ModelError
from interp.models.gguf import display_name, read_metadata
from interp.models.llama_load import SEQUENCES, gpu_offload_supported, import_llama_cpp, load_params
from interp.models.speculate import MAX_DRAFT
from interp.models.threads import ThreadChooser, candidate_counts, default_threads

DEFAULT_CTX = 8192
# Used only for a GGUF that carries no chat template of its own.
CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class LlamaContext:
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
        self._llama_cpp = llama_cpp = import_llama_cpp()
        self.llm = _load(llama_cpp, self.path, self.n_ctx, self.n_threads, n_gpu_layers, progress)
        self._threads_in_use = self.n_threads
        # llama.cpp logs through this logger; at run time its lines (an abort, a cache trim) are noise in a REPL.
        logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL + 1)
        self._vocab = self.llm._model.vocab
        self._setup_template()
        self._piece_buf = ctypes.create_string_buffer(256)
        self._n_vocab = self.llm.n_vocab()
        from llama_cpp._internals import LlamaBatch

        self._batch = LlamaBatch(n_tokens=max(MAX_DRAFT + 1, SEQUENCES), embd=0, n_seq_max=1)
        # Ctrl-C must stop a long prompt evaluation inside llama_decode, where Python cannot raise: while a call
        # runs, SIGINT only sets this flag, which llama.cpp polls through its abort callback (CPU backend).
        self._interrupted = False
        self._abort_cb = llama_cpp.ggml_abort_callback(lambda _data: self._interrupted)
        self._watching = False

    def _watch_abort(self, on: bool) -> None:
        """llama.cpp asks the abort callback at every node of its graph: about a thousand times per token, a
        small share of a token's time (docs/models.md). A prompt evaluation needs it (for Ctrl-C);
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

    def _prompt(self, messages: list[Message], params: GenParams) -> list[int]:
        """The prompt's tokens: the messages' and the reply's opening."""
        tokens = self.tokens(messages)
        if params.opening:
            tokens += self.llm.tokenize(params.opening.encode("utf-8"), add_bos=False, special=False)
        return tokens

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

    def _use_threads(self, count: int) -> None:
        if count != self._threads_in_use:
            self._llama_cpp.llama_set_n_threads(self.llm._ctx.ctx, count, count)
            self._threads_in_use = count

    def close(self) -> None:
        self._batch.close()
        self.llm.close()


def _load(llama_cpp: Any, path: Path, n_ctx: int, n_threads: int, n_gpu_layers: int | None,
          progress: Callable[[float], None] | None) -> Any:
    """llama-cpp-python's Llama for the file (llama_load.load_params sets what its constructor does not expose); all
    layers on the GPU by default where llama.cpp can offload."""
    if n_gpu_layers is None:
        n_gpu_layers = -1 if gpu_offload_supported() else 0
    try:
        with load_params(llama_cpp, progress):
            return llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                                   n_gpu_layers=n_gpu_layers, verbose=False)
    except (ValueError, RuntimeError) as exc:
        raise ModelError(f"{path}: llama.cpp could not load it ({exc}); is the file complete?") from None
