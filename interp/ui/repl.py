"""The interactive side: drives a session's turns, answers its questions, and reads requests at a prompt."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Protocol

import platformdirs
from prompt_toolkit import PromptSession
from prompt_toolkit import prompt as ask_once
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from interp.common.events import Confirm, Event, InputRequest, InstallOffer, TurnEnd, TurnStatus
from interp.common.screentext import for_screen
from interp.session import Session
from interp.ui.magic import COMMANDS, MagicContext, is_magic, run_magic
from interp.ui.render import draft_share

TOOLBAR_REFRESH_S = 0.5
CONFIRM_TEXT = "Run this code? [y/n/e/a] "
INSTALL_TEXT = "Install {0} into the kernel's environment with %pip install {0}? [y/n] "
_SUFFIX = {"python": ".py", "shell": ".sh"}


class View(Protocol):
    verbose: bool

    def show(self, event: Event) -> None: ...

    def say(self, text: str) -> None: ...

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


def drive(turn: Generator[Event, None, None], view: View, ask: Ask | None) -> TurnStatus:
    """Runs one turn to its end, showing each event; returns the turn's status. Ctrl-C at any point stops the
    turn (the session records what happened) and returns 'interrupted'."""
    status: TurnStatus = "ok"
    try:
        for event in turn:
            view.show(event)
            if isinstance(event, Confirm):
                if ask is None:
                    raise RuntimeError("a confirmation was asked for with nobody to answer it")
                answer_confirm(event, ask)
            elif isinstance(event, InstallOffer) and ask is not None:
                event.answer = ask(INSTALL_TEXT.format(event.package), False).strip().lower()[:1]
            elif isinstance(event, InputRequest) and ask is not None:
                event.answer = ask(for_screen(event.prompt), event.password)
            elif isinstance(event, TurnEnd):
                status = event.status
    except (KeyboardInterrupt, SystemExit) as exc:  # SystemExit: SIGTERM or SIGHUP (cli.py)
        # Raised here, in the view or at a question, the turn is still suspended: let it record the interruption.
        with contextlib.suppress(KeyboardInterrupt, SystemExit, StopIteration):
            turn.throw(exc)
        if isinstance(exc, SystemExit):
            raise
        view.interrupted()
        return "interrupted"
    return status


def ask_question(text: str, password: bool) -> str:
    """A one-off question (confirmation, input()); its answers stay out of the request history."""
    return ask_once(text, is_password=password)


def history_path() -> Path:
    """The input history file, private: what a user types may name secrets."""
    path = Path(platformdirs.user_data_dir("interp")) / "input_history"
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    path.chmod(0o600)
    return path


class InputCompleter(Completer):
    """%commands at the start of the line; file paths for the word under the cursor, and after an @."""

    def __init__(self) -> None:
        self._paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        text = document.text_before_cursor
        if text.startswith("%") and " " not in text:
            for name, help_text in COMMANDS.items():
                if name.startswith(text[1:]):
                    yield Completion(name, start_position=-(len(text) - 1), display_meta=help_text)
            return
        word = text.split(" ")[-1]
        if word.startswith("@"):  # a file attached to the request (attach.py)
            yield from self._paths.get_completions(Document(word[1:], len(word) - 1), complete_event)
        elif "/" in word or word.startswith(("~", ".")):
            yield from self._paths.get_completions(Document(word, len(word)), complete_event)


def key_bindings() -> KeyBindings:
    """Enter sends; Esc-Enter, or a line ending in a backslash, starts a new line instead."""
    keys = KeyBindings()

    @keys.add("enter")
    def _(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.document.text_before_cursor.endswith("\\"):
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
        else:
            buffer.validate_and_handle()

    @keys.add("escape", "enter")
    def _(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return keys


def toolbar(session: Session) -> str:
    stats = session.last_stats
    used = f"{stats.prompt_tokens + stats.completion_tokens}" if stats else "0"
    speed = f"{stats.decode_tps:.0f} tok/s" if stats and stats.decode_tps else "- tok/s"
    if stats:
        speed = f"first token {stats.ttft_s:.2f}s │ {speed}{draft_share(stats, ', ', ' drafted')}"
    auto = "on" if session.state.auto_run else "off"
    sandbox = session.kernels.sandbox
    shown = sandbox.policy.mode if sandbox.active else "off"
    return for_screen(f" {session.model.name} │ context {used}/{session.model.n_ctx} │ {speed} │ auto-run {auto} "
                      f"│ sandbox {shown} │ %help")


def run_repl(session: Session, view: View, before_input: Callable[[], None] | None = None) -> None:
    """Reads requests until Ctrl-D or %exit; Ctrl-C at the prompt clears the line. `before_input` runs before a
    request or %command is acted on (waiting for a model still loading)."""
    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(history_path())),
        completer=InputCompleter(),
        complete_while_typing=False,
        key_bindings=key_bindings(),
        bottom_toolbar=lambda: toolbar(session),
        refresh_interval=TOOLBAR_REFRESH_S if before_input else 0,  # the toolbar follows a model still loading
    )
    magic = MagicContext(session, view, lambda events: drive(events, view, ask_question), edit_in_editor)
    while True:
        try:
            text = prompt.prompt("> ")
        except KeyboardInterrupt:
            continue
        except EOFError:
            return
        if before_input is not None and text.strip() and text.strip() != "%exit":
            try:
                before_input()
            except KeyboardInterrupt:
                continue
        if is_magic(text):
            if not run_magic(text, magic):
                return
        elif text.strip():
            drive(session.turn(text), view, ask_question)
