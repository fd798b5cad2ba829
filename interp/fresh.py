"""A fresh start after the request's own example fails: the next reply is asked for from the request alone.

Shown its failed function and the failing example, the 1.5B repaired none of 16 (HumanEval, notes of issue 11): it
sent the same function back or changed it into another wrong one, copying what it saw. So once a function fails an
example the user gave, the attempts that failed are set aside (they stay in the history, the journal and on screen;
the model is no longer sent them) and the model is told, after the request, which examples failed and with what
values, then writes the function again. A later failure of another kind (an error in the new code) is repaired as
usual, in view; the turn's attempt limits apply unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from string import Template

from interp.models.base import Message


@dataclass
class FreshStart:
    """The messages of one turn set aside, and the example failures they met."""

    note: Template  # prompts/fresh.md, given $failures
    hidden: list[Message] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def set_aside(self, messages: list[Message], failure: str) -> None:
        """Sets these messages aside; `failure`: the example that failed (the same again when a step re-sent the
        function that failed it)."""
        self.hidden.extend(m for m in messages if not self._hides(m))
        if failure not in self.failures:
            self.failures.append(failure)

    def sent(self, history: list[Message]) -> list[Message]:
        """The history as the model is sent it: the note in place of the messages set aside (they follow the
        request, one run of them)."""
        note: Message = {"role": "user", "content": self.note.safe_substitute(failures="\n".join(self.failures)),
                         "kind": "note"}
        out: list[Message] = []
        placed = False
        for message in history:
            if not self._hides(message):
                out.append(message)
            elif not placed:
                out.append(note)
                placed = True
        return out

    def _hides(self, message: Message) -> bool:
        return any(message is hidden for hidden in self.hidden)
