"""Which prompts a model is given: one of under a billion parameters, counted from its GGUF's header, reads
prompts/small/ where that folder has a file, and prompts/ for the rest."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from conftest import SMOLLM2

from interp.common.prompt_files import prompts_dir
from interp.models import model_path
from interp.prompts import SMALL, Prompts, profile


def gguf_with_parameters(path: Path, count: int) -> Path:
    """A GGUF header (version 3, no metadata) naming one tensor of `count` parameters; no tensor data follows."""
    name = b"weight"
    tensor = struct.pack("<Q", len(name)) + name + struct.pack("<IQIQ", 1, count, 0, 0)  # 1 dim, type 0, offset 0
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + tensor)
    return path


def test_the_line_is_a_billion_parameters_counted_from_the_header(tmp_path: Path) -> None:
    assert profile(gguf_with_parameters(tmp_path / "under.gguf", 999_999_999)) == SMALL
    assert profile(gguf_with_parameters(tmp_path / "at.gguf", 1_000_000_000)) is None


def test_a_model_that_is_no_gguf_gets_the_standard_prompts(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text("[]")
    assert profile(None) is None  # a model on a server
    assert profile(script) is None  # a scripted model


def test_smollm2_is_small() -> None:
    assert profile(SMOLLM2) == SMALL


@pytest.mark.model
def test_the_default_model_gets_the_standard_prompts() -> None:
    assert profile(model_path(None)[0]) is None


def test_the_small_prompts_replace_files_of_the_standard_set_and_nothing_else() -> None:
    small = sorted(p.name for p in (prompts_dir() / SMALL).iterdir())
    assert small and all((prompts_dir() / name).is_file() for name in small)
    standard, smaller = Prompts.load(cwd="/data"), Prompts.load(cwd="/data", profile=SMALL)
    assert "ONE short ```python code block" in standard.system and "Never type an answer" not in standard.system
    assert "Never type an answer into the code: compute it." in smaller.system and "ONE short" not in smaller.system
    assert standard.system.endswith("Working directory: /data") and smaller.system.endswith("Working directory: /data")
    assert standard.examples[1]["content"] == "```python\nprint(2 ** 10)\n```"
    assert smaller.examples != standard.examples
    assert smaller.output.template == standard.output.template and smaller.function == standard.function
