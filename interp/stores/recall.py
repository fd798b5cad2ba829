"""Memory in the REPL: every request, answer and output of a session is stored as it happens; a later request gets
back the few stored observations most relevant to it that are no longer in the window (condensation dropped them or
cut them), as an "Observations" note before the request.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from interp.common.textclean import HeadTail
from interp.models.base import Message
from interp.stores.memory import Memory, MemoryStoreError, Recall, fts_query

__all__ = ["MemoryStoreError", "Recalled", "Recaller", "memory_path", "open_recaller"]

# History kinds (window.py) that are observations, and the kind each is stored as; notes are interp's own words.
OBSERVED = {"request": "request", "reply": "answer", "feedback": "output"}
# BM25 gives a word that is in more than half of all observations a weight of about zero (FTS5 clamps its IDF to
# 1e-6): a hit that scores below this matched only such words ("print", "the value"), and is noise, not memory.
MIN_SCORE = 0.01
RECALL_CHARS = 400  # of one observation in the note, head and tail: long outputs must not fill a small window


@dataclass
class Recalled:
    """What one request got back from memory."""

    query: str  # the FTS5 expression that was searched
    found: list[Recall]
    note: str  # the message the model reads

    def record(self) -> dict[str, Any]:
        """The journal's record of the retrieval: the query and which observations came back."""
        return {
            "query": self.query,
            "ids": [r.id for r in self.found],
            "sources": [r.source for r in self.found],
            "scores": [round(r.score, 4) for r in self.found],
        }


def memory_path(journal: Path) -> Path:
    """The session's memory file, beside its journal: s.jsonl -> s.memory.sqlite."""
    return journal.with_suffix(".memory.sqlite")


def open_recaller(journal: Path, template: Template, k: int) -> Recaller | None:
    """The memory of the session whose journal this is (reopened when the journal is: --resume, --transcript), or
    None when recall is off (k = 0). Raises MemoryStoreError when the file cannot be used (then the session goes
    on without memory)."""
    return Recaller(Memory(memory_path(journal)), template, k) if k > 0 else None


class Recaller:
    """Stores a session's observations and recalls those outside the window. A memory that fails mid-session (a
    full disk, a file locked by another process) stops being used; the failure is kept until the session reports
    it, once."""

    def __init__(self, memory: Memory, template: Template, k: int = 3) -> None:
        self.memory = memory
        self.template = template
        self.k = k
        self.failure: str | None = None
        self._broken = False
        self._turn = self._count_requests()  # a resumed session's memory already holds its earlier turns
        self._request = ""

    def _count_requests(self) -> int:
        try:
            return self.memory.count("request")
        except MemoryStoreError as exc:
            self._fail(exc)
            return 0

    def observe(self, kind: str, content: str) -> None:
        """Stores a history message that is an observation, labelled with its turn; an answer or an output is also
        found by the words of the request it answered."""
        if kind == "request":
            self._turn, self._request = self._turn + 1, content
        stored = OBSERVED.get(kind)
        if stored is None or not content.strip() or self._broken:
            return
        try:
            context = "" if kind == "request" else self._request
            self.memory.add(content, kind=stored, source=f"turn {self._turn}", context=context)
        except MemoryStoreError as exc:
            self._fail(exc)

    def recall(self, request: str, window: list[Message]) -> Recalled | None:
        """The k observations most relevant to the request whose text is in no message of the window (a recalled
        one is in it while its note is), each text once, none that matched only on words most observations have;
        None when there are none."""
        if self._broken or self.k <= 0:
            return None
        try:
            found = self._outside(request, window)
        except MemoryStoreError as exc:
            self._fail(exc)
            return None
        if not found:
            return None
        entries = "\n\n".join(f"[{r.source}, {r.kind}]\n{_bounded(r.text)}" for r in found)
        return Recalled(fts_query(request), found, self.template.safe_substitute(observations=entries))

    def _outside(self, request: str, window: list[Message]) -> list[Recall]:
        found: list[Recall] = []
        seen: set[int] = set()
        texts: set[str] = set()
        while len(found) < self.k:
            hits = self.memory.search(request, self.k, exclude=seen)
            if not hits:
                break
            for hit in hits:
                if hit.score < MIN_SCORE:  # hits come best first: the rest are no better
                    return found
                seen.add(hit.id)
                if len(found) < self.k and hit.text not in texts and not any(hit.text in m["content"] for m in window):
                    found.append(hit)
                    texts.add(hit.text)
        return found

    def forget(self) -> None:
        """Forgets everything stored so far (%reset)."""
        try:
            self.memory.clear()
        except MemoryStoreError as exc:
            self._fail(exc)

    def close(self) -> None:
        self.memory.close()

    def take_failure(self) -> str | None:
        failure, self.failure = self.failure, None
        return failure

    def _fail(self, exc: MemoryStoreError) -> None:
        if not self._broken:
            self._broken = True
            self.failure = f"{exc}. Memory is off for the rest of the session"


def _bounded(text: str) -> str:
    kept = HeadTail(RECALL_CHARS)
    kept.add(text.strip())
    return kept.text()
