"""Condensation: the history shrinks in chunks and keeps what matters."""

from __future__ import annotations

from interp.stores.window import CUT_OUTPUT, TARGET, fit

PREFIX = [{"role": "system", "content": "s" * 40}]


def count(messages: list[dict]) -> int:
    return sum(len(m["content"]) // 4 + 4 for m in messages)


def turn(n: int, error: bool = False) -> list[dict]:
    return [
        {"role": "user", "content": f"request {n} " + "r" * 40, "kind": "request"},
        {"role": "assistant", "content": f"reply {n} " + "a" * 80, "kind": "reply"},
        {"role": "user", "content": f"output {n} " + "o" * 400, "kind": "feedback", "error": error},
        {"role": "assistant", "content": f"answer {n}", "kind": "reply"},
    ]


def test_nothing_happens_when_it_fits() -> None:
    history = turn(1)
    assert fit(PREFIX, history, 10_000, count) is None
    assert history == turn(1)


def test_old_outputs_are_cut_first() -> None:
    history = turn(1) + turn(2)
    room = count(PREFIX + history) - 10
    done = fit(PREFIX, history, room, count)
    assert done is not None and done.outputs_cut == 2 and done.messages_dropped == 0
    assert [m["content"] for m in history if m["kind"] == "feedback"] == [CUT_OUTPUT, CUT_OUTPUT]
    assert done.tokens_after <= room


def test_old_turns_are_dropped_in_a_chunk_keeping_first_request_latest_request_and_latest_error() -> None:
    history = [m for n in range(1, 12) for m in turn(n)] + turn(12, error=True)[:3]
    room = 400
    done = fit(PREFIX, history, room, count)
    assert done is not None and done.messages_dropped >= 30
    assert done.tokens_after <= room
    contents = [m["content"] for m in history]
    assert contents[0].startswith("request 1 ")
    assert "earlier messages were dropped" in contents[1]
    assert contents[-3].startswith("request 12 ")
    assert contents[-1].startswith("output 12 ")  # the latest error, whole


def test_chunking_leaves_room_for_later_turns() -> None:
    history = [m for n in range(1, 12) for m in turn(n)]
    room = 400
    done = fit(PREFIX, history, room, count)
    assert done is not None and done.tokens_after <= int(room * TARGET) + 20  # + the note that replaces them
    history += turn(12)
    assert fit(PREFIX, history, room, count) is None  # the next turn fits without a new condensation


def test_summary_mode_asks_for_a_summary_of_what_is_dropped() -> None:
    seen = []

    def summarize(messages: list[dict]) -> str:
        seen.extend(messages)
        return "The user computed things."

    history = [m for n in range(1, 12) for m in turn(n)]
    done = fit(PREFIX, history, 400, count, mode="summary", summarize=summarize)
    assert done is not None and done.mode == "summary"
    assert len(seen) == done.messages_dropped
    assert history[1]["content"].startswith(f"[Summary of {done.messages_dropped} earlier messages: The user")


def test_a_single_huge_message_is_cut_to_fit() -> None:
    history = [{"role": "user", "content": "x" * 20_000, "kind": "request"}]
    done = fit(PREFIX, history, 1000, count)
    assert done is not None and done.tokens_after <= 1000
    assert "characters cut" in history[0]["content"]


def test_a_window_short_by_more_than_the_longest_message_holds_still_ends() -> None:
    """With the fixed prefix near the window (SmolLM2, the small prompts, --ctx 768), the overflow outgrew the longest
    message: the cut kept no head or tail, and `content[-0:]`, the whole message, came back after its note, longer
    each pass, for ever."""
    history = [{"role": "user", "content": f"note {n} " + "n" * 300, "kind": "note"} for n in range(3)]
    history.append({"role": "user", "content": "Print 8 plus 3.", "kind": "request"})
    done = fit(PREFIX, history, 30, count)
    assert done is not None and done.tokens_after < done.tokens_before
    assert history[0]["content"] == "\n[... 307 characters cut ...]\n" and history[-1]["content"] == "Print 8 plus 3."


def test_a_summary_that_comes_back_empty_is_recorded_as_a_cut() -> None:
    history = [m for n in range(1, 12) for m in turn(n)]
    done = fit(PREFIX, history, 400, count, mode="summary", summarize=lambda messages: "  ")
    assert done is not None and done.mode == "summary"
    assert done.summary == "  " and not done.summarized
    assert history[1]["content"] == f"[{done.messages_dropped} earlier messages were dropped to save room.]"
    assert "dropped" in done.describe() and "summarized" not in done.describe()
    used = fit(PREFIX, [m for n in range(1, 12) for m in turn(n)], 400, count, mode="summary",
               summarize=lambda messages: "They added numbers.")
    assert used.summary == "They added numbers." and used.summarized and "summarized" in used.describe()
    cut = fit(PREFIX, [m for n in range(1, 12) for m in turn(n)], 400, count)
    assert cut.summary is None and not cut.summarized


def test_a_summary_longer_than_what_it_replaces_is_not_used() -> None:
    history = [m for n in range(1, 12) for m in turn(n)]
    done = fit(PREFIX, history, 400, count, mode="summary", summarize=lambda messages: "They added numbers. " * 2000)
    assert done is not None and not done.summarized and done.tokens_after < done.tokens_before
    assert history[1]["content"] == f"[{done.messages_dropped} earlier messages were dropped to save room.]"


def test_a_turn_of_many_short_messages_loses_its_oldest_middle_messages_to_fit() -> None:
    # A small model that repeats itself fills one turn with short replies and notes, none long enough to cut: after
    # the earlier turns are gone, the current turn's oldest messages go, never its request, its latest error or
    # its last message.
    current = [{"role": "user", "content": "request 2 " + "r" * 40, "kind": "request"}]
    for n in range(30):
        current += [{"role": "assistant", "content": f"reply {n} " + "a" * 100, "kind": "reply"},
                    {"role": "user", "content": f"note {n} " + "n" * 60, "kind": "note"}]
    current += [{"role": "user", "content": "error " + "e" * 150, "kind": "feedback", "error": True},
                {"role": "assistant", "content": "last " + "l" * 100, "kind": "reply"}]
    history = turn(1) + current
    room = 400
    done = fit(PREFIX, history, room, count)
    assert done is not None and done.tokens_after <= int(room * TARGET) + 20  # in a chunk, as earlier turns go
    contents = [m["content"] for m in history]
    assert contents[0].startswith("request 1 ") and "earlier messages were dropped" in contents[1]
    assert any(c.startswith("request 2 ") for c in contents)
    assert contents[-2].startswith("error ") and contents[-1].startswith("last ")
    assert not any(c.startswith("reply 0 ") for c in contents) and any(c.startswith("note 29 ") for c in contents)
    assert all("characters cut" not in c for c in contents)
