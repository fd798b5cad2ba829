"""Bad model files: one line naming the file and the problem, exit code 2, no traceback."""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
from pathlib import Path

import pytest
from conftest import INTERP, SMOLLM2, run_interp

from interp.models.gguf import read_metadata

PR_CAPBSET_DROP = 24  # prctl(2)


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
        (lambda p: p.symlink_to("/dev/zero"), "not a regular file (a device), not a GGUF file"),
        (lambda p: os.mkfifo(p), "not a regular file (a FIFO), not a GGUF file"),
    ],
    ids=["missing", "not-gguf", "truncated-header", "truncated-tensors", "folder", "device", "fifo"],
)
def test_bad_model_file(tmp_path: Path, env: dict[str, str], make, problem: str) -> None:
    path = tmp_path / "model.gguf"
    make(path)
    result = subprocess.run([*INTERP, "-y", "--model", str(path), "-c", "hi"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=120, preexec_fn=_capped)  # /dev/zero was read whole
    _one_line_error(result, problem)
    assert str(path) in result.stderr


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _without_root_file_access() -> None:
    """In the child, before exec: root gives up the capabilities that let it read any file (CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH leave the bounding set), so a mode-0 file is as unreadable to it as to anyone."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_unreadable_model_file(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    path.chmod(0)
    # CI runs as root, which reads any file: there the child drops that power, so the test means the same for both.
    drop = _without_root_file_access if os.geteuid() == 0 else None
    try:
        result = subprocess.run([*INTERP, "--model", str(path), "-c", "hi"], capture_output=True, text=True, env=env,
                                cwd=tmp_path, timeout=120, preexec_fn=drop)
    except subprocess.SubprocessError as exc:
        pytest.skip(f"cannot drop root's file access here (no CAP_SETPCAP?): {exc}")
    _one_line_error(result, "permission denied")


def test_bad_script_file(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "s.json"
    path.write_text("[1, 2")
    _one_line_error(run_interp(["--model", f"script:{path}", "-c", "hi"], env=env, cwd=tmp_path), "not valid JSON")


def test_bad_flag_is_a_usage_error(tmp_path: Path, env: dict[str, str]) -> None:
    assert run_interp(["--max-attempts", "-1", "-c", "hi"], env=env, cwd=tmp_path).returncode == 2
    assert run_interp(["--no-such-flag"], env=env, cwd=tmp_path).returncode == 2


@pytest.mark.parametrize(("make", "problem"), [(lambda p: p.symlink_to("/dev/zero"), "(a device)"),
                                              (lambda p: os.mkfifo(p), "(a FIFO)")], ids=["device", "fifo"])
def test_a_script_that_is_no_regular_file_is_one_line(tmp_path: Path, env: dict[str, str], make, problem: str) -> None:
    path = tmp_path / "s.json"
    make(path)
    result = subprocess.run([*INTERP, "--model", f"script:{path}", "-c", "hi"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=120, preexec_fn=_capped)
    _one_line_error(result, f"cannot read the script: not a regular file {problem}")


def test_a_binary_script_file_is_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(bytes(range(256)))
    _one_line_error(run_interp(["--model", f"script:{path}", "-c", "hi"], env=env, cwd=tmp_path), "not a script")
