"""The scripted model (`--model script:FILE`) as a feature: it keeps what a test reads, and from the command line
nothing of the calls it answered (REPORT.md of the third round, 8.3: 345 MB after 600 piped turns)."""

from __future__ import annotations

import json
from pathlib import Path

from interp.models.base import GenParams
from interp.models.script import ScriptModel


def _answer(model: ScriptModel, text: str) -> str:
    reply = model.complete([{"role": "user", "content": text}], GenParams(max_tokens=100, temperature=0.0))
    pieces = []
    try:
        while True:
            pieces.append(next(reply))
    except StopIteration:
        return "".join(pieces)


def test_a_script_from_a_file_keeps_no_call(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([f"reply {i}" for i in range(300)]))
    model = ScriptModel.from_file(script)
    for i in range(300):
        assert _answer(model, "x" * 10_000) == f"reply {i}"
    assert model.calls == [] and model.params == []


def test_a_script_made_by_a_test_keeps_its_calls() -> None:
    model = ScriptModel(["one", "two"])
    _answer(model, "first")
    _answer(model, "second")
    assert [call[-1]["content"] for call in model.calls] == ["first", "second"] and len(model.params) == 2
