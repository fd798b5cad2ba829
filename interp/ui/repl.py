"""The interactive side: drives a session's turns, answers its questions, and reads requests at a prompt."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

import platformdirs
from prompt_toolkit import PromptSession
from prompt_toolkit import prompt as ask_once
from prompt_toolkit.history import FileHistory

from interp.events import Confirm, Event, InputRequest
from interp.session import Session

CONFIRM_TEXT = "Run this code? [y/n/e/a] "
_SUFFIX = {"python": ".py", "shell": ".sh"}


class View(Protocol):
    def show(self, event: Event) -> None: ...

    def interrupted(self) -> None: ...


Ask = Callable[[str, bool], str]


def edit_in_editor(code: str, language: str) -> str:
    """Opens $VISUAL or $EDITOR (else vi) on the code and returns what the user saved."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=_SUFFIX.get(language, ".txt"), delete=False) as f:
        f.write(code)
        path = Path(f.name)
    try:
        subprocess.run([*shlex.split(editor), str(path)], check=False)
        return path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)


def answer_confirm(event: Confirm, ask: Ask) -> None:
    """Asks until the answer is one of y, n, e, a; for e, the code is replaced by the edited version."""
    while True:
        answer = ask(CONFIRM_TEXT, False).strip().lower()[:1]
        if answer in ("y", "n", "a"):
            event.answer = answer
            return
        if answer == "e":
            event.code = edit_in_editor(event.code, event.language)
            event.answer = "y"
            return


def drive(turn: Iterator[Event], view: View, ask: Ask | None) -> str:
    """Runs one turn to its end, showing each event; returns the turn's status. Ctrl-C at any point stops the
    turn (the session records what happened) and returns 'interrupted'."""
    status = "ok"
    try:
        for event in turn:
            view.show(event)
            if isinstance(event, Confirm):
                if ask is None:
                    raise RuntimeError("a confirmation was asked for with nobody to answer it")
                answer_confirm(event, ask)
            elif isinstance(event, InputRequest) and ask is not None:
                event.answer = ask(event.prompt, event.password)
            status = getattr(event, "status", status)
    except KeyboardInterrupt:
        # Raised here, in the view or at a question, the turn is still suspended: let it record the interruption.
        with contextlib.suppress(KeyboardInterrupt, StopIteration):
            turn.throw(KeyboardInterrupt)  # type: ignore[attr-defined]
        view.interrupted()
        return "interrupted"
    return status


def ask_question(text: str, password: bool) -> str:
    """A one-off question (confirmation, input()); its answers stay out of the request history."""
    return ask_once(text, is_password=password)


def history_path() -> Path:
    path = Path(platformdirs.user_data_dir("interp")) / "input_history"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def run_repl(session: Session, view: View) -> None:
    """Reads requests until Ctrl-D; Ctrl-C at the prompt clears the line."""
    prompt: PromptSession[str] = PromptSession(history=FileHistory(str(history_path())))

    while True:
        try:
            text = prompt.prompt("> ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        if text.strip():
            drive(session.turn(text), view, ask_question)
