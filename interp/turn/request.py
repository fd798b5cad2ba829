"""A request read before the model sees it: the files it names attached or previewed (attach.py, frames.py), what the
kernel holds (state_view.py), the files it reads and asks to write (safekeep.py), the scripts it asks to change
(copies.py) and its function stubs (examples.py). Each piece of help runs under `helped`: the worst it can do is not
help."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from interp.reading import state_view
from interp.reading.attach import Attachment, asks_for_shell, expand, file_words, may_name_files
from interp.reading.frames import frames
from interp.reading.helping import helped
from interp.running import copies, safekeep
from interp.running.packages import can_import
from interp.turn.blocks import RequestFiles
from interp.turn.session_api import SessionLike
from interp.versions import examples


@dataclass
class Request:
    """A request as the model gets it (`sent`), what it attached, its function stubs, what the kernel held, and a line
    for each file it names that could not be attached."""

    sent: str
    attached: list[Attachment] = field(default_factory=list)
    stubs: list[str] = field(default_factory=list)
    held: list[tuple[str, str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def read(session: SessionLike, text: str, files: RequestFiles) -> Request:
    """The request `text` read for `session`; `files` gets what it reads, asks to write and asks to change."""
    names_files = may_name_files(text)
    cwd = session.cwd() if names_files else Path.cwd()  # the kernel is asked only when it matters
    unattached: tuple[str, list[Attachment], list[str]] = (text, [], [])  # the request as typed
    sent, attached, problems = helped(session.journal, "previews", unattached, lambda: expand(
        text, session.prompts.attach, cwd, session.prompts.attach_hints,
        session.prompts.named if previews_on(session, text) else None,
        lambda items: helped(session.journal, "frames", items,
                             lambda: frames(items, session.evaluate, can_import(session.evaluate)))))
    if names_files:
        existing, files.targets = file_words(text, cwd)
        files.sources = safekeep.sources(text, existing, files.targets)
        files.keeping.start(files.sources, cwd)
    held: list[tuple[str, str, str]] = []
    if session.config.session_state:
        held = helped(session.journal, "state", [], lambda: state_view.held(session.evaluate))
        if held:
            sent = f"{state_view.note(session.prompts.state, held)}\n\n{sent}"
    if copies.asks_change(text):
        files.scripts = helped(session.journal, "copies", [], lambda: copies.watch(
            [(item.path, item.named or str(item.path)) for item in attached]))
    stubs: list[str] = helped(session.journal, "stubs", [], lambda: examples.stubs(text))
    return Request(sent, attached, stubs, held, problems)


def previews_on(session: SessionLike, text: str) -> bool:
    """Whether the files and folders the request names without @ are previewed (attach.py): unless turned off, or the
    request asks a small model for a shell command. Shown a file's preview, a small model asked for a shell pipeline
    tends to treat the file's name as a variable (`echo "$words.txt" | ...`) instead of reading the file; other
    requests still gain from previews, so only shell requests go without."""
    return session.config.preview_files and not (session.prompts.small and asks_for_shell(text))
