"""The command line's session: built from its Config once the kernel and the model are ready, then run in its mode
(a program, the interactive prompt, one request, or requests piped in), its outcome mapped to an exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interp import __version__
from interp.cli.startup import PendingModel, wait_visibly
from interp.cli.terminal import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, plain
from interp.common.events import FAILED, Notice, TurnStatus
from interp.common.screentext import complain
from interp.config import Config, redact_argv
from interp.models import Model
from interp.models.base import Seeded, model_file
from interp.prompts import Prompts, profile
from interp.runtime.kernels import Kernels
from interp.runtime.outputs import OutputFolder
from interp.session import Session
from interp.stores.conversations import history_from_journal, unfinished
from interp.stores.journal import Damage, Journal, describe_damage, read
from interp.stores.recall import MemoryStoreError, Recaller, open_recaller

if TYPE_CHECKING:
    from interp.ui.repl import View

def run(conf: Config, request: str | None, model: Model, kernels: Kernels, journal: Journal,
        resuming: bool, program: Any = None) -> int:
    """Runs the session in its mode; its exit code. The journal is closed at the end."""
    damage: list[Damage] = []
    records = read(journal.path, damage) if resuming else []
    session, memory = _session(conf, model, kernels, journal, resuming)
    view = _view(conf)
    if resuming:
        _resumed(session, view, records, damage, journal)
    try:
        return _mode(session, view, model, request, program)
    finally:
        if memory is not None:
            memory.close()
        journal.close()
        complain(f"journal saved to {journal.path}")


def _session(conf: Config, model: Model, kernels: Kernels, journal: Journal,
             resuming: bool) -> tuple[Session, Recaller | None]:
    """The session, its start journaled, and its memory of past conversations (None when it cannot be opened)."""
    prompt_profile = profile(model_file(model))
    journal.record("session", version=__version__, model=model.name, model_path=str(model_file(model) or ""),
                   prompts=prompt_profile or "standard",
                   cwd=os.getcwd(), pid=os.getpid(), argv=redact_argv(sys.argv[1:]),
                   kernel_pid=kernels.python.pid, resumed=resuming, sandbox=kernels.sandbox.describe(),
                   kernel=kernels.python.spec_name, kernel_argv=kernels.python.argv,
                   language_info=kernels.python.language_info)
    outputs = OutputFolder(journal.path.with_suffix(""))
    prompts = Prompts.load(profile=prompt_profile)
    try:
        memory = open_recaller(journal.path, prompts.recall, conf.recall)
    except MemoryStoreError as exc:  # memory is an aid, the journal is the record: the session goes on without it
        memory = None
        complain(f"{exc}. Recall is off for this session (--recall 0 turns it off quietly).")
    session = Session(Seeded(model, conf.seed), kernels, journal, prompts, conf, outputs,
                      interactive=sys.stdin.isatty(), memory=memory)
    return session, memory


def _view(conf: Config) -> View:
    from interp.ui.plain import PlainView
    from interp.ui.render import RichView

    return (PlainView(open_images=conf.open_images) if plain(conf)
            else RichView(open_images=conf.open_images, inline_images=conf.inline_images))


def _resumed(session: Session, view: View, records: list[dict[str, Any]], damage: list[Damage],
             journal: Journal) -> None:
    """A past conversation's messages, put back in the session; the user and the model are told what the new kernel
    lacks, and that the last run never finished when interp was stopped in its middle."""
    for line in describe_damage(damage):
        view.show(Notice(line, "warning"))
    history = history_from_journal(records)
    session.history[:] = history
    cut = unfinished(records)
    if history:
        session.conversation.add("user", "\n".join([session.prompts.resumed, *([session.prompts.unfinished] * cut)]),
                                 "note")
    view.show(Notice(f"Resumed {len(history)} messages from {journal.path}. The kernel is new: nothing was "
                     "re-run, so variables from before are gone." + (" The last run was cut off when interp was "
                                                                     "stopped: it never finished." if cut else ""),
                     "warning"))


def _mode(session: Session, view: View, model: Model, request: str | None, program: Any) -> int:
    """A program's steps, the interactive prompt (no request, a terminal), or each request (given, or piped in)."""
    from interp.ui.repl import ask_question, drive, run_repl

    stdin_tty = sys.stdin.isatty()
    ask = ask_question if stdin_tty else None
    if program is not None:
        from interp.programs.command import run_program

        return run_program(session, program, drive, view, ask)
    if request is None and stdin_tty:
        wait = None
        if isinstance(model, PendingModel):
            startup = model.startup
            wait = lambda: wait_visibly(startup, view.show)  # noqa: E731 - one line, named for what it does
        run_repl(session, view, wait)
        return EXIT_FAILED if session.last_status in FAILED else EXIT_OK
    status: TurnStatus = "ok"
    for text in [request] if request is not None else _stdin_requests():
        status = drive(session.turn(text), view, ask)
        if status == "interrupted":
            break
    return _exit_code(status)


def _stdin_requests() -> Iterator[str]:
    for line in sys.stdin:
        if line.strip():
            yield line.rstrip("\n")


def _exit_code(status: TurnStatus) -> int:
    if status == "interrupted":
        return EXIT_INTERRUPTED
    return EXIT_FAILED if status in FAILED else EXIT_OK
