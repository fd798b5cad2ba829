"""Overlapped start: the prompt takes input while the model loads; a request typed early waits, saying so."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import finish, records, spawn

from interp.models.store import models_dir

pytestmark = pytest.mark.model


def test_the_prompt_comes_before_the_model_and_an_early_request_waits_visibly(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The default model with no saved prefix state: loading it and evaluating the prefix take seconds, the
    prompt does not wait for them."""
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache"), "INTERP_MODELS_DIR": str(models_dir())}
    del env["INTERP_MODEL"]
    journal = tmp_path / "j.jsonl"
    started = time.monotonic()
    child = spawn(["--transcript", str(journal), "--max-tokens", "60"], env, tmp_path)
    child.timeout = 300
    child.expect(">")
    to_prompt = time.monotonic() - started
    child.sendline("Print the number 42.")
    child.expect("Waiting for the model: (loading the model|reading the system prompt)")
    child.expect(r"Run this code\?")
    child.sendline("n")
    finish(child)
    assert child.exitstatus == 0
    calls = records(journal, "model_call")
    assert calls and calls[0]["cached_tokens"] > 100  # the prefix was in the cache before the request came
    assert list((tmp_path / "cache" / "interp" / "prefix").iterdir())
    assert to_prompt < 30, "the prompt waited for something slow"
