"""%save and %load against files that are not what they should be, with a stand-in session."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from interp.events import Notice
from interp.ui.magic import MagicContext, run_magic

HISTORY = [{"role": "user", "content": "hi", "kind": "request"},
           {"role": "assistant", "content": "yo", "kind": "reply"}]


class Screen:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def show(self, event: object) -> None:
        self.lines.append(event.text if isinstance(event, Notice) else str(event))

    def say(self, text: str) -> None:
        self.lines.append(text)


def magic(line: str, history: list | None = None) -> tuple[SimpleNamespace, Screen]:
    loaded: list = []
    session = SimpleNamespace(model=SimpleNamespace(name="m"), history=list(history or HISTORY), loaded=loaded,
                              replace_history=lambda messages, source: loaded.append(messages))
    screen = Screen()
    run_magic(line, MagicContext(session, screen, lambda events: "ok", lambda code, language: code))
    return session, screen


@pytest.mark.parametrize("history", [[{"role": "user", "content": 5, "kind": "request"}], "text", [3],
                                     [{"role": "robot", "content": "x", "kind": "request"}]],
                         ids=["content-5", "not-a-list", "not-objects", "unknown-role"])
def test_load_refuses_a_history_it_cannot_use(tmp_path: Path, history: object) -> None:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps({"model": "m", "history": history}))
    session, screen = magic(f"%load {path}")
    assert session.loaded == []
    assert screen.lines[0].startswith(f"Cannot load {path}: not a conversation saved by %save")


def test_save_is_private_and_will_not_overwrite_without_f(tmp_path: Path) -> None:
    path = tmp_path / "conv.json"
    magic(f"%save {path}")
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text())["history"] == HISTORY
    path.write_text("precious")
    _, screen = magic(f"%save {path}")
    assert path.read_text() == "precious"
    assert f"%save -f {path} overwrites it" in screen.lines[0]
    magic(f"%save -f {path}")
    assert json.loads(path.read_text())["history"] == HISTORY
    session, _ = magic(f"%load {path}")
    assert session.loaded == [HISTORY]
