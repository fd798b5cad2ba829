"""scripts/bench.py --reading compares like with like: llama-cpp-python's side and interp's read the same prompt,
token for token, and each reports a rate for the whole prompt and for the half after the cached first half."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from bench import INTERP_READS, LLAMA_CPP_READS, read_in_process  # noqa: E402
from conftest import SMOLLM2  # noqa: E402


@pytest.mark.model
def test_both_sides_read_the_same_prompt() -> None:
    raw, interp = (read_in_process(code, SMOLLM2, 1, 120) for code in (LLAMA_CPP_READS, INTERP_READS))
    assert raw[0] == interp[0]
    assert 100 <= raw[0] <= 160  # about the 120 tokens asked for
    assert min(*raw[1:], *interp[1:]) > 0
