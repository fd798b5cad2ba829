"""The model layer's figures, all from one run on one model and thread count:

1. decode speed of interp's loop against llama-cpp-python's raw `generate()` loop (and its streaming
   `create_completion`), as ratios; decode time runs from the first generated token to the last;
2. a 10-turn session through the real loop and kernel: the cached share of every model call's prompt, and time to
   first token of turn 10 over turn 2;
3. how long Ctrl-C takes to stop a long prompt evaluation;
4. peak RSS of this process;
5. decode speed of interp against llama-cpp-python run as a user runs it (a separate default process), quiet and
   with one core busy, and against interp's earlier thread setting;
6. what a user waits for (bench_turns.py): start to prompt, cold and warm; the first request's time to first token
   with and without the saved prefix; speculative decoding on and off on a repair and a fresh-code turn;
7. replies drawn together (models/together.py): the seconds to draw k replies of the same prompt one after
   another, as interp drew them before, against k decoded together (the first streamed, the others kept and taken by
   the next calls), each reply the same number of tokens, sampled at the temperature of new versions; and choosing's
   two replies for asserts, at 0.2 then 0.8, against the one at 0.8 decoded beside the one at 0.2;
8. prompt reading (tokens a second before the first token) of interp against llama-cpp-python as a user runs it,
   from an empty cache and after a cached first half.

    .venv/bin/python scripts/bench.py [--model NAME] [--tokens 2000] [--rounds 2] [--skip-stream] [--decode-only]
    .venv/bin/python scripts/bench.py --turns [--model NAME] [--rounds 3]      # only section 6
    .venv/bin/python scripts/bench.py --together [--model NAME] [--rounds 2]   # only section 7
    .venv/bin/python scripts/bench.py --reading [--model NAME] [--tokens 600]  # only section 8
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import bench_turns

from interp.models import model_path
from interp.models.base import GenParams, ahead_at, complete_text
from interp.models.llama import LlamaModel
from interp.runtime.kernel import Kernel
from interp.runtime.kernels import Kernels
from interp.stores.journal import Journal, read
from interp.turn.policy import FRESH_TEMPERATURE
from interp.versions.choosing import ASSERT_TEMPERATURES

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
    return complete_text(model, MESSAGES, GenParams(max_tokens=n, temperature=0.0, ignore_eos=True))[1].decode_tps


def drawn_apart(model: LlamaModel, temperatures: tuple[float, ...], n: int) -> float:
    """Seconds to draw a reply of `n` tokens at each temperature, one after another (interp before replies drawn
    together)."""
    started = time.perf_counter()
    for temperature in temperatures:
        complete_text(model, MESSAGES, GenParams(max_tokens=n, temperature=temperature, ignore_eos=True,
                                                 speculative=False))
    return time.perf_counter() - started


def drawn_together(model: LlamaModel, temperatures: tuple[float, ...], n: int) -> float:
    """Seconds to draw the same replies decoded together: one call decodes them (at one temperature, `together`, or
    at their own, `beside`), the next ones take them whole."""
    params = GenParams(max_tokens=n, temperature=temperatures[0], ignore_eos=True, speculative=False)
    ahead = ahead_at(temperatures)
    started = time.perf_counter()
    kept = [complete_text(model, MESSAGES, replace(params, temperature=t), ahead)[1].kept for t in temperatures]
    assert kept == [False] + [True] * (len(temperatures) - 1), kept
    return time.perf_counter() - started


def together_figures(model: LlamaModel, n: int, rounds: int) -> None:
    print(f"\nreplies drawn together: {n} tokens each, new versions at temperature {FRESH_TEMPERATURE}, "
          f"choosing's asserts at {' and '.join(map(str, ASSERT_TEMPERATURES))}")
    print(f"{'replies':>16} {'one after another s':>20} {'together s':>11} {'ratio (speed-up)':>17}")
    rows = [(f"{count} versions", (FRESH_TEMPERATURE,) * count) for count in (2, 4, 6)]
    for label, temperatures in [*rows, ("asserts", ASSERT_TEMPERATURES)]:
        apart, together = [], []
        for _ in range(rounds):  # interleaved, so drift on a shared machine hits both alike
            apart.append(drawn_apart(model, temperatures, n))
            together.append(drawn_together(model, temperatures, n))
        a, t = statistics.median(apart), statistics.median(together)
        print(f"{label:>16} {a:20.1f} {t:11.1f} {a / t:17.2f}")


SESSION_REQUESTS = [
    "Print the sum of 2 and 3.", "Print 7 times 8.", "Print the length of the word banana.",
    "Print 100 divided by 4.", "Print the square of 12.", "Print 2 to the power 10.",
    "Print the word hello in upper case.", "Print 15 minus 9.", "Print the number of letters in apple.",
    "Print 3 times 3 times 3.",
]


def session_figures(model: LlamaModel) -> None:
    """Runs a 10-turn session through the real loop and reports prefix-cache reuse and time to first token."""
    from interp.config import Config
    from interp.prompts import Prompts, profile
    from interp.runtime.outputs import OutputFolder
    from interp.session import Session

    model.llm.reset()
    folder = Path(tempfile.mkdtemp(prefix="interp-bench-"))
    kernel = Kernel(cwd=str(folder))
    kernel.start()
    kernel.wait_ready()
    journal = Journal(folder / "j.jsonl")
    config = Config(yes=True, max_steps=3, max_tokens=128, temperature=0.0)
    prompts = Prompts.load(cwd=str(folder), profile=profile(model.path))
    session = Session(model, Kernels(kernel), journal, prompts, config, OutputFolder(folder / "out"), interactive=False)
    try:
        for request in SESSION_REQUESTS:
            for _ in session.turn(request):
                pass
    finally:
        kernel.shutdown()
        journal.close()
    records = read(folder / "j.jsonl")
    print("\nturn  call  prompt  cached  share  redone   ttft_s")
    turn, new_turn, in_cache = 0, False, 0
    shares, redone_total = [], 0
    for record in records:
        if record["type"] == "user" and record.get("kind") == "request":
            turn, new_turn = turn + 1, True
        elif record["type"] == "model_call":
            share = record["cached_tokens"] / record["prompt_tokens"]
            # Tokens of the previous prompt and reply (all in the KV cache) that this call evaluated again.
            redone = max(min(in_cache, record["prompt_tokens"]) - record["cached_tokens"] - 1, 0)
            print(f"{turn:4} {'first' if new_turn else 'retry':>5} {record['prompt_tokens']:7} "
                  f"{record['cached_tokens']:7} {share:6.1%} {redone:6} {record['ttft_s']:8.3f}")
            if in_cache:
                shares.append(share)
                redone_total += redone
            in_cache = record["prompt_tokens"] + record["completion_tokens"]
            new_turn = False
    print(f"calls after the first: {len(shares)}, cached share min {min(shares):.1%}, "
          f"median {statistics.median(shares):.1%}, calls under 90%: {sum(share < 0.9 for share in shares)}, "
          f"tokens evaluated again: {redone_total}")


def ttft_series(model: LlamaModel) -> None:
    """Ten turns of the same shape (a request, a reply, its output, an answer) sent straight to the model: time to
    first token of each turn's first call, which should not grow with the history before it."""
    model.llm.reset()
    from interp.prompts import Prompts, profile

    prompts = Prompts.load(profile=profile(model.path))
    messages = [{"role": "system", "content": prompts.system}, *prompts.examples]
    ttft = []
    for i in range(1, 11):
        messages.append({"role": "user", "content": f"Print the sum of {i} and {i + 1}."})
        for turn_call in range(2):
            reply, stats = complete_text(model, messages, GenParams(max_tokens=40, temperature=0))
            if turn_call == 0:
                ttft.append(stats.ttft_s)
            messages.append({"role": "assistant", "content": reply})
            if turn_call == 0:
                messages.append({"role": "user", "content": prompts.feedback(str(2 * i + 1), None)})
    print("\ntime to first token per turn (s): " + " ".join(f"{t:.3f}" for t in ttft))
    print(f"turn 10 / turn 2: {ttft[9] / ttft[1]:.2f}")


def abort_latency(model: LlamaModel) -> None:
    """Ctrl-C (SIGINT) during the evaluation of a long prompt: seconds from the signal to KeyboardInterrupt."""
    model.llm.reset()
    messages = [{"role": "user", "content": "Summarize: " + "the quick brown fox jumps. " * 1200}]
    sent: list[float] = []

    def interrupt() -> None:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Timer(1.0, interrupt).start()
    try:
        for _ in model.complete(messages, GenParams(max_tokens=8, temperature=0.2)):
            pass
    except KeyboardInterrupt:
        print(f"\nCtrl-C during a {len(model.tokens(messages))}-token prompt evaluation: stopped after "
              f"{(time.perf_counter() - sent[0]) * 1e3:.0f} ms ({model.llm.n_tokens} tokens evaluated)")


# llama-cpp-python loaded as a user loads it: the program's arguments, and the setting a CPU with AMX needs.
AS_A_USER_LOADS = """
import sys, time
import llama_cpp
from interp.models.llama_load import cpu_has_amx
if cpu_has_amx():  # what a user of such a CPU must set too: llama.cpp's AMX path dies on the first batch
    default_params = llama_cpp.llama_cpp.llama_model_default_params
    def without_extra_bufts():
        p = default_params()
        p.use_extra_bufts = False
        return p
    llama_cpp.llama_cpp.llama_model_default_params = without_extra_bufts
path, threads, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
"""

LLAMA_CPP_AS_USERS_RUN_IT = AS_A_USER_LOADS + """
llm = llama_cpp.Llama(model_path=path, n_ctx=n + 512, n_threads=threads, n_threads_batch=threads, verbose=False)
messages = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Write a long story about a lighthouse keeper and a storm."}]
template = llama_cpp.llama_chat_format.Jinja2ChatFormatter(llm.metadata["tokenizer.chat_template"], "", "")
prompt = llm.tokenize(template(messages=messages).prompt.encode(), special=True)
count = 0
for _ in llm.generate(prompt, temp=0.0, top_k=40, top_p=0.95, min_p=0.05, repeat_penalty=1.0):
    count += 1
    if count == 1:
        first = time.perf_counter()
    if count >= n:
        break
print((count - 1) / (time.perf_counter() - first))
"""

INTERP_AS_USERS_RUN_IT = """
import sys
from interp.models.base import GenParams, complete_text
from interp.models.llama import LlamaModel
from interp.turn.policy import FRESH_TEMPERATURE
path, threads, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
messages = [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Write a long story about a lighthouse keeper and a storm."}]
model = LlamaModel(path, n_ctx=n + 512, n_threads=threads)
print(complete_text(model, messages, GenParams(max_tokens=n, temperature=0.0, ignore_eos=True))[1].decode_tps)
"""


# The prompt the reading figures read: a system line and a request of numbered lines, about n tokens in all.
READING_PROMPT = """
def reading_messages(n):
    lines = [f"Row {i}: station {i % 7}, reading {i * 3.7:.1f} mm, checked by hand." for i in range(n // 21)]
    return [{"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "Sum the readings of these rows.\\n" + "\\n".join(lines)}]
"""

LLAMA_CPP_READS = READING_PROMPT + AS_A_USER_LOADS + """
llm = llama_cpp.Llama(model_path=path, n_ctx=2 * n + 512, n_threads=threads, n_threads_batch=threads, verbose=False)
template = llama_cpp.llama_chat_format.Jinja2ChatFormatter(llm.metadata["tokenizer.chat_template"], "", "")
tokens = llm.tokenize(template(messages=reading_messages(n)).prompt.encode(), special=True)
started = time.perf_counter()
llm.eval(tokens)
empty = len(tokens) / (time.perf_counter() - started)
llm.reset()
half = len(tokens) // 2
llm.eval(tokens[:half])
started = time.perf_counter()
llm.eval(tokens[half:])
print(len(tokens), empty, (len(tokens) - half) / (time.perf_counter() - started))
"""

INTERP_READS = READING_PROMPT + """
import sys
from interp.models.base import GenParams, complete_text
from interp.models.llama import LlamaModel
path, threads, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
model = LlamaModel(path, n_ctx=2 * n + 512, n_threads=threads)
messages = reading_messages(n)
once = GenParams(max_tokens=1, temperature=0.0)
stats = complete_text(model, messages, once)[1]
empty = (stats.prompt_tokens - stats.cached_tokens) / stats.ttft_s
model.llm.reset()
tokens = model.tokens(messages)
model.llm.eval(tokens[:len(tokens) // 2])
stats = complete_text(model, messages, once)[1]
print(stats.prompt_tokens, empty, (stats.prompt_tokens - stats.cached_tokens) / stats.ttft_s)
"""


def read_in_process(code: str, path: Path, threads: int, tokens: int) -> tuple[int, float, float]:
    """Runs one of the reading programs in a fresh process: the prompt's length in tokens, its reading rate from an
    empty cache, and that of its second half after the first."""
    out = subprocess.run([sys.executable, "-c", code, str(path), str(threads), str(tokens)], capture_output=True,
                         text=True, check=True).stdout
    length, empty, half = out.split()[-3:]
    return int(length), float(empty), float(half)


def reading(path: Path, tokens: int, rounds: int) -> None:
    """Prompt reading, the tokens a second before the first token, of interp's model layer (its loading, its thread
    choice, the first token sampled) against llama-cpp-python's Llama.eval of the same tokens as a user runs it: from
    an empty cache, and the second half of the prompt after its first half is cached. Each figure is a fresh
    process, quiet, interleaved over rounds; medians."""
    from interp.models.threads import default_threads

    cores = default_threads()
    sides = {"llama.cpp, default process": (LLAMA_CPP_READS, cores), "interp": (INTERP_READS, 0)}
    runs: dict[str, list[list[float]]] = {name: [] for name in sides}
    lengths = set()
    for _ in range(rounds):
        for name, (code, threads) in sides.items():
            length, *rates = read_in_process(code, path, threads, tokens)
            lengths.add(length)
            runs[name].append(rates)
    print(f"\nprompt reading tokens/s in separate processes, {cores} physical cores, a prompt of "
          f"{' or '.join(map(str, sorted(lengths)))} tokens, median of {rounds}:")
    for column, label in enumerate(("from an empty cache", "second half, first cached")):
        base = statistics.median(run[column] for run in runs["llama.cpp, default process"])
        for name, values in runs.items():
            median = statistics.median(run[column] for run in values)
            print(f"  {label:26} {name:28} {median:7.1f}  ({', '.join(f'{run[column]:.1f}' for run in values)})  "
                  f"ratio to llama.cpp {median / base:.2f}")


# One core kept busy for as long as the bench runs: it ends when its parent does, killed or not.
BUSY_LOOP = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    pass\n"


def separate_process(code: str, path: Path, threads: int, tokens: int, env: dict[str, str]) -> float:
    out = subprocess.run([sys.executable, "-c", code, str(path), str(threads), str(tokens)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def versus_llama_cpp(path: Path, tokens: int, rounds: int, conditions: tuple[str, ...] = ("quiet", "busy")) -> None:
    """Decode speed of interp (its default thread choice) against llama-cpp-python's generate() as a user runs it:
    a separate process with default settings (on a CPU with AMX, without llama.cpp's extra buffer types, as there
    it must) and all physical cores as threads; also the earlier setting (OpenMP told to sleep at barriers). Quiet,
    then while a busy process (code left running in the kernel, a compile) holds one core. Each figure is a fresh
    process, interleaved over rounds; medians."""
    from interp.models.threads import default_threads

    cores = default_threads()
    plain = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    sides = {
        "llama.cpp, default process": (LLAMA_CPP_AS_USERS_RUN_IT, cores, plain),
        "interp (threads chosen)": (INTERP_AS_USERS_RUN_IT, 0, plain),
        "interp before (passive)": (INTERP_AS_USERS_RUN_IT, cores, {**plain, "OMP_WAIT_POLICY": "passive"}),
    }
    print(f"\ndecode tokens/s in separate processes, {cores} physical cores, {tokens} tokens, median of {rounds}:")
    for condition in conditions:
        label = "quiet" if condition == "quiet" else "one core busy"
        busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if label != "quiet" else None
        try:
            figures: dict[str, list[float]] = {name: [] for name in sides}
            for _ in range(rounds):
                for name, (code, threads, env) in sides.items():
                    figures[name].append(separate_process(code, path, threads, tokens, env))
        finally:
            if busy:
                busy.kill()
                busy.wait()
        base = statistics.median(figures["llama.cpp, default process"])
        for name, values in figures.items():
            median = statistics.median(values)
            print(f"  {label:14} {name:28} {median:7.1f}  ({', '.join(f'{v:.1f}' for v in values)})  "
                  f"ratio to llama.cpp {median / base:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="any --model name or path (default: qwen2.5-coder-1.5b)")
    ap.add_argument("--tokens", type=int, default=0, help="reply tokens (default 2000); with --reading, the "
                    "prompt's (default 600)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--skip-stream", action="store_true", help="leave out create_completion(stream=True)")
    ap.add_argument("--decode-only", action="store_true", help="only the separate-process decode comparison")
    ap.add_argument("--conditions", default="quiet,busy", help="with --decode-only: quiet, busy or both")
    ap.add_argument("--turns", action="store_true", help="only start, first-request and speculative figures")
    ap.add_argument("--sections", default="start,ttft,speculative", help="with --turns: which of them")
    ap.add_argument("--temperatures", default="0.2,0.4", help="with --turns: temperatures of the speculative runs")
    ap.add_argument("--together", action="store_true", help="only the figures of new versions drawn together")
    ap.add_argument("--reading", action="store_true", help="only the prompt-reading comparison")
    args = ap.parse_args()
    if args.together:
        model = LlamaModel(model_path(args.model)[0], n_ctx=8192, n_threads=args.threads)
        together_figures(model, 120, args.rounds)
        model.close()
        return
    if args.turns:
        temperatures = tuple(float(t) for t in args.temperatures.split(","))
        bench_turns.main(args.model, args.rounds, args.sections, temperatures)
        return
    if args.reading:
        reading(model_path(args.model)[0], args.tokens or 600, args.rounds)
        return
    if args.decode_only:
        versus_llama_cpp(model_path(args.model)[0], 300, args.rounds, tuple(args.conditions.split(",")))
        return

    args.tokens = args.tokens or 2000
    model = LlamaModel(model_path(args.model)[0], n_ctx=args.tokens + 512, n_threads=args.threads,
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

    model = LlamaModel(model_path(args.model)[0], n_ctx=8192, n_threads=args.threads)
    session_figures(model)
    ttft_series(model)
    abort_latency(model)
    versus_llama_cpp(model_path(args.model)[0], 300, args.rounds)
    reading(model_path(args.model)[0], 600, args.rounds)
    bench_turns.main(args.model, args.rounds)
    together_figures(model, 120, args.rounds)
    print(f"\npeak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    model.close()


if __name__ == "__main__":
    main()
