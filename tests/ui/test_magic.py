"""%save and %load against files that are not what they should be, with a stand-in session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import records
from fakes import FakeKernel, FakeKernels, make_session

from interp.common.events import Event, Notice
from interp.runtime.kernel import Kernel
from interp.runtime.kernel_api import KernelError
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


@pytest.mark.parametrize("saved", [[1, 2, 3], 5, {"model": "m"}], ids=["a-list", "a-number", "no-history"])
def test_load_refuses_a_file_that_is_not_a_saved_conversation(tmp_path: Path, saved: object) -> None:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(saved))
    session, screen = magic(f"%load {path}")
    assert session.loaded == []
    assert screen.lines == [f"Cannot load {path}: not a conversation saved by %save (the history is not a list)"]


@pytest.mark.parametrize("content", ['[1, 2, 3]', '{"nbformat": 4, "nbformat_minor": 5, "cells": [], '
                                     '"metadata": {"kernelspec": {"name": "x", "display_name": "x", "language": 5}}}'],
                         ids=["a-list", "language-a-number"])
def test_load_of_a_wrong_typed_notebook_says_one_line_and_the_repl_goes_on(tmp_path: Path, content: str) -> None:
    path = tmp_path / "nb.ipynb"
    path.write_text(content)
    session = SimpleNamespace(model=SimpleNamespace(name="m"), history=[])
    screen = Screen()
    ctx = MagicContext(session, screen, lambda events: "ok", lambda code, language: code)
    assert run_magic(f"%load {path}", ctx) is True
    assert len(screen.lines) == 1 and screen.lines[0].startswith(f"{path} is not a valid notebook: ")


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


def attached(tmp_path: Path) -> tuple[object, Screen, FakeKernel]:
    """A session on a kernel interp did not start (--existing): it cannot be restarted."""
    kernel = FakeKernel()
    with pytest.raises(KernelError) as refused:
        Kernel(existing="unused.json").restart()  # what the real kernel says
    kernel.restart_error = str(refused.value)
    session = make_session(tmp_path, [], kernel)
    session.history.extend(HISTORY)
    return session, Screen(), kernel


@pytest.mark.parametrize("line", ["%reset", "%kernel restart"])
def test_reset_and_restart_of_an_attached_kernel_say_why_not(tmp_path: Path, line: str) -> None:
    session, screen, kernel = attached(tmp_path)
    run_magic(line, MagicContext(session, screen, lambda events: "ok", lambda code, language: code))
    assert kernel.restarts == 0
    assert "cannot restart a kernel it did not start" in screen.lines[-1] and "died" not in screen.lines[-1]
    assert session.history == ([] if line == "%reset" else HISTORY)


def test_kernel_interrupt_is_gone_ctrl_c_does_it(tmp_path: Path) -> None:
    session, screen, kernel = attached(tmp_path)
    run_magic("%kernel interrupt", MagicContext(session, screen, lambda events: "ok", lambda code, language: code))
    assert kernel.interrupts == 0 and "Ctrl-C" in screen.lines[-1]


@pytest.mark.parametrize("allowed", [True, False], ids=["sandboxed", "refused"])
def test_auto_on_puts_the_kernels_under_the_sandbox_or_stays_off(tmp_path: Path, allowed: bool) -> None:
    session = make_session(tmp_path, [], yes=False)
    kernels = session.kernels
    assert isinstance(kernels, FakeKernels)
    kernels.confining = (allowed, ["what the sandbox says"])
    screen = Screen()

    def drive(events: Iterator[Event]) -> str:
        for event in events:
            screen.show(event)
        return "ok"

    run_magic("%auto on", MagicContext(session, screen, drive, lambda code, language: code))
    assert kernels.confined == 1 and session.state.auto_run is allowed
    assert screen.lines == ["what the sandbox says", f"Auto-run is {'on' if allowed else 'off'}."]
    assert len(records(tmp_path / "j.jsonl", "auto_run")) == allowed
