"""Execution-based selection after the request's own example fails: new versions are drawn from the request alone.

Shown its failed function and the failing example, a small model seldom repairs it: with its failed attempts in view, it
tends to send the same wrong function back, or a variation of its mistake; told only which values failed, even at a
raised temperature, it writes the same wrong function again. Drawn again from the request alone, its versions are
independent of the failed one, and one of them can pass the examples and be right. So once a function fails an
example the user gave (a wrong value, or an error raised on it), the attempts that failed are set aside (they stay in
the history, the journal and on screen; the model is no longer sent them) and the model is asked again with the request
as it first saw it, for a version of its own; the first that passes the examples is kept. So is a function whose code
does not parse (a SyntaxError): shown its own broken line, a model tends to send it back unchanged or break it again.
So, too, is code that defines the example's function and raises an error of its own (its own test calls or asserts,
before the examples run): its own asserts are often wrong, so repairing in view chases them instead of the request. Up
to sixteen new versions are drawn, none begun after the turn's draw_seconds (turn/policy/): a right version can be many
draws away, and time, not a count, is what the turn can spend; a version that fails as an earlier one did is one draw
spent, and versions do not count toward the turn's steps. An error of code that does not define the example's function
is repaired as usual, in view. The versions are drawn at one temperature, four decoded together while time is left
(Drawing.together, models/together.py): the first streams, the next three are taken whole by the draws that follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from interp.models.base import Message

_UNPARSED = re.compile(r"^(?:SyntaxError|IndentationError|TabError)\b")
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\(", re.M)

FRESH_TEMPERATURE = 0.8  # a new version drawn after a function failed the request's example


def unparsed(failure: str) -> bool:
    """Whether this failure (fresh.py's, an error's last line) is code that did not parse."""
    return bool(_UNPARSED.match(failure))


def failed_function(code: str, error: str, names: set[str]) -> str | None:
    """The error's last line when code that failed (did not parse, or raised) defines, by its `def` lines, one of
    these functions."""
    lines = error.strip().splitlines()
    return (lines[-1] if lines else "failed") if names & set(_DEF.findall(code)) else None


@dataclass
class FreshStart:
    """The messages of one turn set aside, and the failures they met (failed examples, syntax errors)."""

    hidden: list[Message] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def set_aside(self, messages: list[Message], failure: str) -> None:
        """Sets these messages aside; `failure`: the example that failed (the same again when a step re-sent the
        function that failed it) or the syntax error's line."""
        self.hidden.extend(m for m in messages if not self._hides(m))
        if failure not in self.failures:
            self.failures.append(failure)

    def sent(self, history: list[Message]) -> list[Message]:
        """The history as the model is sent it: without the messages set aside."""
        return [message for message in history if not self._hides(message)]

    def _hides(self, message: Message) -> bool:
        return any(message is hidden for hidden in self.hidden)
