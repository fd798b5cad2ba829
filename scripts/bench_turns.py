"""What a user waits for, on one model, all in one run so every ratio compares like with like:

1. time from `interp` to a prompt that takes input, and to a ready model, cold (no saved prefix state) and warm;
2. time to first token of a session's first request, with the prefix's saved state loaded and without;
3. decode speed with speculative decoding on and off, on a repair turn (the model re-types a 40-line block with one
   line changed) and on a fresh-code turn, at interp's default temperature and at a first retry's (greedy decoding
   does not speculate).

    .venv/bin/python scripts/bench.py --turns [--model NAME] [--rounds 3] [--sections start,ttft,speculative]
                                      [--temperatures 0.2,0.4]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from interp.models import model_path
from interp.models.base import GenParams, complete_text
from interp.models.llama import LlamaModel
from interp.models.store import models_dir
from interp.prompts import Prompts, profile

REPAIR_BLOCK = '''import csv
from collections import defaultdict
from dataclasses import dataclass


@dataclass
class Item:
    name: str
    category: str
    quantity: int
    price: float


def load_items(path):
    items = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            items.append(Item(row["name"], row["category"], int(row["quantity"]), float(row["price"])))
    return items


def totals_by_category(items):
    totals = defaultdict(float)
    for item in items:
        totals[item.category] += item.quantity * item.price
    return dict(totals)


def low_stock(items, threshold=5):
    return [item.name for item in items if item.quantity < threshold]


def report(path):
    items = load_items(path)
    totals = totals_by_category(items)
    for category, total in sorted(totals.items()):
        print(f"{category:12} {total:10.2f}")
    print("low stock:", ", ".join(low_stock(items)) or "none")
    print("items:", len(items))


report("inventory.csv")'''
REPAIR_ERROR = "FileNotFoundError: [Errno 2] No such file or directory: 'inventory.csv'"
REPAIR_ASK = ("The file is named stock.csv, not inventory.csv. Change only that line and reply with the whole "
              "corrected code block.")
FRESH_ASK = ("Write a Python script that reads a log file app.log, counts the lines per log level (INFO, WARNING, "
             "ERROR), finds the ten most common error messages, and prints a small report with percentages.")


def _messages(prompts: Prompts, repair: bool) -> list[dict[str, str]]:
    if not repair:
        return [*prompts.prefix(), {"role": "user", "content": FRESH_ASK}]
    return [*prompts.prefix(),
            {"role": "user", "content": "Print a stock report per category from inventory.csv."},
            {"role": "assistant", "content": f"```python\n{REPAIR_BLOCK}\n```"},
            {"role": "user", "content": f"{prompts.feedback('', REPAIR_ERROR)}\n\n{REPAIR_ASK}"}]


def startup_times(spec: str | None, rounds: int) -> None:
    """`interp` in a pseudo-terminal: seconds until the prompt is drawn, and until the model is ready (`%model`,
    typed at once, waits for the model and the kernel like a request). Cold: an empty cache folder (no prefix state;
    the model file itself is shared); warm: the same folder again."""
    import pexpect

    print("\nstart to prompt and to a ready model (s), median of", rounds)
    figures: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
    for _ in range(rounds):
        cache = tempfile.mkdtemp(prefix="interp-bench-cache-")
        env = {**os.environ, "XDG_CACHE_HOME": cache, "INTERP_MODELS_DIR": str(models_dir()),
               "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1"}
        env.pop("INTERP_MODEL", None)
        for label in ("cold", "warm"):
            started = time.monotonic()
            child = pexpect.spawn(sys.executable, ["-m", "interp", *(["--model", spec] if spec else [])], env=env,
                                  cwd=cache, encoding="utf-8", timeout=300, dimensions=(30, 160))
            child.expect(">")
            prompt = time.monotonic() - started
            child.sendline("%model")
            child.expect("context window: ")
            ready = time.monotonic() - started
            child.expect(">")
            child.sendcontrol("d")
            child.expect(pexpect.EOF, timeout=60)
            child.close(force=True)
            figures[label].append((prompt, ready))
    for label, values in figures.items():
        prompt = statistics.median(v[0] for v in values)
        ready = statistics.median(v[1] for v in values)
        runs = ", ".join(f"{p:.2f}/{r:.2f}" for p, r in values)
        print(f"  {label:5} prompt {prompt:5.2f}   model ready {ready:5.2f}   (prompt/ready: {runs})")


def first_request_ttft(model: LlamaModel, prompts: Prompts, rounds: int) -> None:
    """The first request of a session: its whole prompt evaluated, or only its own tokens after the prefix's state
    is loaded from disk (the load itself happens at start, while the prompt waits for input)."""
    folder = Path(tempfile.mkdtemp(prefix="interp-bench-prefix-"))
    model.warm(prompts.prefix(), folder)  # writes the state file
    messages = [*prompts.prefix(), {"role": "user", "content": "Print the sum of the integers from 1 to 100."}]
    params = GenParams(max_tokens=8, temperature=0.0)
    without, with_state, loads = [], [], []
    for _ in range(rounds):
        model.llm.reset()
        without.append(complete_text(model, messages, params)[1].ttft_s)
        started = time.perf_counter()
        assert model.warm(prompts.prefix(), folder) == "loaded"
        loads.append(time.perf_counter() - started)
        with_state.append(complete_text(model, messages, params)[1].ttft_s)
    tokens = len(model.tokens(messages))
    print(f"\nfirst request's time to first token ({tokens}-token prompt, {len(model.prefix_tokens(prompts.prefix()))}"
          f" of them the prefix), median of {rounds}:")
    print(f"  without saved prefix {statistics.median(without):6.3f} s  ({', '.join(f'{v:.3f}' for v in without)})")
    print(f"  with saved prefix    {statistics.median(with_state):6.3f} s  "
          f"({', '.join(f'{v:.3f}' for v in with_state)}); loading the state took "
          f"{statistics.median(loads):.3f} s at start")
    print(f"  ratio without/with {statistics.median(without) / statistics.median(with_state):.1f}x")


def speculative_turns(model: LlamaModel, prompts: Prompts, rounds: int, temperatures: tuple[float, ...]) -> None:
    """Decode speed (first token to last) with speculation on and off, interleaved over rounds; the prompt stays in
    the cache between runs, so every run decodes from the same state."""
    print(f"\ndecode tokens/s, speculative decoding on vs off, median of {rounds}:")
    for turn in ("repair", "fresh"):
        messages = _messages(prompts, turn == "repair")
        for temperature in temperatures:
            runs: dict[bool, list[tuple[float, int, float, str]]] = {True: [], False: []}
            for r in range(rounds):
                for on in (False, True):
                    params = GenParams(max_tokens=600, temperature=temperature, speculative=on, seed=r)
                    text, stats = complete_text(model, messages, params)
                    share = stats.accepted_tokens / max(stats.completion_tokens, 1)
                    runs[on].append((stats.decode_tps, stats.completion_tokens, share, text))
            off = statistics.median(v[0] for v in runs[False])
            on = statistics.median(v[0] for v in runs[True])
            print(f"  {turn:6} T={temperature:.1f}  off {off:6.1f}  on {on:6.1f}  ratio {on / off:5.2f}x  "
                  f"tokens {runs[True][0][1]}, drafted share {statistics.median(v[2] for v in runs[True]):.0%}, "
                  f"(off: {', '.join(f'{v[0]:.1f}' for v in runs[False])}; "
                  f"on: {', '.join(f'{v[0]:.1f}' for v in runs[True])})")


def main(spec: str | None, rounds: int, sections: str = "start,ttft,speculative",
         temperatures: tuple[float, ...] = (0.2, 0.4)) -> None:
    print(f"machine load (1-minute average) at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", flush=True)
    if "start" in sections:
        startup_times(spec, rounds)
    path, name = model_path(spec)
    model = LlamaModel(path, name=name)
    prompts = Prompts.load(profile=profile(path))
    if "ttft" in sections:
        first_request_ttft(model, prompts, rounds)
    if "speculative" in sections:
        speculative_turns(model, prompts, rounds, temperatures)
    model.close()
    print(f"machine load (1-minute average) at end: {os.getloadavg()[0]:.1f}")
