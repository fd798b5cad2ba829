"""Catalog models shipped in parts: assembled once, verified, stamped; every failure is one line naming the fix."""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

import pytest
from conftest import run_interp

from interp.models import store
from interp.models.base import ModelError
from interp.models.catalog import CATALOG, Entry

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

PARTS = [b"GGUF" + bytes(range(256)) * 40, bytes(reversed(range(256))) * 30, b"the end"]


@pytest.fixture
def entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Entry:
    """A catalog entry whose parts are real packages on sys.path (found with find_spec, like the real ones)."""
    site = tmp_path / "site"
    for number, data in enumerate(PARTS, 1):
        folder = site / f"fakemodel_part{number}" / "data"
        folder.mkdir(parents=True)
        (folder.parent / "__init__.py").write_text("raise ImportError('model packages are never imported')\n")
        (folder / f"part{number:02d}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("INTERP_MODELS_DIR", str(tmp_path / "models"))
    whole = b"".join(PARTS)
    return Entry(name="fake-model", title="Fake", install="pip install fake", version="1.0",
                 parts=tuple(f"fakemodel_part{n}" for n in range(1, len(PARTS) + 1)),
                 size=len(whole), sha256=hashlib.sha256(whole).hexdigest())


def test_parts_are_assembled_once_then_trusted_by_their_stamp(entry: Entry, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[float] = []
    path = store.model_file(entry, seen.append)
    assert path.read_bytes() == b"".join(PARTS)
    assert seen and seen[-1] == 1.0
    assert {p.name for p in path.parent.iterdir()} == {path.name, path.name + ".stamp"}

    def no_hashing(*_args: object) -> str:
        raise AssertionError("a stamped file must not be hashed again")

    monkeypatch.setattr(store, "sha256_of", no_hashing)
    assert store.model_file(entry) == path


@pytest.mark.parametrize("damage", ["one-byte", "truncated"])
def test_a_damaged_assembled_file_is_detected_and_assembled_again(entry: Entry, damage: str) -> None:
    path = store.model_file(entry)
    data = bytearray(path.read_bytes())
    if damage == "one-byte":
        data[100] ^= 0xFF
        path.write_bytes(bytes(data))
    else:
        path.write_bytes(bytes(data[:-10]))
    assert store.model_file(entry).read_bytes() == b"".join(PARTS)


def test_verify_rehashes_and_removes_a_corrupt_file_even_with_its_stamp_intact(entry: Entry) -> None:
    path = store.model_file(entry)
    assert store.verify(entry).startswith("ok")
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[5] ^= 1
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # the stamp still matches: only a re-hash can tell
    assert store.stamped(entry, path)
    assert store.verify(entry).startswith("corrupt")
    assert not path.exists()
    assert store.model_file(entry).read_bytes() == b"".join(PARTS)


def test_parts_that_do_not_make_the_pinned_file_are_refused(entry: Entry, tmp_path: Path) -> None:
    (tmp_path / "site" / "fakemodel_part2" / "data" / "part02.bin").write_bytes(b"something else")
    with pytest.raises(ModelError, match="do not make the pinned file"):
        store.model_file(entry)
    assert not list((tmp_path / "models").iterdir())


def test_a_missing_part_names_the_pip_command(entry: Entry, tmp_path: Path) -> None:
    (tmp_path / "site" / "fakemodel_part2" / "data" / "part02.bin").unlink()
    with pytest.raises(ModelError) as caught:
        store.model_file(entry)
    assert "pip install --force-reinstall fakemodel-part2==1.0" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_interrupted_assembly_leaves_nothing_behind(entry: Entry, tmp_path: Path) -> None:
    def interrupt(fraction: float) -> None:
        if fraction > 0.3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.model_file(entry, interrupt)
    assert not list((tmp_path / "models").iterdir())


def test_a_killed_assemblys_temporary_file_is_removed_later(entry: Entry, tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    stale = models / f".{store.target(entry).name}.999999999.tmp"
    stale.write_bytes(b"half")
    store.model_file(entry)
    assert not stale.exists()


def test_an_unwritable_models_folder_is_one_line(entry: Entry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("INTERP_MODELS_DIR", str(blocker / "models"))
    with pytest.raises(ModelError, match="INTERP_MODELS_DIR"):
        store.model_file(entry)


def test_the_real_default_with_an_unwritable_cache_exits_2_with_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "a-file").write_text("")
    env.pop("INTERP_MODEL")
    env["INTERP_MODELS_DIR"] = str(tmp_path / "a-file" / "models")
    result = run_interp(["-y", "-c", "hi"], env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "INTERP_MODELS_DIR" in result.stderr and "Traceback" not in result.stderr


def test_the_catalog_pins_sizes_and_hashes_of_the_part_models() -> None:
    for entry in CATALOG.values():
        if entry.parts:
            assert entry.size > 0 and len(entry.sha256) == 64 and entry.version
    default = CATALOG["qwen2.5-coder-1.5b"]
    assert default.installed(), f"the default model's parts should be installed with interp ({sys.executable})"


def test_an_extra_an_install_hint_names_is_declared_under_the_name_every_pip_reads() -> None:
    """pip before 23.3 (Python 3.11's own) matches an extra's name as typed, without PEP 685's normalization, while
    the wheel declares it normalized: `pip install 'interp[coder-0.5b]'` found no such extra, warned, and installed no
    model."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    declared = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    named = [extra for entry in CATALOG.values() for extra in re.findall(r"interp\[([^\]]+)\]", entry.install)]
    assert named, "no install hint names an extra"
    for extra in named:
        assert extra in declared
        assert extra == re.sub(r"[-_.]+", "-", extra).lower(), f"{extra} is not the name the wheel declares"
