"""The default model, Qwen2.5-Coder-1.5B, as a new user meets it: no flag, assembled on first start, then trusted."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pexpect
import pytest
from conftest import records, run_interp

from interp.models.catalog import CATALOG, DEFAULT
from interp.models.store import target

pytestmark = pytest.mark.model


def test_with_no_flag_the_default_coder_answers(tmp_path: Path, env: dict[str, str]) -> None:
    env.pop("INTERP_MODEL")
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--transcript", str(journal), "Print the sum of the integers from 1 to 100."],
                        env=env, cwd=tmp_path, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "5050" in result.stdout
    session = records(journal, "session")[0]
    assert session["model"] == DEFAULT
    assert session["model_path"] == str(target(CATALOG[DEFAULT]))
    assert session["prompts"] == "standard"
    assert any("5050" in e["output"] for e in records(journal, "execution") if e["status"] == "ok")


def test_first_start_shows_assembly_on_a_terminal_and_info_names_the_model(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    env.pop("INTERP_MODEL")
    models = tmp_path / "models"
    env["INTERP_MODELS_DIR"] = str(models)
    try:
        child = pexpect.spawn(sys.executable, ["-m", "interp", "--info"], env={**env, "TERM": "xterm-256color"},
                              cwd=str(tmp_path), encoding="utf-8", timeout=300, dimensions=(40, 120))
        child.expect("assembling model")
        child.expect("catalog name: qwen2.5-coder-1.5b")
        child.expect("quantization: Q4_K_M")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        assert (models / target(CATALOG[DEFAULT]).name).stat().st_size == CATALOG[DEFAULT].size
        again = run_interp(["--info"], env=env, cwd=tmp_path)
        assert "assembling" not in again.stderr and "catalog name: qwen2.5-coder-1.5b" in again.stdout
    finally:
        shutil.rmtree(models, ignore_errors=True)
