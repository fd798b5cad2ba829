"""%commands typed at the prompt: they act on the session and never reach the model."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from interp.context import history_problem
from interp.events import Event, Notice
from interp.journal import read
from interp.nbimport import NotebookError, code_cells, summary
from interp.notebook import SUFFIXES, ExportError, write
from interp.session import Session

COMMANDS = {
    "help": "list these commands",
    "reset": "a new kernel and an empty conversation",
    "undo": "drop the last turn",
    "tokens": "what fills the context window, by message",
    "save": "%save FILE: write the conversation to a JSON file, a .ipynb notebook or a .py script (-f overwrites)",
    "load": "%load FILE: continue from a conversation saved with %save, or run a .ipynb notebook's cells",
    "model": "facts about the model",
    "kernel": "%kernel restart | %kernel interrupt",
    "history": "the requests of this conversation",
    "edit": "open the last code block in $EDITOR, then run what you save",
    "auto": "%auto on | %auto off: run code without asking",
    "verbose": "show each model call's figures (tokens, cache, speed)",
    "exit": "leave interp",
}


class Output(Protocol):
    def show(self, event: Event) -> None: ...

    def say(self, text: str) -> None: ...


@dataclass
class MagicContext:
    session: Session
    view: Output
    # Runs a turn-like event stream (for %edit) the way the REPL runs turns.
    drive: Callable[..., str]
    edit: Callable[[str, str], str]


def is_magic(line: str) -> bool:
    return line.lstrip().startswith("%")


def run_magic(line: str, ctx: MagicContext) -> bool:
    """Runs one %command; returns False when the REPL should end."""
    name, _, arg = line.strip()[1:].partition(" ")
    arg = arg.strip()
    session, view = ctx.session, ctx.view
    if name == "exit":
        return False
    if name not in COMMANDS:
        close = difflib.get_close_matches(name, COMMANDS, n=1)
        hint = f" Did you mean %{close[0]}?" if close else ""
        view.show(Notice(f"Unknown command %{name}.{hint} %help lists the commands.", "warning"))
    elif name == "help":
        view.say("\n".join(f"%{key:8} {text}" for key, text in COMMANDS.items()))
    elif name == "reset":
        session.reset()
        view.say("New kernel, empty conversation.")
    elif name == "undo":
        dropped = session.undo()
        view.say(f"Dropped the last turn ({dropped} messages)." if dropped else "Nothing to undo.")
    elif name == "tokens":
        view.say(_tokens(session))
    elif name == "save":
        _save(session, arg, view)
    elif name == "load" and arg.endswith(".ipynb"):
        _load_notebook(ctx, Path(arg).expanduser())
    elif name == "load":
        _load(session, arg, view)
    elif name == "model":
        view.say(_model_facts(session))
    elif name == "kernel":
        _kernel(session, arg, view)
    elif name == "history":
        requests = [m["content"] for m in session.history if m["kind"] == "request"]
        view.say("\n".join(f"{i:3}  {text}" for i, text in enumerate(requests, 1)) or "No requests yet.")
    elif name == "edit":
        last = session.last_code()
        if last is None:
            view.say("No code block yet.")
        else:
            language, code = last
            ctx.drive(session.run_code(language, ctx.edit(code, language)))
    elif name == "auto":
        if arg not in ("on", "off"):
            view.show(Notice("Use %auto on or %auto off.", "warning"))
        else:
            session.settings.auto_run = arg == "on"
            view.say(f"Auto-run is {arg}.")
    elif name == "verbose":
        view.verbose = not getattr(view, "verbose", False)
        view.say(f"Verbose is {'on' if view.verbose else 'off'}.")
    return True


def _tokens(session: Session) -> str:
    count = session.model.count_tokens
    rows, total = [], count(session.context())
    for message in [*session.prefix(), *session.history]:
        n = count([{"role": message["role"], "content": message["content"]}])
        label = message.get("kind", "prompt" if message["role"] == "system" else "example")
        preview = " ".join(message["content"].split())[:60]
        rows.append(f"{n:6}  {message['role']:9} {label:8} {preview}")
    return "\n".join([*rows, f"{total:6}  of a {session.model.n_ctx}-token window"])


def _save(session: Session, arg: str, view: Output) -> None:
    force, _, rest = arg.partition(" ")
    force = force == "-f"
    arg = rest.strip() if force else arg
    if not arg:
        view.show(Notice("Use %save FILE (or %save -f FILE to overwrite one).", "warning"))
        return
    path = Path(arg).expanduser()
    if path.suffix in SUFFIXES:
        _export(session, path, force, arg, view)
        return
    text = json.dumps({"model": session.model.name, "history": session.history}, indent=1)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    try:
        with os.fdopen(os.open(path, flags, 0o600), "w", encoding="utf-8") as f:  # private, like the journal
            f.write(text)
    except FileExistsError:
        view.show(Notice(f"{path} exists; %save -f {arg} overwrites it.", "warning"))
        return
    except OSError as exc:
        view.show(Notice(f"Cannot write {path}: {exc.strerror}", "error"))
        return
    view.say(f"Saved {len(session.history)} messages to {path}.")


def _load(session: Session, arg: str, view: Output) -> None:
    if not arg:
        view.show(Notice("Use %load FILE.", "warning"))
        return
    path = Path(arg).expanduser()
    try:
        history = json.loads(path.read_text(encoding="utf-8"))["history"]
        problem = history_problem(history)
        if problem:
            raise ValueError(f"not a conversation saved by %save ({problem})")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        view.show(Notice(f"Cannot load {path}: {getattr(exc, 'strerror', None) or exc}", "error"))
        return
    session.replace_history(history, str(path))
    view.say(f"Loaded {len(history)} messages from {path}. The kernel keeps its state; nothing was re-run.")


def _export(session: Session, path: Path, force: bool, arg: str, view: Output) -> None:
    """%save FILE.ipynb / FILE.py: the session so far, from its journal (what ran, with its outputs)."""
    try:
        cells = write(read(session.journal.path), path, overwrite=force)
    except FileExistsError:
        view.show(Notice(f"{path} exists; %save -f {arg} overwrites it.", "warning"))
        return
    except ExportError as exc:
        view.show(Notice(str(exc), "error"))
        return
    view.say(f"Saved the session to {path} ({cells} code {'cells' if path.suffix == '.ipynb' else 'blocks'}).")


def _load_notebook(ctx: MagicContext, path: Path) -> None:
    """%load FILE.ipynb: runs the notebook's code cells in the kernel, asking as for the model's code."""
    try:
        cells = code_cells(path)
    except NotebookError as exc:
        ctx.view.show(Notice(str(exc), "error"))
        return
    session = ctx.session
    template = session.prompts.notebook_loaded
    status = ctx.drive(session.run_cells(cells, lambda done: summary(template, path, cells, done)))
    if status != "interrupted":
        ctx.view.say(f"Loaded {path} ({len(cells)} code cells); the model was told what they did.")


def _model_facts(session: Session) -> str:
    model = session.model
    lines = [f"model: {model.name}", f"context window: {model.n_ctx} tokens"]
    path = getattr(model, "path", None)
    if path is not None:
        from interp.info import model_lines

        lines = [*lines, f"threads: {model.n_threads}", *model_lines(path)[:6]]
    stats = session.last_stats
    if stats is not None:
        lines.append(f"last call: {stats.prompt_tokens} prompt tokens ({stats.cached_tokens} cached), "
                     f"{stats.completion_tokens} generated at {stats.decode_tps:.1f} tokens/s")
    return "\n".join(lines)


def _kernel(session: Session, arg: str, view: Output) -> None:
    if arg == "restart":
        session.kernels.restart()
        view.say("The kernel was restarted: all variables are gone.")
    elif arg == "interrupt":
        session.kernels.python.interrupt()
        view.say("Interrupt sent to the kernel.")
    else:
        view.show(Notice("Use %kernel restart or %kernel interrupt.", "warning"))
