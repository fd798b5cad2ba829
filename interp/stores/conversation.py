"""What a session remembers: the history the model is sent, the journal that records it, the memory that recalls it.

`Conversation` stores and does no terminal I/O; the turn (turn.py) adds to it, and asks it what the model is sent and
to fit that into the window. The only events it yields are the notices of what it did on its own: messages condensed
out of the window, observations recalled into it.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import asdict

from interp.common.events import Event, Notice
from interp.common.extract import code_blocks
from interp.common.messages import last_request, new_message
from interp.config import Config
from interp.models.base import GenParams, Message, Model, complete_text, warm_prefix
from interp.stores.journal import Journal
from interp.stores.recall import Recaller
from interp.stores.window import as_sent, fit
from interp.versions.fresh import FreshStart


class Conversation:
    """The history, journaled as it grows and observed by the memory (recall.py), when there is one."""

    def __init__(self, journal: Journal, memory: Recaller | None = None) -> None:
        self.journal = journal
        self.memory = memory  # stores observations and recalls those that left the window (recall.py)
        self.history: list[Message] = []

    def add(self, role: str, content: str, kind: str, **extra: object) -> None:
        """Appends to the history and the journal. `kind`: request, reply, feedback or note (see window.py)."""
        self.history.append(new_message(role, content, kind, bool(extra.get("error"))))
        self.journal.record(role, content=content, kind=kind, **extra)
        if self.memory is not None:
            self.memory.observe(kind, content)

    def drop_last(self, why: str, **extra: object) -> None:
        """Drops the latest message (a reply drawn again, or a guess the model would confirm if it stayed in view),
        journaled as a resample so that a resumed conversation drops it too."""
        self.history.pop()
        self.journal.record("resample", why=why, **extra)

    def reset(self) -> None:
        """Empties the history and the memory."""
        self.history.clear()
        if self.memory is not None:
            self.memory.forget()
        self.journal.record("reset")

    def undo(self) -> int:
        """Drops the last turn (the latest request and everything after it); returns how many messages went."""
        last = last_request(self.history)
        if last is None:
            return 0
        dropped = len(self.history) - last
        del self.history[last:]
        self.journal.record("undo", messages=dropped)
        return dropped

    def replace_history(self, messages: list[Message], source: str) -> None:
        """Continues from another conversation's history (%load, --resume)."""
        self.history[:] = messages
        self.journal.record("load", source=source, history=messages)

    def last_code(self) -> tuple[str, str] | None:
        """The language and code of the latest code block the model wrote."""
        for message in reversed(self.history):
            if message["kind"] == "reply" and (blocks := code_blocks(message["content"])):
                return blocks[-1].language, blocks[-1].code
        return None

    def sent(self, prefix: list[Message], fresh: FreshStart | None = None,
             redraw: Message | None = None) -> list[Message]:
        """What the model is sent: the prefix, then the conversation, less the attempts a turn set aside (`fresh`,
        fresh.py); for a reply drawn again after it repeated code, the conversation before the turn and `redraw` in
        place of the turn (Turn._redrawn)."""
        history = fresh.sent(self.history) if fresh else self.history
        start = last_request(history)
        if redraw is not None and start is not None:
            history = [*history[:start], redraw]
        return as_sent([*prefix, *history])

    def fit_window(self, model: Model, prefix: list[Message], config: Config,
                   summarize: str) -> Generator[Event, None, None]:
        """Condenses the history when the next prompt (`prefix` and the history) and a reply would not fit the
        model's window (window.py: cut, or summarized by the model told `summarize`); journaled and said."""
        reply_room = min(config.max_tokens or model.n_ctx, model.n_ctx // 2)
        condensed = fit(
            prefix, self.history, model.n_ctx - reply_room,
            lambda messages: model.count_tokens(as_sent(messages)),
            config.condense, lambda dropped: self._summarize(model, prefix, summarize, dropped),
        )
        if condensed:
            self.journal.record("condense", **asdict(condensed))
            yield Notice(condensed.describe())

    @staticmethod
    def _summarize(model: Model, prefix: list[Message], system: str, dropped: list[Message]) -> str:
        """One short model call that summarizes messages about to leave the window (--condense summary). Its own
        system prompt takes the cache's place, so the fixed prefix is put back after it (models/prefix_cache.py: read
        from disk), else the next call evaluates the whole prefix again, and with a small window a session condenses
        often. (Sent after the prefix instead, the summary would share the cache, but a small model follows the
        few-shot and summarizes in code blocks.)"""
        transcript = "\n".join(f"{m['role']}: {m['content']}" for m in dropped)[-model.n_ctx * 2:]
        messages: list[Message] = [{"role": "system", "content": system}, {"role": "user", "content": transcript}]
        summary = complete_text(model, messages, GenParams(max_tokens=128, temperature=0.0))[0]
        warm_prefix(model, as_sent(prefix))
        return summary

    def recall(self, text: str) -> Generator[Event, None, None]:
        """Puts the observations relevant to the request that have left the window before it, as a note."""
        if self.memory is None:
            return
        recalled = self.memory.recall(text, self.history)
        if recalled:
            self.journal.record("recall", **recalled.record())
            self.add("user", recalled.note, "note")
            turns = ", ".join(dict.fromkeys(r.source for r in recalled.found))
            yield Notice(f"Recalled {len(recalled.found)} earlier observations ({turns}).")
        failure = self.memory.take_failure()
        if failure:
            yield Notice(failure, "warning")
