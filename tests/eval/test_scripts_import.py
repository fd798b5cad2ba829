"""Every script in scripts/ imports: a module moved inside interp/ must take its scripts' imports along."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.mark.parametrize("name", sorted(path.stem for path in SCRIPTS.glob("*.py")))
def test_the_script_imports(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(SCRIPTS))
    module = importlib.import_module(name)
    assert module.__doc__, f"scripts/{name}.py says what it is for"
    assert sys.modules[name] is module
