"""Past conversations: listing the journals, and rebuilding a conversation's history from one (--resume)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from interp.common.messages import last_request, new_message, unpreviewed
from interp.models.base import Message
from interp.stores.journal import Damage, read


def sessions_dir() -> Path:
    return Path(platformdirs.user_data_dir("interp")) / "sessions"


def history_from_journal(records: list[dict[str, Any]]) -> list[Message]:
    """Replays a journal's records into the conversation history they left behind."""
    history: list[Message] = []
    for record in records:
        kind = record.get("kind")
        if record["type"] in ("user", "assistant") and kind:
            history.append(new_message(record["type"], record["content"], kind, bool(record.get("error"))))
        elif record["type"] == "reset":
            history.clear()
        elif record["type"] == "resample" and history and history[-1]["role"] == "assistant":
            history.pop()  # the reply re-sent failing code unchanged: dropped, and the model asked again
        elif record["type"] == "unpreviewed":
            unpreviewed(history, record["content"])  # an answer read off a preview: the request sent again as typed
        elif record["type"] == "undo":
            last = last_request(history)
            if last is not None:
                del history[last:]
        elif record["type"] == "load":
            history = [new_message(m["role"], m["content"], m["kind"], bool(m.get("error")))
                       for m in record["history"]]
    return history


def unfinished(records: list[dict[str, Any]]) -> bool:
    """Whether the journal ends in a reply whose code never finished: interp was stopped (kill -9, a power cut)
    after the reply, before its run was recorded."""
    pending = False
    for record in records:
        if record["type"] == "assistant" and record.get("kind") == "reply":
            pending = "```" in str(record.get("content", "")) or "<python>" in str(record.get("content", ""))
        elif record["type"] in ("execution", "turn_end", "reset", "undo", "load"):
            pending = False
    return pending


@dataclass
class Conversation:
    id: str
    path: Path
    started: str
    model: str
    turns: int
    first_request: str
    damage: list[Damage] = field(default_factory=list)


def summarize(path: Path) -> Conversation:
    damage: list[Damage] = []
    try:
        records = read(path, damage)
        mtime = path.stat().st_mtime
    except OSError as exc:
        records, mtime = [], 0.0
        damage.append(Damage(path, 0, f"cannot read it: {exc.strerror}"))
    session = next((r for r in records if r["type"] == "session"), {})
    requests = [str(r.get("typed", r["content"])) for r in records  # typed: before @files were attached
                if r["type"] == "user" and r.get("kind") == "request"]
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(session.get("ts", mtime)))
    return Conversation(path.stem, path, started, str(session.get("model", "?")), len(requests),
                        requests[0] if requests else "", damage)


def conversations(folder: Path | None = None) -> list[Conversation]:
    """Every journal in the folder, newest first."""
    folder = folder or sessions_dir()
    paths = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True) if folder.is_dir() else []
    return [summarize(p) for p in paths]


def find(conversation_id: str | None, folder: Path | None = None) -> Path | None:
    """The journal of a conversation by id (or a unique prefix of it); the newest one when id is None."""
    found = conversations(folder)
    if conversation_id is None:
        return found[0].path if found else None
    matches = [c.path for c in found if c.id.startswith(conversation_id)]
    return matches[0] if len(matches) == 1 else None
