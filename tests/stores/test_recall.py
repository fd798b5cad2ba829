"""The REPL's memory (recall.py): what is stored, what comes back, what stays out because the window still has it."""

from __future__ import annotations

from pathlib import Path
from string import Template

import pytest

from interp.prompts import Prompts
from interp.stores.memory import Memory, MemoryStoreError
from interp.stores.recall import RECALL_CHARS, Recaller, memory_path, open_recaller

TEMPLATE = Template("Observations:\n$observations")


def user(content: str, kind: str = "request") -> dict[str, str]:
    return {"role": "user", "content": content, "kind": kind}


TOPICS = ["sales", "weather", "invoices", "genome", "traffic", "budget"]


def filled(k: int = 3) -> Recaller:
    """Six turns, each on its own table: its request, the code, the output (a bare number) and a note."""
    recaller = Recaller(Memory(), TEMPLATE, k)
    for turn, topic in enumerate(TOPICS, 1):
        recaller.observe("request", f"load the {topic} table and count its rows")
        recaller.observe("reply", f"```python\n{topic} = load('{topic}.csv')\nprint(len({topic}))\n```")
        recaller.observe("feedback", f"Output:\n```text\n{turn * 1111}\n```")
        recaller.observe("note", "I interrupted that.")
    return recaller


def chatter(recaller: Recaller, n: int = 20) -> None:
    """Outputs on other subjects: in a memory of a few observations every word is in half of them, and BM25 gives
    such words no weight (MIN_SCORE); a real session has many more."""
    for i in range(n):
        recaller.observe("feedback", f"unrelated result number{i} about subject{i}")


def test_requests_answers_and_outputs_are_stored_with_their_turn_and_notes_are_not() -> None:
    recaller = filled()
    assert recaller.memory.count() == 18
    assert recaller.memory.count("request") == recaller.memory.count("answer") == recaller.memory.count("output") == 6
    hit = recaller.memory.search("4444")[0]
    assert (hit.kind, hit.source) == ("output", "turn 4")
    assert recaller.memory.search("interrupted") == []


def test_what_the_window_still_shows_is_not_recalled() -> None:
    recaller = filled()
    everything = recaller.recall("How many rows had the genome table?", [])
    assert everything is not None
    assert {r.kind for r in everything.found} == {"request", "answer", "output"}
    assert all(r.source == "turn 4" for r in everything.found)
    window = [user("load the genome table and count its rows"),
              {"role": "assistant", "content": "```python\ngenome = load('genome.csv')\nprint(len(genome))\n```",
               "kind": "reply"}]
    again = recaller.recall("How many rows had the genome table?", window)
    assert again is not None
    assert [r.text for r in again.found] == ["Output:\n```text\n4444\n```"]  # what condensation took from the window


def test_an_observation_shown_in_an_earlier_note_is_not_recalled_twice() -> None:
    recaller = filled(k=2)
    first = recaller.recall("genome rows", [])
    assert first is not None and len(first.found) == 2
    second = recaller.recall("genome rows", [user(first.note, "note")])
    assert second is not None and len(second.found) == 1
    assert second.found[0].id not in {r.id for r in first.found}
    assert recaller.recall("genome rows", [user(first.note, "note"), user(second.note, "note")]) is None


def test_k_bounds_the_note_and_identical_texts_come_once() -> None:
    recaller = Recaller(Memory(), TEMPLATE, 2)
    chatter(recaller)
    for _ in range(6):
        recaller.observe("feedback", "cleanup finished")
    recaller.observe("feedback", "cleanup failed")
    found = recaller.recall("did the cleanup work", [])
    assert found is not None and len(found.found) == 2
    assert len({r.text for r in found.found}) == 2


def test_nothing_relevant_means_no_note() -> None:
    recaller = filled()
    assert recaller.recall("kubernetes ingress", []) is None
    assert Recaller(Memory(), TEMPLATE, 0).recall("checksum", []) is None


def test_the_note_names_turn_and_kind_and_bounds_long_outputs() -> None:
    recaller = Recaller(Memory(), TEMPLATE, 3)
    chatter(recaller)
    recaller.observe("request", "print the log")
    recaller.observe("feedback", "Output:\nfirst line of the log\n" + "x" * 5000 + "\nlast line of the log")
    recalled = recaller.recall("log", [])
    assert recalled is not None
    assert "[turn 1, output]\nOutput:\nfirst line of the log" in recalled.note
    assert "last line of the log" in recalled.note
    assert "characters cut" in recalled.note
    assert len(recalled.note) < 2 * RECALL_CHARS + 200
    assert recalled.record()["ids"] == [r.id for r in recalled.found]
    assert recalled.record()["query"] == '"log"'


def test_the_shipped_template_fills_in() -> None:
    recaller = Recaller(Memory(), Prompts.load().recall, 3)
    chatter(recaller)
    recaller.observe("feedback", "token: 5f2a")
    recalled = recaller.recall("token", [])
    assert recalled is not None
    assert recalled.note.startswith("Observations from earlier in this session")
    assert recalled.note.endswith("[turn 0, output]\ntoken: 5f2a")
    assert "$" not in recalled.note


def test_a_resumed_memory_goes_on_counting_turns(tmp_path: Path) -> None:
    journal = tmp_path / "s.jsonl"
    first = open_recaller(journal, TEMPLATE, 3)
    assert first is not None
    first.observe("request", "one")
    first.observe("request", "two")
    first.close()
    again = open_recaller(journal, TEMPLATE, 3)
    assert again is not None
    again.observe("request", "three")
    assert again.memory.search("three")[0].source == "turn 3"
    again.close()
    assert memory_path(journal) == tmp_path / "s.memory.sqlite"
    assert open_recaller(journal, TEMPLATE, 0) is None


def test_forget_empties_the_memory() -> None:
    recaller = filled()
    recaller.forget()
    assert recaller.recall("checksum", []) is None
    assert recaller.memory.count() == 0


class Broken(Memory):
    """A memory whose disk filled up after it opened."""

    def add(self, text: str, *, kind: str, source: str, context: str = "") -> int:
        raise MemoryStoreError("cannot use the memory /x/s.memory.sqlite: database or disk is full")


def test_a_failing_memory_is_reported_once_and_then_left_alone() -> None:
    recaller = Recaller(Broken(), TEMPLATE, 3)
    recaller.observe("request", "one")
    recaller.observe("request", "two")
    failure = recaller.take_failure()
    assert failure is not None and "disk is full" in failure and "off for the rest of the session" in failure
    assert recaller.take_failure() is None
    assert recaller.recall("one", []) is None
    recaller.observe("request", "three")
    assert recaller.take_failure() is None


@pytest.mark.parametrize("kind", ["request", "reply", "feedback"])
def test_blank_observations_are_not_stored(kind: str) -> None:
    recaller = Recaller(Memory(), TEMPLATE, 3)
    recaller.observe(kind, "  \n")
    assert recaller.memory.count() == 0


def test_an_output_is_found_by_the_words_of_its_request() -> None:
    recaller = Recaller(Memory(), TEMPLATE, 1)
    chatter(recaller)
    recaller.observe("request", "Print a random integer between 100000 and 999999")
    recaller.observe("reply", "```python\nimport random\nprint(random.randint(100000, 999999))\n```")
    recaller.observe("feedback", "Output:\n```text\n482913\n```")
    recaller.observe("request", "Print 3 times 7")
    recaller.observe("feedback", "Output:\n```text\n21\n```")
    window = [user("Print a random integer between 100000 and 999999"),
              {"role": "assistant", "content": "```python\nimport random\nprint(random.randint(100000, 999999))\n```",
               "kind": "reply"}]
    recalled = recaller.recall("Which random integer was printed?", window)
    assert recalled is not None and "482913" in recalled.note


def test_hits_on_words_that_most_observations_have_are_not_recalled() -> None:
    recaller = Recaller(Memory(), TEMPLATE, 3)
    for k in range(1, 11):
        recaller.observe("request", f"print {k} times 7")
        recaller.observe("feedback", f"Output: {k * 7}")
    found = recaller.recall("print 35 times 7", [])
    assert found is not None
    assert [r.text for r in found.found] == ["Output: 35"]  # 'print', 'times', '7' are everywhere: only 35 counts
    assert recaller.recall("print 99 times 7", []) is None
