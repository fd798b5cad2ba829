"""A session's memory: every observation is stored in a full-text index and the most relevant come back on request.

The index is SQLite's FTS5 (from Python's own sqlite3), ranked by BM25. A query is built from the words of a
request, each word quoted, so nothing a user types can act as FTS5 query syntax. A Python whose SQLite lacks FTS5
fails at open with a MemoryStoreError that says so; there is no hand-written fallback index.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

APPLICATION_ID = 0x696E7470  # 'intp': marks a SQLite file as an interp memory, so another database is not written to
SCHEMA_VERSION = 1
MAX_TERMS = 48  # a pasted page yields a bounded query; the first distinct words are kept
LOCK_WAIT_S = 1.0  # another process writing the same file: wait this long, then fail with a clear message

# Words that carry no topic of their own (articles, pronouns, auxiliaries, question words, politeness): matched, they
# would rank every observation that happens to contain them.
_STOPWORD_LIST = """
a about above after again against all am an and any are as at be because been before being below between both but
by can could did do does doing done down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of off on
once only or other our ours ourselves out over own please same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves tell show give earlier
"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())

# The observations, and a full-text index over their text and context that triggers keep in step. AUTOINCREMENT:
# an id is never reused, even after clear(), so an id in the journal names one observation.
_SCHEMA = """
CREATE TABLE observations (
    id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL,
    context TEXT NOT NULL);
CREATE VIRTUAL TABLE observations_index USING fts5(
    text, context, content = 'observations', content_rowid = 'id', tokenize = 'porter unicode61');
CREATE TRIGGER observations_added AFTER INSERT ON observations BEGIN
    INSERT INTO observations_index (rowid, text, context) VALUES (new.id, new.text, new.context); END;
CREATE TRIGGER observations_removed AFTER DELETE ON observations BEGIN
    INSERT INTO observations_index (observations_index, rowid, text, context)
    VALUES ('delete', old.id, old.text, old.context); END;
"""
# BM25 weights of the two columns: words of the observation itself count twice as much as words of its context.
_WEIGHTS = "1.0, 0.5"
_TABLES = {"observations", "observations_index"}

_WORD = re.compile(r"\w+", re.UNICODE)


class MemoryStoreError(Exception):
    """The memory file cannot be used; the message is one line naming the file and what to do."""


@dataclass(frozen=True)
class Recall:
    """One stored observation found by a search; `score` is BM25's relevance (higher is more relevant)."""

    id: int
    text: str
    kind: str
    source: str
    score: float


def query_terms(text: str) -> list[str]:
    """The distinct content words of a request, lower-cased, in order, stopwords dropped, at most MAX_TERMS."""
    terms: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and word not in terms:
            terms.append(word)
    return terms[:MAX_TERMS]


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression for a request: any of its words, each a quoted string (a double quote inside one is
    doubled, FTS5's escape), so operators, column filters and prefixes in the text are only words."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in query_terms(text))


class Memory:
    """Observations in one SQLite file (or in memory when `path` is None), searchable by relevance to a text."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        where = ":memory:" if path is None else str(path)
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                # Created private before SQLite opens it; SQLite gives its rollback journal the same mode.
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
            self._db = sqlite3.connect(where, timeout=LOCK_WAIT_S, isolation_level=None)
        except OSError as exc:
            raise MemoryStoreError(f"cannot open the memory {path}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        try:
            self._prepare()
        except (sqlite3.Error, MemoryStoreError) as exc:
            self._db.close()
            raise exc if isinstance(exc, MemoryStoreError) else self._error(exc) from None

    def _prepare(self) -> None:
        db = self._db
        # No fsync per observation (a sync per write slows every observation): like the journal, which is written
        # but not synced, what the OS has survives a crash of interp; a power cut may damage the file, which is then
        # reported.
        db.execute("PRAGMA synchronous = OFF")
        app, tables = db.execute("PRAGMA application_id").fetchone()[0], self._tables()
        if tables and app != APPLICATION_ID:
            raise MemoryStoreError(f"{self.path} is a SQLite database but not an interp memory; choose another file")
        if not tables:
            try:
                db.executescript(f"BEGIN; {_SCHEMA} PRAGMA application_id = {APPLICATION_ID}; "
                                 f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
            except sqlite3.OperationalError as exc:
                if "fts5" in str(exc).lower():
                    raise MemoryStoreError(f"this Python's SQLite ({sqlite3.sqlite_version}) has no FTS5, which "
                                           "interp's memory needs; use a Python built with a full SQLite") from None
                raise
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION or not _TABLES.issubset(self._tables()):
            raise MemoryStoreError(f"the memory {self.path} has an unknown layout (version {version}); remove it")

    def _tables(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _error(self, exc: sqlite3.Error) -> MemoryStoreError:
        """A one-line message for what SQLite reported about the file."""
        text = str(exc)
        if "locked" in text or "busy" in text:
            return MemoryStoreError(f"the memory {self.path} is locked by another process; close it or choose "
                                    "another file")
        if "not a database" in text or "malformed" in text or "corrupt" in text:
            return MemoryStoreError(f"the memory {self.path} is damaged ({text}); remove it (a new, empty one is made)")
        return MemoryStoreError(f"cannot use the memory {self.path}: {text}")

    def add(self, text: str, *, kind: str, source: str, context: str = "") -> int:
        """Stores one observation; returns its id (ids rise in the order observations are added). `context` is
        searched with the text but never returned: what the observation answers (an output's request, a step's
        instruction), so that an output that is only a number is found by the words that asked for it."""
        cursor = self._execute("INSERT INTO observations (text, kind, source, context) VALUES (?, ?, ?, ?)",
                               (text, kind, source, context))
        return int(cursor.lastrowid or 0)

    def search(self, query: str, k: int = 3, *, exclude: Iterable[int] = ()) -> list[Recall]:
        """The k stored observations most relevant to `query` (BM25 over any of its content words), best first,
        leaving out the ids in `exclude`. A query with no content words finds nothing."""
        match = fts_query(query)
        skip = set(exclude)
        if not match or k <= 0:
            return []
        rows = self._execute(
            f"SELECT o.id, o.text, o.kind, o.source, bm25(observations_index, {_WEIGHTS}) AS rank "
            "FROM observations_index JOIN observations AS o ON o.id = observations_index.rowid "
            "WHERE observations_index MATCH ? ORDER BY rank, o.id DESC LIMIT ?",
            (match, k + len(skip)),
        ).fetchall()
        # bm25() is lower for better matches; the sign is turned so that a higher score means more relevant.
        found = [Recall(int(i), text, kind, source, -float(rank)) for i, text, kind, source, rank in rows]
        return [r for r in found if r.id not in skip][:k]

    def get(self, id_: int) -> Recall | None:
        """One observation by id (score 0), or None."""
        row = self._execute("SELECT id, text, kind, source FROM observations WHERE id = ?", (id_,)).fetchone()
        return Recall(int(row[0]), row[1], row[2], row[3], 0.0) if row else None

    def count(self, kind: str | None = None) -> int:
        """How many observations are stored (of one kind, when given)."""
        if kind is None:
            return int(self._execute("SELECT count(*) FROM observations").fetchone()[0])
        return int(self._execute("SELECT count(*) FROM observations WHERE kind = ?", (kind,)).fetchone()[0])

    def __len__(self) -> int:
        return self.count()

    def clear(self) -> None:
        """Forgets every observation (ids go on rising: an id never names two observations)."""
        self._execute("DELETE FROM observations")

    def _execute(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
