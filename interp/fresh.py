"""Execution-based selection after the request's own example fails: new versions are drawn from the request alone.

Shown its failed function and the failing example, the 1.5B repaired 4 of 33 wrong functions (HumanEval, all 164,
notes of issue 11); told only which values failed, at a raised temperature, it wrote the same wrong function again (0
of 5). Drawn again from the request alone at temperature 0.8, the first of three new versions to pass the examples
passed the hidden tests too for 7 of the 29 problems whose examples had caught a wrong function (seed 7). So once a
function fails an example the user gave, the attempts that failed are set aside (they stay in the history, the journal
and on screen; the model is no longer sent them) and the model is asked again with the request as it first saw it, for
a version of its own; the first that passes the examples is kept. A later failure of another kind (an error in the new
code) is repaired as usual, in view of that version.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from interp.models.base import Message


@dataclass
class FreshStart:
    """The messages of one turn set aside, and the example failures they met."""

    hidden: list[Message] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def set_aside(self, messages: list[Message], failure: str) -> None:
        """Sets these messages aside; `failure`: the example that failed (the same again when a step re-sent the
        function that failed it)."""
        self.hidden.extend(m for m in messages if not self._hides(m))
        if failure not in self.failures:
            self.failures.append(failure)

    def sent(self, history: list[Message]) -> list[Message]:
        """The history as the model is sent it: without the messages set aside."""
        return [message for message in history if not self._hides(message)]

    def _hides(self, message: Message) -> bool:
        return any(message is hidden for hidden in self.hidden)
