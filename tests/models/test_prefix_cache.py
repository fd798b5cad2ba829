"""The fixed prefix's state on disk: saved once, loaded later, and a damaged or misplaced file never trusted."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import SMOLLM2, records, run_interp

from interp.models.base import GenParams, complete_text
from interp.models.prefix_cache import KEEP

pytestmark = pytest.mark.model

PREFIX = [
    {"role": "system", "content": "You write Python. The working directory is /tmp/project."},
    {"role": "user", "content": "Print 2 + 2."},
    {"role": "assistant", "content": "```python\nprint(2 + 2)\n```"},
]
OTHER_PREFIX = [{"role": "system", "content": "You write Python. The working directory is /srv/other."}, *PREFIX[1:]]
REQUEST = {"role": "user", "content": "Print the sum of the integers from 1 to 10."}


@pytest.fixture(scope="module")
def model():  # noqa: ANN201 - a LlamaModel, imported lazily like the code under test does
    from interp.models.llama import LlamaModel

    loaded = LlamaModel(SMOLLM2, n_ctx=1024)
    yield loaded
    loaded.close()


def _only_file(folder: Path) -> Path:
    files = list(folder.iterdir())
    assert len(files) == 1, files
    return files[0]


def _first_reply(model, prefix: list[dict[str, str]]) -> tuple[str, int]:  # noqa: ANN001
    text, stats = complete_text(model, [*prefix, REQUEST], GenParams(max_tokens=30, temperature=0.0))
    return text, stats.cached_tokens


def test_the_prefix_is_saved_once_then_loaded_and_the_first_request_evaluates_only_its_own_tokens(
    model, tmp_path: Path  # noqa: ANN001
) -> None:
    assert model.warm(PREFIX, tmp_path) == "saved"
    saved = _only_file(tmp_path)
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    cold_text, _ = _first_reply(model, PREFIX)
    model.llm.reset()
    assert model.warm(PREFIX, tmp_path) == "loaded"
    warm_text, cached = _first_reply(model, PREFIX)
    assert cached == len(model.prefix_tokens(PREFIX))
    assert warm_text == cold_text
    assert _only_file(tmp_path) == saved


def test_another_prefix_misses_and_gets_a_file_of_its_own(model, tmp_path: Path) -> None:  # noqa: ANN001
    model.warm(PREFIX, tmp_path)
    first = _only_file(tmp_path)
    assert model.warm(OTHER_PREFIX, tmp_path) == "saved"
    assert len(list(tmp_path.iterdir())) == 2
    assert first.exists()


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "another prefix's file", "not a state file"])
def test_a_damaged_or_misplaced_file_is_ignored_and_rewritten(model, tmp_path: Path, damage: str) -> None:  # noqa: ANN001
    model.warm(PREFIX, tmp_path)
    path = _only_file(tmp_path)
    reference, _ = _first_reply(model, PREFIX)
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped byte":
        at = len(data) - 1000
        path.write_bytes(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:])
    elif damage == "another prefix's file":
        other = tmp_path / "other"
        model.warm(OTHER_PREFIX, other)
        path.write_bytes(_only_file(other).read_bytes())
    else:
        path.write_bytes(b"\x00" * 64)
    assert model.warm(PREFIX, tmp_path) == "saved"
    assert path.read_bytes() == data
    text, cached = _first_reply(model, PREFIX)
    assert text == reference
    assert cached == len(model.prefix_tokens(PREFIX))


def test_an_unwritable_cache_folder_only_costs_the_speed_up(model, tmp_path: Path) -> None:  # noqa: ANN001
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert model.warm(PREFIX, blocked / "prefix") == "evaluated"
    _, cached = _first_reply(model, PREFIX)
    assert cached == len(model.prefix_tokens(PREFIX))


def test_sessions_in_one_folder_under_the_sandbox_load_the_prefix_the_first_saved(
        tmp_path: Path, env: dict[str, str]) -> None:
    """Each session has an output folder of its own (a new name); the system prompt must not name it, or no session's
    prefix is ever loaded again."""
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    for name in ("one", "two"):
        journal = tmp_path / f"{name}.jsonl"
        result = run_interp(["-y", "--max-tokens", "8", "--transcript", str(journal), "Say hi."], env=env,
                            cwd=tmp_path, timeout=300)
        assert result.returncode in (0, 1), result.stderr
        assert records(journal, "model_call")[0]["cached_tokens"] > 100
    assert len(list((tmp_path / "cache" / "interp" / "prefix").iterdir())) == 1


def test_only_the_states_used_last_are_kept(model, tmp_path: Path) -> None:  # noqa: ANN001
    model.warm(PREFIX, tmp_path)
    mine = _only_file(tmp_path)
    for n in range(KEEP + 3):  # other folders' and prompts' states, saved earlier, the oldest first
        old = tmp_path / f"{n:032x}.state"
        old.write_bytes(b"state")
        os.utime(old, (1_000_000 + n, 1_000_000 + n))
    os.utime(mine, (999_000, 999_000))  # the oldest of all until it is used again
    assert model.warm(PREFIX, tmp_path) == "loaded"
    assert model.warm(OTHER_PREFIX, tmp_path) == "saved"
    kept = {p.name for p in tmp_path.iterdir()}
    assert len(kept) == KEEP and mine.name in kept
    assert {f"{n:032x}.state" for n in range(5)}.isdisjoint(kept)  # the five least used went
