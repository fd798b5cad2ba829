"""Decode speed: interp's model layer against llama-cpp-python's own loops, on one model, prompt and thread count.

    .venv/bin/python scripts/bench.py [--model PATH] [--tokens 2000] [--rounds 2]

Prints tokens/s for each loop and the ratios to llama-cpp-python's raw `generate()` loop measured in the same run.
Decode time runs from the first generated token to the last, so prompt evaluation is left out of every figure.
"""

from __future__ import annotations

import argparse
import statistics
import time

from interp.models.base import GenParams
from interp.models.default import default_model_path
from interp.models.llama import LlamaModel

MESSAGES = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Write a long story about a lighthouse keeper and a storm."},
]


def raw_generate(model: LlamaModel, tokens: list[int], n: int) -> float:
    """llama-cpp-python's generate() with the same sampler settings, tokens only: the floor for any loop."""
    model.llm.reset()
    count, first = 0, 0.0
    for _ in model.llm.generate(tokens, temp=0.0, top_k=40, top_p=0.95, min_p=0.05, repeat_penalty=1.0):
        count += 1
        if count == 1:
            first = time.perf_counter()
        if count >= n:
            break
    return (count - 1) / (time.perf_counter() - first)


def stream_completion(model: LlamaModel, prompt: str, n: int) -> float:
    """llama-cpp-python's create_completion(stream=True), the usual way to stream text (stops disabled)."""
    model.llm.reset()
    count, first = 0, 0.0
    for _ in model.llm.create_completion(prompt, max_tokens=n, temperature=0.0, top_k=40, top_p=0.95, min_p=0.05,
                                         repeat_penalty=1.0, stream=True, logit_bias={model.llm.token_eos(): -1e9}):
        count += 1
        if count == 1:
            first = time.perf_counter()
    return (count - 1) / (time.perf_counter() - first)


def interp_complete(model: LlamaModel, n: int) -> float:
    """interp's model layer: incremental UTF-8 detokenization, EOS checks, text pieces yielded."""
    model.llm.reset()
    stream = model.complete(MESSAGES, GenParams(max_tokens=n, temperature=0.0, ignore_eos=True))
    while True:
        try:
            next(stream)
        except StopIteration as stop:
            return stop.value.decode_tps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="GGUF file (default: the embedded SmolLM2-135M)")
    ap.add_argument("--tokens", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--skip-stream", action="store_true", help="leave out create_completion(stream=True)")
    args = ap.parse_args()

    model = LlamaModel(args.model or default_model_path(), n_ctx=args.tokens + 512, n_threads=args.threads,
                       n_gpu_layers=None)
    tokens = model.tokens(MESSAGES)
    prompt = model.llm.detokenize(tokens, special=True).decode("utf-8")
    print(f"model {model.name}, {model.n_threads} threads, prompt {len(tokens)} tokens, reply {args.tokens} tokens")

    loops = {"raw generate()": lambda: raw_generate(model, tokens, args.tokens),
             "interp complete()": lambda: interp_complete(model, args.tokens)}
    if not args.skip_stream:
        loops["create_completion(stream)"] = lambda: stream_completion(model, prompt, args.tokens)
    results: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(args.rounds):  # interleaved, so drift on a shared machine hits every loop alike
        for name, run in loops.items():
            results[name].append(run())

    base = statistics.median(results["raw generate()"])
    print(f"{'loop':28} {'tokens/s (median)':>18} {'runs':>24} {'ratio to raw':>13}")
    for name, values in results.items():
        median = statistics.median(values)
        runs = ", ".join(f"{v:.1f}" for v in values)
        print(f"{name:28} {median:18.1f} {runs:>24} {median / base:13.3f}")
    model.close()


if __name__ == "__main__":
    main()
