"""Constrained decisions on a llama.cpp model: each option scored by its log-probability as the start of the reply."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from interp.models.base import Message, ModelError

if TYPE_CHECKING:
    from interp.models.llama_context import LlamaContext


def choose(model: LlamaContext, messages: list[Message], options: list[str]) -> int:
    """Scores each option as the start of the reply by its log-probability (summed over its tokens) and returns the
    best one's index: the answer is one of the options by construction, never parsed from free text."""
    llm = model.llm
    prompt = model.tokens(messages)
    pieces = [llm.tokenize(option.encode("utf-8"), add_bos=False, special=False) for option in options]
    if len(prompt) + max(map(len, pieces)) >= model.n_ctx:
        raise ModelError(f"the prompt ({len(prompt)} tokens) does not fit the context window ({model.n_ctx})")
    model._use_threads(model.threads.current)
    with model._sigint_as_flag():
        try:
            after_prompt = _eval_logprobs(llm, prompt)
            scores = [_score(llm, len(prompt), after_prompt, tokens) for tokens in pieces]
        except RuntimeError:
            model._check_interrupt()
            raise
        finally:
            # The context's logits are now those after an option's tokens: leave the prompt's last token
            # unevaluated, so the next generation evaluates it again instead of sampling from stale logits.
            llm.n_tokens = max(min(llm.n_tokens, len(prompt) - 1), 0)
        model._check_interrupt()
    return max(range(len(options)), key=scores.__getitem__)


def _log_softmax(llm: Any) -> Any:
    logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
    top = logits.max()
    return logits - top - np.log(np.exp(logits - top).sum())


def _eval_logprobs(llm: Any, tokens: list[int]) -> Any:
    """Evaluates the tokens, reusing the cached prefix; the log-probabilities of the token after them."""
    cached = 0
    for old, new in zip(llm._input_ids.tolist(), tokens, strict=False):
        if old != new:
            break
        cached += 1
    llm.n_tokens = min(cached, len(tokens) - 1)  # the last token again at least: its logits are wanted
    llm.eval(tokens[llm.n_tokens:])
    return _log_softmax(llm)


def _score(llm: Any, prompt_length: int, after_prompt: Any, tokens: list[int]) -> float:
    total = float(after_prompt[tokens[0]])
    llm.n_tokens = prompt_length
    for previous, token in zip(tokens, tokens[1:], strict=False):
        llm.eval([previous])
        total += float(_log_softmax(llm)[token])
    return total
