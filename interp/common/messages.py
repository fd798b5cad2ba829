"""The messages of a conversation: what a model is sent, and what a session's history keeps of each (its kind, and
whether feedback reports an error)."""

from __future__ import annotations

from typing import TypedDict


class _Said(TypedDict):
    role: str  # 'system', 'user' or 'assistant'
    content: str


class Message(_Said, total=False):
    """A chat message. Messages of the session's history also carry their `kind` (KINDS) and, for feedback, whether
    it reports an error; a model is sent role and content only."""

    kind: str
    error: bool


def new_message(role: str, content: str, kind: str, error: bool = False) -> Message:
    """A history message; feedback carries whether it reports an error (the latest error is never condensed)."""
    made: Message = {"role": role, "content": content, "kind": kind}
    if kind == "feedback":
        made["error"] = error
    return made


ROLES = ("user", "assistant")
KINDS = ("request", "reply", "feedback", "note")


def history_problem(history: object) -> str | None:
    """What makes a value unusable as a conversation history (from %load or a journal), or None when it is one."""
    if not isinstance(history, list):
        return "the history is not a list"
    for i, message in enumerate(history, 1):
        if not isinstance(message, dict):
            return f"message {i} is not an object"
        if message.get("role") not in ROLES or message.get("kind") not in KINDS:
            return f"message {i} has no role ({'/'.join(ROLES)}) or kind ({'/'.join(KINDS)})"
        if not isinstance(message.get("content"), str):
            return f"message {i} has no text content"
    return None


def last_request(history: list[Message]) -> int | None:
    """The index of the latest request: where the current (or last) turn starts."""
    return max((i for i, m in enumerate(history) if m.get("kind") == "request"), default=None)


def unpreviewed(history: list[Message], typed: str) -> bool:
    """Drops the answer that ends the history and puts the latest request back as typed, without the previews it was
    sent with (Turn._unpreviewed); False, changing nothing, when the history does not end so."""
    start = last_request(history)
    if start is None or not history or history[-1]["role"] != "assistant":
        return False
    history.pop()
    history[start] = {**history[start], "content": typed}
    return True
