"""Models by name: the catalog, and GGUF files that other tools left on disk (Hugging Face, LM Studio, Ollama, ...)."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import INTERP, SMOLLM2, records, run_interp

from interp.models.base import ModelError


@pytest.fixture
def home(tmp_path: Path, env: dict[str, str]) -> Path:
    """A HOME holding a Hugging Face cache, an LM Studio folder and an Ollama store, each with a real GGUF file, and
    a file that only looks like one."""
    home = tmp_path / "home"
    hf = home / ".cache/huggingface/hub/models--HuggingFaceTB--SmolLM2-135M-Instruct-GGUF/snapshots/abc123"
    hf.mkdir(parents=True)
    shutil.copy(SMOLLM2, hf / "smollm2-135m-instruct-q4_1.gguf")
    lms = home / ".lmstudio/models/lmstudio-community/tiny-chat-GGUF"
    lms.mkdir(parents=True)
    shutil.copy(SMOLLM2, lms / "tiny-chat-Q4_1.gguf")
    (lms / "broken-Q4_0.gguf").write_bytes(b"not a model")
    store = home / ".ollama/models"
    digest = hashlib.sha256(SMOLLM2.read_bytes()).hexdigest()
    (store / "blobs").mkdir(parents=True)
    shutil.copy(SMOLLM2, store / "blobs" / f"sha256-{digest}")
    (store / "blobs" / "sha256-0123").write_text('{"temperature": 0.2}')
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:0123",
                   "size": 20},
        "layers": [
            {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}",
             "size": SMOLLM2.stat().st_size},
            {"mediaType": "application/vnd.ollama.image.params", "digest": "sha256:0123", "size": 20},
        ],
    }
    folder = store / "manifests/registry.ollama.ai/library/smollm2"
    folder.mkdir(parents=True)
    (folder / "135m").write_text(json.dumps(manifest))
    (store / "manifests/registry.ollama.ai/library/garbage").mkdir(parents=True)
    (store / "manifests/registry.ollama.ai/library/garbage/latest").write_text("{not json")
    env["HOME"] = str(home)
    env.pop("INTERP_MODEL")
    for variable in ("HF_HOME", "HF_HUB_CACHE", "LLAMA_CACHE", "OLLAMA_MODELS", "INTERP_MODELS_DIR"):
        env.pop(variable, None)
    return home


def test_models_lists_the_catalog_and_every_tools_files(home: Path, env: dict[str, str], tmp_path: Path) -> None:
    result = run_interp(["--models"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for name in ("qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b", "smollm2-135m", "smollm2-135m-instruct-q4_1",
                 "tiny-chat-Q4_1", "smollm2:135m"):
        assert name in out, name
    assert "huggingface HuggingFaceTB/SmolLM2-135M-Instruct-GGUF" in out
    assert "LM Studio" in out and "ollama" in out
    assert "broken" not in out and "garbage" not in out
    rows = [line for line in out.splitlines() if "tiny-chat-Q4_1" in line]
    assert "llama" in rows[0] and "Q4_1" in rows[0] and "8192" in rows[0]


@pytest.mark.parametrize(("spec", "where"), [("ollama:smollm2:135m", "blobs"), ("tiny-chat", "tiny-chat-Q4_1.gguf"),
                                              ("smollm2-135m-instruct", "snapshots")])
def test_a_turn_runs_on_a_model_called_by_name(home: Path, env: dict[str, str], tmp_path: Path, spec: str,
                                               where: str) -> None:
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", spec, "--max-tokens", "48", "--transcript", str(journal),
                         "Print the number 7."], env=env, cwd=tmp_path, timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    session = records(journal, "session")[0]
    assert where in session["model_path"]
    assert records(journal, "model_call")


@pytest.mark.parametrize(("spec", "fragment"), [("smollm2", "ambiguous"), ("qwen-coder-7b", "no model named"),
                                                ("ollama:nothere", "no Ollama model")])
def test_an_ambiguous_or_unknown_name_is_one_line_and_exit_2(home: Path, env: dict[str, str], tmp_path: Path,
                                                             spec: str, fragment: str) -> None:
    result = run_interp(["-y", "--model", spec, "hi"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.stderr


def test_ambiguity_lists_the_candidates(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from interp.models.lookup import resolve

    monkeypatch.setenv("HOME", str(home))
    with pytest.raises(ModelError) as caught:
        resolve("smollm2")
    assert "smollm2-135m-instruct-q4_1" in str(caught.value) and "smollm2:135m" in str(caught.value)
    assert resolve("smollm2-135m").entry is not None  # a catalog name wins over parts of file names
    assert resolve("tiny").path is not None and resolve("tiny").path.name == "tiny-chat-Q4_1.gguf"


def test_dozens_of_files_are_each_listed_once(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from interp.ui.listing import models_table

    folder = home / ".cache/llama.cpp"
    folder.mkdir(parents=True)
    for n in range(40):
        (folder / f"model-{n:02d}.gguf").hardlink_to(SMOLLM2)
    (folder / "zz-again.gguf").symlink_to(folder / "model-00.gguf")
    monkeypatch.setenv("HOME", str(home))
    lines = models_table()
    assert len([line for line in lines if "llama.cpp cache" in line]) == 40
    assert not any(line.startswith("zz-again ") for line in lines)


def _hostile_manifests(home: Path) -> Path:
    """Beside the good manifest: one whose model digest is a number, one that is a FIFO, one that is /dev/zero, one
    whose digest is a path, one whose blob is /dev/zero."""
    library = home / ".ollama/models/manifests/registry.ollama.ai/library"
    layer = {"mediaType": "application/vnd.ollama.image.model"}
    for name, digest in (("number", 5), ("path", "/dev/zero"), ("zeroblob", "sha256:abcd")):
        (library / name).mkdir()
        (library / name / "latest").write_text(json.dumps({"layers": [{**layer, "digest": digest}]}))
    (home / ".ollama/models/blobs/sha256-abcd").symlink_to("/dev/zero")
    (library / "fifo").mkdir()
    os.mkfifo(library / "fifo/latest")
    (library / "zero").mkdir()
    (library / "zero/latest").symlink_to("/dev/zero")
    return library


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def test_bad_ollama_manifests_are_skipped_by_models(home: Path, env: dict[str, str], tmp_path: Path) -> None:
    _hostile_manifests(home)
    result = subprocess.run([*INTERP, "--models"], capture_output=True, text=True, env=env, cwd=tmp_path,
                            timeout=60, preexec_fn=_capped)
    assert result.returncode == 0 and result.stderr == "", result.stderr[-2000:]
    assert "smollm2:135m" in result.stdout and "tiny-chat-Q4_1" in result.stdout
    for name in ("number", "path", "zeroblob", "fifo", "zero"):
        assert f"{name}:latest" not in result.stdout


@pytest.mark.parametrize(("name", "fragment"), [
    ("number", "has a model layer whose digest is not a digest (5)"),
    ("path", "has a model layer whose digest is not a digest ('/dev/zero')"),
    ("zeroblob", "names a model file that is a device, not a file"),
    ("fifo", "cannot be read: not a regular file (a FIFO)"),
    ("zero", "cannot be read: not a regular file (a device)"),
])
def test_a_bad_ollama_manifest_asked_for_by_name_is_one_line(home: Path, env: dict[str, str], tmp_path: Path,
                                                             name: str, fragment: str) -> None:
    library = _hostile_manifests(home)
    result = subprocess.run([*INTERP, "-y", "--model", f"ollama:{name}", "hi"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=60, preexec_fn=_capped)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"interp: Ollama model '{name}': its manifest "
                                                   f"{library / name / 'latest'} {fragment}"), result.stderr


def test_a_good_ollama_name_still_resolves_beside_bad_manifests(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from interp.models.lookup import resolve

    _hostile_manifests(home)
    monkeypatch.setenv("HOME", str(home))
    found = resolve("ollama:smollm2:135m").path
    assert found is not None and found.parent.name == "blobs"
