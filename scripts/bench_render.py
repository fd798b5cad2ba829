"""Render cost of streaming a reply: interp's RichView against a naive rich Live that re-renders all the Markdown,
unthrottled and throttled like interp.

    .venv/bin/python scripts/bench_render.py [--tokens 2000] [--rate 100] [--real-time] [--pty] [--rounds 1]

A deterministic reply of about `--tokens` pieces (1-6 characters each, as a tokenizer cuts them: prose paragraphs,
a bulleted list, fenced ```python blocks of 10-30 lines) is fed as TextDelta events, one piece per 1/rate seconds,
then a ReplyDone, to:

- interp: `RichView(console=...)`, which prints finished blocks once and redraws only the unfinished tail,
  at most every REFRESH_S seconds;
- naive: `Live(auto_refresh=False)` and `live.update(Markdown(full_text), refresh=True)` on every piece;
- naive, throttled: the same Live, re-rendering all the Markdown at most every REFRESH_S seconds (and at the end),
  so that interp's gain over it is the design (finished blocks printed once, only the tail live), not the throttle.

Both write to `Console(force_terminal=True, width=100, height=40)`: by default an in-memory sink that only counts
what is written; with --pty, the slave end of a real pseudo-terminal whose master end a thread drains.

Clock: by default the clock is simulated, so a run takes seconds, not 2 x 20 s: `interp.ui.render.time` is replaced
by a fake whose monotonic() advances by 1/rate per piece, so RichView throttles exactly as it would at that rate.
With --real-time the pieces are paced with real sleeps instead (about tokens / rate seconds per variant).
Either way only CPU time is measured: time.thread_time() around each show() / update() call, on the one thread
that renders. The figure to watch is CPU as a share of generation time (tokens / rate); the goal is under 10 %.
With --rounds N each variant runs N times and the round with the least CPU is reported (CPU time is noisy on a
loaded machine). Expect a higher interp figure with --real-time: after each sleep the renderer starts on cold caches.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import random
import re
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TextIO
from unittest import mock

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown

from interp.common.events import ModelStats, ReplyDone, TextDelta
from interp.ui import render
from interp.ui.render import RichView

WIDTH, HEIGHT = 100, 40
SEED = 2024

PROSE = (
    "the data frame holds one row per sample and the index is a timestamp so we can resample it by hour before "
    "plotting mean values per group then compare them with the median which is less sensitive to outliers in "
    "this kind of sensor reading where a single spike may skew the whole average quite a lot we also keep the "
    "raw column around because it makes checking the results easier later on when something looks wrong"
)
WORDS = PROSE.split(" ")
NAMES = ("df", "values", "result", "counts", "rows", "total", "frame", "series", "items", "path")
FUNCS = ("load", "clean", "summarize", "resample", "plot", "merge", "parse", "score")
CODE_LINES = (
    "{a} = {f}({b})",
    "{a} = [x * 2 for x in {b} if x > {n}]",
    "for i, x in enumerate({b}):",
    "    {a}[i] = {f}(x) + {n}",
    "if len({a}) > {n}:",
    "    print(f\"{{len({a})}} rows after {f}\")",
    "{a} = {b}.groupby(\"key\").agg({{\"value\": \"mean\"}})",
    "# {f} the {b} before the next step",
    "{a}.to_csv(\"out_{n}.csv\", index=False)",
    "with open(\"{b}.txt\") as fh:",
    "    {a} = fh.read().splitlines()",
    "assert {a} is not None, \"{f} failed\"",
)
TOKEN_RE = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\n+| +")


# ---------------------------------------------------------------------------------------------------------- reply


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    words[0] = words[0].capitalize()
    if rng.random() < 0.3:
        words.insert(rng.randint(1, len(words) - 1), f"`{rng.choice(NAMES)}`")
    return " ".join(words) + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(3, 6))) + "\n\n"


def _code_block(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(10, 30)):
        template = rng.choice(CODE_LINES)
        lines.append(template.format(a=rng.choice(NAMES), b=rng.choice(NAMES), f=rng.choice(FUNCS),
                                     n=rng.randint(1, 500)))
    return "```python\n" + "\n".join(lines) + "\n```\n\n"


def _bullets(rng: random.Random) -> str:
    items = [f"- **{rng.choice(FUNCS)}**: " + _sentence(rng) for _ in range(rng.randint(4, 7))]
    return "\n".join(items) + "\n\n"


def tokenize(text: str, rng: random.Random) -> list[str]:
    """Cuts text as a BPE tokenizer roughly would: a word with its leading space, runs of punctuation, newlines;
    anything over 6 characters is split again into pieces of 2-6."""
    pieces: list[str] = []
    for match in TOKEN_RE.finditer(text):
        word = match.group()
        while len(word) > 6:
            cut = rng.randint(2, 6)
            pieces.append(word[:cut])
            word = word[cut:]
        pieces.append(word)
    assert "".join(pieces) == text
    return pieces


def build_reply(tokens: int) -> list[str]:
    """A deterministic reply of at least `tokens` pieces, ending at a block boundary (no fence left open)."""
    rng = random.Random(SEED)
    sections = ["Here is how I would approach it.\n\n", _paragraph(rng), _bullets(rng)]
    count = sum(len(tokenize(s, random.Random(0))) for s in sections)
    step = 0
    while count < tokens:
        section = _code_block(rng) if step % 3 == 1 else _bullets(rng) if step % 7 == 5 else _paragraph(rng)
        sections.append(section)
        count += len(tokenize(section, random.Random(0)))
        step += 1
    return tokenize("".join(sections).rstrip("\n") + "\n", rng)


# ------------------------------------------------------------------------------------------------------- terminals


class CountingSink(io.StringIO):
    """An in-memory 'terminal' that keeps nothing: it only counts the characters written."""

    def __init__(self) -> None:
        super().__init__()
        self.written = 0

    def write(self, s: str) -> int:
        self.written += len(s)
        return len(s)

    def isatty(self) -> bool:
        return True


@dataclass
class Terminal:
    file: TextIO
    written: Callable[[], int]
    close: Callable[[], None]


@contextmanager
def open_terminal(use_pty: bool) -> Iterator[Terminal]:
    if not use_pty:
        sink = CountingSink()
        yield Terminal(sink, lambda: sink.written, lambda: None)
        return
    master, slave = os.openpty()
    received = [0]

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            received[0] += len(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out = os.fdopen(slave, "w", encoding="utf-8", closefd=True)
    try:
        yield Terminal(out, lambda: received[0], out.flush)
    finally:
        out.close()
        reader.join(timeout=2)
        os.close(master)


def make_console(file: TextIO) -> Console:
    return Console(file=file, force_terminal=True, width=WIDTH, height=HEIGHT, color_system="truecolor")


# ------------------------------------------------------------------------------------------------------ measuring


class Pacer:
    """Gives the time for piece i: a fake clock advanced by 1/rate per piece, or real sleeps to the same schedule."""

    def __init__(self, rate: float, real_time: bool) -> None:
        self.interval = 1.0 / rate
        self.real_time = real_time
        self.fake_now = 1000.0
        self.start = time.monotonic()

    def monotonic(self) -> float:
        return time.monotonic() if self.real_time else self.fake_now

    def wait_for(self, i: int) -> None:
        if self.real_time:
            delay = self.start + i * self.interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        else:
            self.fake_now += self.interval


@dataclass
class Result:
    name: str
    costs: list[float]  # CPU seconds per call, the last one being the end of the reply
    written: int
    refreshes: int = 0  # full re-renders of the Markdown (the naive variants)

    @property
    def cpu(self) -> float:
        return sum(self.costs)


def run_interp(pieces: list[str], rate: float, real_time: bool, use_pty: bool) -> Result:
    pacer = Pacer(rate, real_time)
    costs: list[float] = []
    with open_terminal(use_pty) as term, mock.patch.object(render, "time", SimpleNamespace(monotonic=pacer.monotonic)):
        view = RichView(console=make_console(term.file))
        for i, piece in enumerate(pieces):
            pacer.wait_for(i)
            event = TextDelta(piece)
            t0 = time.thread_time()
            view.show(event)
            costs.append(time.thread_time() - t0)
        done = ReplyDone(text="".join(pieces), stats=ModelStats(completion_tokens=len(pieces)))
        t0 = time.thread_time()
        view.show(done)
        costs.append(time.thread_time() - t0)
        term.close()
    return Result("interp RichView", costs, term.written())


def run_naive(pieces: list[str], rate: float, real_time: bool, use_pty: bool, throttle: float = 0.0) -> Result:
    """A Live that re-renders the whole reply's Markdown: on every piece, or with `throttle` at most every
    `throttle` seconds of the (fake or real) clock, as RichView is throttled, and once more at the end."""
    pacer = Pacer(rate, real_time)
    costs: list[float] = []
    refreshes = 0
    with open_terminal(use_pty) as term:
        console = make_console(term.file)
        live = Live(console=console, auto_refresh=False)
        t0 = time.thread_time()
        live.start()
        text, drawn = "", -math.inf
        costs.append(time.thread_time() - t0)
        for i, piece in enumerate(pieces):
            pacer.wait_for(i)
            t0 = time.thread_time()
            text += piece
            if pacer.monotonic() - drawn >= throttle:
                live.update(Markdown(text), refresh=True)
                drawn, refreshes = pacer.monotonic(), refreshes + 1
            costs.append(time.thread_time() - t0)
        t0 = time.thread_time()
        if throttle:
            live.update(Markdown(text), refresh=True)
            refreshes += 1
        live.stop()
        costs.append(time.thread_time() - t0)
        term.close()
    name = f"naive, every {throttle:g} s" if throttle else "naive Live(Markdown(all))"
    return Result(name, costs, term.written(), refreshes)


def report(result: Result, tokens: int, gen_s: float) -> None:
    per_token = [c * 1e3 for c in result.costs]
    p99 = statistics.quantiles(per_token, n=100)[-1]
    print(f"{result.name:<27} CPU {result.cpu:8.3f} s  = {result.cpu / gen_s * 100:7.2f} % of generation   "
          f"per token: mean {result.cpu / tokens * 1e3:6.3f} ms, p99 {p99:7.3f} ms, max {max(per_token):8.3f} ms   "
          f"terminal {result.written / 1e6:7.2f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=2000, help="reply length in pieces (about)")
    ap.add_argument("--rate", type=float, default=100.0, help="tokens per second")
    ap.add_argument("--real-time", action="store_true", help="really sleep between pieces instead of a fake clock")
    ap.add_argument("--pty", action="store_true", help="write to a real pseudo-terminal instead of a counting sink")
    ap.add_argument("--rounds", type=int, default=1, help="runs per variant; the one with the least CPU is reported")
    args = ap.parse_args()

    pieces = build_reply(args.tokens)
    text = "".join(pieces)
    tokens = len(pieces)
    gen_s = tokens / args.rate
    fences = text.count("```") // 2
    print(f"reply: {tokens} pieces, {len(text)} chars, {text.count(chr(10))} lines, {fences} code blocks; "
          f"{args.rate:g} tok/s -> {gen_s:.1f} s of generation; clock: {'real' if args.real_time else 'simulated'}; "
          f"terminal: {'pty' if args.pty else 'in-memory'} {WIDTH}x{HEIGHT}; REFRESH_S = {render.REFRESH_S}")

    rounds = range(max(args.rounds, 1))
    interp = min((run_interp(pieces, args.rate, args.real_time, args.pty) for _ in rounds), key=lambda r: r.cpu)
    naive = min((run_naive(pieces, args.rate, args.real_time, args.pty) for _ in rounds), key=lambda r: r.cpu)
    throttled = min((run_naive(pieces, args.rate, args.real_time, args.pty, render.REFRESH_S) for _ in rounds),
                    key=lambda r: r.cpu)
    for result in (interp, naive, throttled):
        report(result, tokens, gen_s)
    print(f"naive / interp CPU: {naive.cpu / interp.cpu:.1f}x; throttled naive / interp CPU (the design alone): "
          f"{throttled.cpu / interp.cpu:.1f}x; "
          f"interp under 10 % of generation time: {'yes' if interp.cpu / gen_s < 0.10 else 'NO'}")


if __name__ == "__main__":
    main()
