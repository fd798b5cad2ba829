"""--api-base end to end against a real OpenAI-compatible server: llama-cpp-python's, on 127.0.0.1, serving the
embedded model."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SMOLLM2, records, run_interp

pytestmark = pytest.mark.model

# The server loads the model with the same load parameters as interp (see load_params: no AMX path on AMX CPUs).
SERVER = """
import runpy, sys
import llama_cpp
from interp.models.llama_load import load_params
with load_params(llama_cpp, None):
    sys.argv = ["llama_cpp.server", *sys.argv[1:]]
    runpy.run_module("llama_cpp.server", run_name="__main__")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, "--model", str(SMOLLM2), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--model_alias", "smol"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/models", timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, "the server exited"
                time.sleep(0.2)
        else:
            pytest.fail("the server did not start")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_api_base_runs_the_same_loop(server: str, tmp_path: Path, env: dict[str, str]) -> None:
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--api-base", server, "--model", "smol", "--transcript", str(journal),
                         "--max-tokens", "200", "--temperature", "0", "-c", "Print the sum of 2 and 3."],
                        env=env, cwd=tmp_path, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    assert records(journal, "session")[0]["model"] == f"smol at {server}"
    calls = records(journal, "model_call")
    assert calls and all(c["completion_tokens"] > 0 for c in calls)
    assert records(journal, "assistant")[0]["content"].strip()
    assert records(journal, "execution"), "the server's reply should contain code that runs in the kernel"


def test_unreachable_server_is_a_clear_error(tmp_path: Path, env: dict[str, str]) -> None:
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--api-base", f"http://127.0.0.1:{free_port()}/v1", "--transcript", str(journal),
                         "-c", "hi"], env=env, cwd=tmp_path)
    assert "cannot reach the server" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
