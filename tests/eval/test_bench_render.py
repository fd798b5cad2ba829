"""scripts/bench_render.py has a throttled baseline: a Live re-rendering all the Markdown no more often than interp's
RichView redraws, so the ratio to it measures the design, not only the throttle."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from bench_render import build_reply, run_naive  # noqa: E402

from interp.ui.render import REFRESH_S  # noqa: E402


def test_the_throttled_baseline_redraws_at_interps_pace_and_ends_complete() -> None:
    pieces = build_reply(120)
    rate = 100.0
    every_piece = run_naive(pieces, rate, real_time=False, use_pty=False)
    throttled = run_naive(pieces, rate, real_time=False, use_pty=False, throttle=REFRESH_S)
    assert every_piece.refreshes == len(pieces)
    most = len(pieces) / rate / REFRESH_S + 2  # one per REFRESH_S of generation, the first piece, the end
    assert 2 <= throttled.refreshes <= most
    assert throttled.written < every_piece.written
