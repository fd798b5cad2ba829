"""Bad model files: one line naming the file and the problem, exit code 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SMOLLM2, run_interp

from interp.models.gguf import read_metadata


def test_embedded_model_is_found_and_described() -> None:
    meta = read_metadata(SMOLLM2)
    assert meta["general.architecture"] == "llama"
    assert meta["llama.context_length"] == 8192
    assert "<|im_start|>" in meta["tokenizer.chat_template"]


def _one_line_error(result, fragment: str) -> None:
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert fragment in lines[0]


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_bytes(b"not a model at all" * 100), "not a GGUF file"),
        (lambda p: p.write_bytes(SMOLLM2.read_bytes()[:2000]), "corrupt GGUF header"),
        (lambda p: p.write_bytes(SMOLLM2.read_bytes()[:4_000_000]), "could not load it"),
        (lambda p: p.mkdir(), "is a folder"),
    ],
    ids=["missing", "not-gguf", "truncated-header", "truncated-tensors", "folder"],
)
def test_bad_model_file(tmp_path: Path, env: dict[str, str], make, problem: str) -> None:
    path = tmp_path / "model.gguf"
    make(path)
    result = run_interp(["-y", "--model", str(path), "-c", "hi"], env=env, cwd=tmp_path)
    _one_line_error(result, problem)
    assert str(path) in result.stderr


def test_unreadable_model_file(tmp_path: Path, env: dict[str, str]) -> None:
    import os

    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    path.chmod(0)
    _one_line_error(run_interp(["--model", str(path), "-c", "hi"], env=env, cwd=tmp_path), "permission denied")


def test_bad_script_file(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "s.json"
    path.write_text("[1, 2")
    _one_line_error(run_interp(["--model", f"script:{path}", "-c", "hi"], env=env, cwd=tmp_path), "not valid JSON")


def test_bad_flag_is_a_usage_error(tmp_path: Path, env: dict[str, str]) -> None:
    assert run_interp(["--max-attempts", "-1", "-c", "hi"], env=env, cwd=tmp_path).returncode == 2
    assert run_interp(["--no-such-flag"], env=env, cwd=tmp_path).returncode == 2


def test_a_binary_script_file_is_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(bytes(range(256)))
    _one_line_error(run_interp(["--model", f"script:{path}", "-c", "hi"], env=env, cwd=tmp_path), "not a script")
