"""Fits the conversation into the model's window, in chunks, so the cached prompt prefix stays stable in between.

History messages carry a `kind` beside role and content: 'request' (the user's words), 'reply' (the model's),
'feedback' (what code printed or raised), 'note' (interp's own words: declined, interrupted, condensed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from interp.common.messages import Message, last_request

CUT_OUTPUT = "[output cut to save room]"
# After condensing, the history should use at most this share of the room, so that many turns fit before the next
# condensation (each one changes the prompt and costs a full re-evaluation of what follows the system prompt).
TARGET = 0.6

Count = Callable[[list[Message]], int]
Summarize = Callable[[list[Message]], str]


@dataclass
class Condensed:
    """What one condensation did. In 'summary' mode, `summary` is what the model returned and `summarized` whether it
    replaced the dropped messages (an empty summary falls back to a cut); in 'cut' mode the summary is None."""

    mode: str
    tokens_before: int
    tokens_after: int
    outputs_cut: int
    messages_dropped: int
    summary: str | None = None
    summarized: bool = False

    def describe(self) -> str:
        parts = []
        if self.outputs_cut:
            parts.append(f"cut {self.outputs_cut} old outputs")
        if self.messages_dropped:
            verb = "summarized" if self.summarized else "dropped"
            parts.append(f"{verb} {self.messages_dropped} old messages")
        return f"History condensed ({', '.join(parts)}): {self.tokens_before} -> {self.tokens_after} tokens."


def _latest_error(history: list[Message]) -> int | None:
    for i in range(len(history) - 1, -1, -1):
        if history[i].get("kind") == "feedback":
            return i if history[i].get("error") else None
    return None


def fit(
    prefix: list[Message],
    history: list[Message],
    room: int,
    count: Count,
    mode: str = "cut",
    summarize: Summarize | None = None,
) -> Condensed | None:
    """Shrinks `history` in place when prefix + history would exceed `room` tokens; returns what was done, or None
    when it already fits. Keeps the first request, the latest request, the latest error and the last message whole."""
    before = count([*prefix, *history])
    if before <= room:
        return None
    error = _latest_error(history)

    def total() -> int:
        return count([*prefix, *history])

    outputs_cut = _cut_outputs(history, error)
    dropped = _drop_oldest(history, error, int(room * TARGET), total)
    done = Condensed(mode, before, 0, outputs_cut, len(dropped))
    if dropped:
        if mode == "summary" and summarize:
            done.summary = summarize(dropped)
            done.summarized = bool(done.summary.strip())
        if done.summarized and done.summary is not None:
            note = f"[Summary of {len(dropped)} earlier messages: {done.summary.strip()}]"
        else:
            note = f"[{len(dropped)} earlier messages were dropped to save room.]"
        history.insert(1, {"role": "user", "content": note, "kind": "note"})
        if done.summarized and total() >= before:
            # A summary as long as what it replaced (a small model summarizing its own summary grows it) saves no
            # room: the messages are dropped as in a cut.
            history[1] = {"role": "user", "content": f"[{len(dropped)} earlier messages were dropped to save room.]",
                          "kind": "note"}
            done.summarized = False
    done.tokens_after = _cut_longest(history, room, total)
    return done


def _cut_outputs(history: list[Message], error: int | None) -> int:
    """Replaces old outputs (all feedback but the latest error) with a short note; returns how many."""
    cut = 0
    for i, message in enumerate(history):
        if message.get("kind") == "feedback" and i != error and message["content"] != CUT_OUTPUT:
            message["content"] = CUT_OUTPUT
            cut += 1
    return cut


def _drop_oldest(history: list[Message], error: int | None, target: int, total: Callable[[], int]) -> list[Message]:
    """Drops whole messages from the oldest on, never the first request, the latest request, the latest error or the
    last message, until the history is back under the target; returns them. The earlier turns go first; the current
    turn's messages only once they are gone (a turn of many short replies and notes that does not fit on its own)."""
    turn_start = last_request(history) or 0
    earlier = [m for i, m in enumerate(history) if 0 < i < turn_start and i != error]
    current = [m for i, m in enumerate(history) if turn_start < i < len(history) - 1 and i != error]
    dropped: list[Message] = []
    for message in [*earlier, *current]:
        if total() <= target:
            break
        history.pop(next(i for i, m in enumerate(history) if m is message))
        dropped.append(message)
    return dropped


def _cut_longest(history: list[Message], room: int, total: Callable[[], int]) -> int:
    """The last resort: a single message too long for the window (a huge paste) keeps its head and tail, or only a
    note of the cut where the window is short by more than the message holds. Each pass shortens a message, so it
    ends. Returns the history's tokens."""
    current = total()
    while current > room:
        longest = max(range(len(history)), key=lambda i: len(history[i]["content"]))
        content = history[longest]["content"]
        if len(content) < 200:
            break
        half = max(len(content) - max(len(content) // 2, (current - room) * 4), 0) // 2
        history[longest]["content"] = (f"{content[:half]}\n[... {len(content) - 2 * half} characters cut ...]\n"
                                       f"{content[len(content) - half:]}")
        current = total()
    return current


def as_sent(messages: list[Message]) -> list[Message]:
    """Messages as a model takes them: role and content only."""
    return [{"role": m["role"], "content": m["content"]} for m in messages]
