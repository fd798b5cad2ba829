"""%commands typed at the prompt: they act on the session and never reach the model."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from interp.common.events import Event, Notice
from interp.common.messages import history_problem
from interp.models.base import FromFile
from interp.runtime.kernel_api import KernelError
from interp.session import Session
from interp.stores.journal import Damage, describe_damage, read
from interp.stores.nbimport import NotebookError, code_cells, summary
from interp.stores.notebook import SUFFIXES, ExportError, write

COMMANDS = {
    "help": "list these commands",
    "reset": "a new kernel and an empty conversation",
    "undo": "drop the last turn",
    "tokens": "what fills the context window, by message",
    "save": "%save FILE: write the conversation to a JSON file, a .ipynb notebook or a .py script (-f overwrites)",
    "load": "%load FILE: continue from a conversation saved with %save, or run a .ipynb notebook's cells",
    "model": "facts about the model",
    "kernel": "%kernel restart: a fresh kernel, all variables lost (Ctrl-C interrupts running code)",
    "history": "the requests of this conversation",
    "edit": "open the last code block in $EDITOR, then run what you save",
    "auto": "%auto on | %auto off: run code without asking",
    "verbose": "show each model call's figures (tokens, cache, speed) and the rules that fired",
    "exit": "leave interp",
}


class Output(Protocol):
    verbose: bool  # a display preference, so the view keeps it (%verbose): each reply's figures are shown

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
    if name == "exit":
        return False
    handler = _HANDLERS.get(name)
    if handler is None:
        close = difflib.get_close_matches(name, COMMANDS, n=1)
        hint = f" Did you mean %{close[0]}?" if close else ""
        ctx.view.show(Notice(f"Unknown command %{name}.{hint} %help lists the commands.", "warning"))
    else:
        handler(ctx, arg.strip())
    return True


def _help(ctx: MagicContext, arg: str) -> None:
    ctx.view.say("\n".join(f"%{key:8} {text}" for key, text in COMMANDS.items()))


def _reset(ctx: MagicContext, arg: str) -> None:
    refused = ctx.session.reset()
    if refused is None:
        ctx.view.say("New kernel, empty conversation.")
    else:
        ctx.view.show(Notice(f"The conversation is empty; the kernel keeps its variables: {refused}.", "warning"))


def _undo(ctx: MagicContext, arg: str) -> None:
    dropped = ctx.session.undo()
    ctx.view.say(f"Dropped the last turn ({dropped} messages)." if dropped else "Nothing to undo.")


def _history(ctx: MagicContext, arg: str) -> None:
    requests = [m["content"] for m in ctx.session.history if m.get("kind") == "request"]
    ctx.view.say("\n".join(f"{i:3}  {text}" for i, text in enumerate(requests, 1)) or "No requests yet.")


def _edit(ctx: MagicContext, arg: str) -> None:
    last = ctx.session.last_code()
    if last is None:
        ctx.view.say("No code block yet.")
        return
    language, code = last
    ctx.drive(ctx.session.run_code(language, ctx.edit(code, language)))


def _auto(ctx: MagicContext, arg: str) -> None:
    if arg not in ("on", "off"):
        ctx.view.show(Notice("Use %auto on or %auto off.", "warning"))
        return
    session = ctx.session
    if arg == "on":
        ctx.drive(session.executor.enable_auto_run())  # under the sandbox, or refused with the reason
    else:
        session.state.auto_run = False
    # The OS cannot lift a sandbox from a process: once on, it stays on for the session's kernels.
    kept = " The sandbox stays on." if arg == "off" and session.kernels.sandbox.active else ""
    ctx.view.say(f"Auto-run is {'on' if session.state.auto_run else 'off'}.{kept}")


def _verbose(ctx: MagicContext, arg: str) -> None:
    ctx.view.verbose = not ctx.view.verbose
    ctx.view.say(f"Verbose is {'on' if ctx.view.verbose else 'off'}.")


def _tokens(session: Session) -> str:
    count = session.model.count_tokens
    rows, total = [], count(session.context())
    for message in [*session.prefix(), *session.history]:
        n = count([{"role": message["role"], "content": message["content"]}])
        label = message.get("kind", "prompt" if message["role"] == "system" else "example")
        preview = " ".join(message["content"].split())[:60]
        rows.append(f"{n:6}  {message['role']:9} {label:8} {preview}")
    return "\n".join([*rows, f"{total:6}  of a {session.model.n_ctx}-token window"])


def _save(ctx: MagicContext, arg: str) -> None:
    session, view = ctx.session, ctx.view
    first, _, rest = arg.partition(" ")
    force = first == "-f"
    arg = rest.strip() if force else arg
    if not arg:
        view.show(Notice("Use %save FILE (or %save -f FILE to overwrite one).", "warning"))
        return
    path = Path(arg).expanduser()
    if path.suffix in SUFFIXES:
        _export(ctx, path, force, arg)
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


def _load(ctx: MagicContext, arg: str) -> None:
    session, view = ctx.session, ctx.view
    if not arg:
        view.show(Notice("Use %load FILE.", "warning"))
        return
    path = Path(arg).expanduser()
    if path.suffix == ".ipynb":
        _load_notebook(ctx, path)
        return
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        history: Any = saved.get("history") if isinstance(saved, dict) else None
        problem = history_problem(history)
        if problem:
            raise ValueError(f"not a conversation saved by %save ({problem})")
    except (OSError, ValueError) as exc:
        view.show(Notice(f"Cannot load {path}: {getattr(exc, 'strerror', None) or exc}", "error"))
        return
    session.replace_history(history, str(path))
    view.say(f"Loaded {len(history)} messages from {path}. The kernel keeps its state; nothing was re-run.")


def _export(ctx: MagicContext, path: Path, force: bool, arg: str) -> None:
    """%save FILE.ipynb / FILE.py: the session so far, from its journal (what ran, with its outputs)."""
    damage: list[Damage] = []
    records = read(ctx.session.journal.path, damage)
    for line in describe_damage(damage):
        ctx.view.show(Notice(line, "warning"))
    try:
        cells = write(records, path, overwrite=force)
    except FileExistsError:
        ctx.view.show(Notice(f"{path} exists; %save -f {arg} overwrites it.", "warning"))
        return
    except ExportError as exc:
        ctx.view.show(Notice(str(exc), "error"))
        return
    ctx.view.say(f"Saved the session to {path} ({cells} code {'cells' if path.suffix == '.ipynb' else 'blocks'}).")


def _load_notebook(ctx: MagicContext, path: Path) -> None:
    """%load FILE.ipynb: runs the notebook's code cells in the kernel, asking as for the model's code."""
    try:
        cells = code_cells(path)
    except NotebookError as exc:
        ctx.view.show(Notice(str(exc), "error"))
        return
    template = ctx.session.prompts.notebook_loaded
    status = ctx.drive(ctx.session.run_cells(cells, lambda done: summary(template, path, cells, done), str(path)))
    if status != "interrupted":
        ctx.view.say(f"Loaded {path} ({len(cells)} code cells); the model was told what they did.")


def _model_facts(session: Session) -> str:
    model = session.model
    lines = [f"model: {model.name}", f"context window: {model.n_ctx} tokens"]
    if isinstance(model, FromFile):
        from interp.models.info import model_lines

        lines = [*lines, f"threads: {model.n_threads}", *model_lines(model.path)[:6]]
    stats = session.last_stats
    if stats is not None:
        lines.append(f"last call: {stats.prompt_tokens} prompt tokens ({stats.cached_tokens} cached), "
                     f"{stats.completion_tokens} generated at {stats.decode_tps:.1f} tokens/s")
    return "\n".join(lines)


def _kernel(ctx: MagicContext, arg: str) -> None:
    if arg != "restart":
        # No interrupt here: a %command is typed only while nothing runs, and Ctrl-C interrupts what does.
        ctx.view.show(Notice("Use %kernel restart (Ctrl-C interrupts running code).", "warning"))
        return
    try:
        ctx.session.kernels.restart()
    except KernelError as exc:
        ctx.view.show(Notice(f"The kernel was not restarted: {exc}.", "warning"))
        return
    ctx.view.say("The kernel was restarted: all variables are gone.")


_HANDLERS: dict[str, Callable[[MagicContext, str], None]] = {
    "help": _help, "reset": _reset, "undo": _undo, "history": _history, "edit": _edit, "auto": _auto,
    "verbose": _verbose, "save": _save, "load": _load, "kernel": _kernel,
    "tokens": lambda ctx, arg: ctx.view.say(_tokens(ctx.session)),
    "model": lambda ctx, arg: ctx.view.say(_model_facts(ctx.session)),
}
