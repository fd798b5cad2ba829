"""The memory store: BM25 ranking over FTS5, exclusion, queries that user text cannot steer, the file on disk."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from interp.stores import memory as memory_module
from interp.stores.memory import Memory, MemoryStoreError, Recall, fts_query, query_terms

NOTES = [
    ("Output: token: 9f3a1c", "output"),
    ("```python\nrows = len(open('data.csv').readlines())\nprint(rows)\n```", "answer"),
    ("Output: 1204", "output"),
    ("The file data.csv has 1204 rows.", "answer"),
    ("Plot the temperature column of weather.csv", "request"),
    ("Output: [image/png saved to out/output-1.png]", "output"),
]


@pytest.fixture
def memory() -> Memory:
    m = Memory()
    for turn, (text, kind) in enumerate(NOTES, 1):
        m.add(text, kind=kind, source=f"turn {turn}")
    return m


def test_the_most_relevant_observation_comes_first(memory: Memory) -> None:
    found = memory.search("How many rows does data.csv have?")
    assert {r.text for r in found[:2]} == {NOTES[3][0], NOTES[1][0]}  # the two that hold 'rows' and 'data.csv'
    assert [r.id for r in found[2:]] == [5]  # weather.csv: one word of the three
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)
    assert all(r.score > 0 for r in found)
    top = memory.search("temperature")[0]
    assert (top.id, top.text, top.kind, top.source) == (5, NOTES[4][0], "request", "turn 5")


def test_stemming_matches_other_forms_of_a_word(memory: Memory) -> None:
    assert memory.search("plotting temperatures")[0].id == 5


def test_a_rare_word_outranks_common_ones(memory: Memory) -> None:
    # 'output' is in three observations, 'token' in one: the one with the rare word wins.
    assert memory.search("output token")[0].text == "Output: token: 9f3a1c"


def test_unrelated_or_empty_queries_find_nothing(memory: Memory) -> None:
    assert memory.search("kubernetes deployment") == []
    assert memory.search("what is it?") == []  # stopwords only
    assert memory.search("") == []
    assert memory.search("rows", k=0) == []


def test_k_bounds_the_results(memory: Memory) -> None:
    assert len(memory.search("output rows data csv token", k=2)) == 2
    assert len(memory.search("output rows data csv token", k=10)) == 6


def test_excluded_ids_are_left_out_and_the_next_best_fill_in(memory: Memory) -> None:
    best = memory.search("rows data.csv", k=2)
    rest = memory.search("rows data.csv", k=2, exclude=[best[0].id])
    assert best[0].id not in [r.id for r in rest]
    assert rest[0] == best[1]
    assert len(rest) == 2
    assert memory.search("rows data.csv", exclude=iter([r.id for r in memory.search("rows data.csv", k=9)])) == []


@pytest.mark.parametrize("hostile", [
    'rows" OR "token', 'NEAR(rows token, 1)', 'text:rows', 'kind:output', 'row*', '^rows', '"', '""', "'",
    '(rows', 'rows)', 'rows AND NOT token', '-rows', '+rows', '{text}: rows', 'rows\x00token', "rows'; DROP TABLE x",
])
def test_fts5_syntax_in_user_text_is_only_words(memory: Memory, hostile: str) -> None:
    found = memory.search(hostile, k=10)  # never an FTS5 syntax error
    words = query_terms(hostile)
    # Each result holds one of the words of the text: nothing matched through an operator, a prefix or a column.
    assert all(any(w in r.text.lower() for w in words) for r in found)
    assert len(memory) == len(NOTES)


def test_queries_quote_each_word() -> None:
    assert fts_query('Print "x" OR y* NEAR(z)') == '"print" OR "x" OR "y" OR "near" OR "z"'
    assert fts_query("What was the value?") == '"value"'
    assert fts_query("total_sum") == '"total_sum"'  # one quoted string: FTS5 matches it as the phrase "total sum"
    assert query_terms("a b a B c " * 100) == ["b", "c"]
    assert len(query_terms(" ".join(f"w{i}" for i in range(500)))) == 48


def test_an_identifier_is_found_by_its_parts_and_whole() -> None:
    m = Memory()
    m.add("total_sum = 5050", kind="output", source="t")
    m.add("a sum total of things", kind="output", source="t")
    assert m.search("total_sum")[0].text == "total_sum = 5050"
    assert len(m.search("total_sum", k=5)) == 1  # a phrase: the two words next to each other


def test_observations_survive_closing_and_reopening(tmp_path: Path) -> None:
    path = tmp_path / "s.memory.sqlite"
    m = Memory(path)
    first = m.add("Output: token: 9f3a1c", kind="output", source="turn 2")
    m.close()
    again = Memory(path)
    assert len(again) == 1
    assert again.search("token")[0].id == first
    assert again.add("later", kind="answer", source="turn 3") == first + 1
    assert again.get(first) == Recall(first, "Output: token: 9f3a1c", "output", "turn 2", 0.0)
    assert again.get(999) is None
    again.close()


def test_the_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "s.memory.sqlite"
    Memory(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_damaged_file_gives_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "s.memory.sqlite"
    path.write_bytes(b"this is not a database at all\n" * 200)
    with pytest.raises(MemoryStoreError, match=r"s\.memory\.sqlite is damaged .*remove it") as info:
        Memory(path)
    assert "\n" not in str(info.value)


def test_a_file_cut_short_gives_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "s.memory.sqlite"
    m = Memory(path)
    for i in range(300):
        m.add(f"observation number {i} " * 20, kind="output", source="t")
    m.close()
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 3])
    with pytest.raises(MemoryStoreError, match="damaged"):
        reopened = Memory(path)
        reopened.search("observation", k=400)


def test_another_database_is_not_written_to(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE accounts (name TEXT)")
    with pytest.raises(MemoryStoreError, match="not an interp memory"):
        Memory(path)
    with sqlite3.connect(path) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["accounts"]


def test_a_locked_file_gives_a_clear_error_at_open_and_at_add(tmp_path: Path) -> None:
    path = tmp_path / "s.memory.sqlite"
    m = Memory(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(MemoryStoreError, match="locked by another process"):
            Memory(path)
        with pytest.raises(MemoryStoreError, match="locked by another process"):
            m.add("x", kind="output", source="t")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert m.add("x", kind="output", source="t") == 1
    m.close()


def test_a_sqlite_without_fts5_is_named_as_the_cause(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # An FTS5 module that does not exist stands in for a SQLite built without FTS5: the same "no such module" error.
    monkeypatch.setattr(memory_module, "_SCHEMA", memory_module._SCHEMA.replace("fts5", "fts5_absent"))
    with pytest.raises(MemoryStoreError, match="has no FTS5"):
        Memory(tmp_path / "s.memory.sqlite")


def test_ids_are_never_reused_after_clear() -> None:
    m = Memory()
    first = m.add("one", kind="output", source="t")
    m.clear()
    assert len(m) == 0 and m.search("one") == []
    assert m.add("one", kind="output", source="t") > first
    assert m.count("output") == 1 and m.count("answer") == 0


def test_a_folder_in_the_way_gives_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a folder")
    with pytest.raises(MemoryStoreError, match="cannot open the memory"):
        Memory(tmp_path / "blocker" / "s.memory.sqlite")


def test_an_observation_is_found_by_its_context_which_weighs_less_than_its_text() -> None:
    m = Memory()
    number = m.add("Output: 482913", kind="output", source="turn 2", context="Print a random integer")
    m.add("random integers are drawn with random.randint", kind="answer", source="turn 3")
    found = m.search("the random integer")
    assert [r.id for r in found][-1] == number  # found through its context, after the one that says it
    assert found[-1].text == "Output: 482913"  # the context is searched, not returned
    assert m.search("482913")[0].id == number
