"""Model.choose: a constrained choice among options, on the real llama.cpp model (SmolLM2) and the scripted one."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SMOLLM2

from interp.models.base import GenParams, ModelError, complete_text
from interp.models.script import ScriptModel

MESSAGES = [{"role": "user", "content": "Name one fruit. Answer with one word."}]


@pytest.mark.model
def test_llama_choice_is_the_option_the_model_itself_finds_most_likely() -> None:
    from interp.models.llama import LlamaModel

    model = LlamaModel(SMOLLM2, n_ctx=512)
    try:
        greedy, _ = complete_text(model, MESSAGES, GenParams(max_tokens=1, temperature=0.0))
        first = greedy.strip()
        assert first
        # The greedy token has the highest log-probability of all: any other option, scored, comes out lower.
        assert model.choose(MESSAGES, [first, "Zebra crossing"]) == 0
        assert model.choose(MESSAGES, ["Zebra crossing", first]) == 1
        # Scoring leaves the cache in a state the next generation can use: it reproduces the greedy reply.
        again, _ = complete_text(model, MESSAGES, GenParams(max_tokens=1, temperature=0.0))
        assert again == greedy
    finally:
        model.close()


def test_script_choice_is_its_next_reply_and_anything_else_is_an_error(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text('["  no ", "maybe"]')
    model = ScriptModel.from_file(script)
    assert model.choose(MESSAGES, ["Yes", "No"]) == 1
    with pytest.raises(ModelError, match="'maybe' where one of Yes, No is chosen"):
        model.choose(MESSAGES, ["Yes", "No"])
