"""Execution-based selection after the request's own example fails: new versions are drawn from the request alone.

Shown its failed function and the failing example, the 1.5B repaired 4 of 33 wrong functions (HumanEval, all 164,
notes of issue 11); told only which values failed, at a raised temperature, it wrote the same wrong function again (0
of 5). Drawn again from the request alone at temperature 0.8, the first of three new versions to pass the examples
passed the hidden tests too for 7 of the 29 problems whose examples had caught a wrong function (seed 7). So once a
function fails an example the user gave (a wrong value, or an error raised on it: repaired in view, 2 of 13 such
HumanEval turns ended with the examples passing, seeds 7 and 8), the attempts that failed are set aside (they stay in
the history, the journal and on screen; the model is no longer sent them) and the model is asked again with the request
as it first saw it, for a version of its own; the first that passes the examples is kept. So is a function whose code
does not parse (a SyntaxError): shown its own broken line, the 1.5B sent it back unchanged or broke it again (3 of 17
such HumanEval turns ended in a pass). So, too, is code that defines the example's function and raises an error of
its own (its own test calls or asserts, before the examples run): repaired in view, none of the 12 such HumanEval turns
of two runs ended with a version that passed its examples, each used up its three attempts after two or three
versions; set aside, HumanEval/64 passed with the fifth version, two of the four before it set aside for their own
asserts (seed 7). Up to sixteen new versions are drawn, none begun after the turn's draw_seconds (policy.py); a
version that fails as an earlier one did is one draw spent, and versions do not count toward the turn's steps. With
at most eight (the third copy of a wrong version ending the turn, and max_steps the tenth reply), 10 of seed 8's 164
HumanEval problems ended with no version passing in 14 to 34 s, time left to draw; on those 10 and HumanEval/32,
seeds 8, 7 and 9, sixteen passed 15 of 33 turns against 7, none lost (the kept version was the ninth to fourteenth
drawn). An error of code that does not define the example's function is repaired as usual, in view. The versions are
drawn at one temperature, four decoded together while time is left (policy.together, models/together.py): the first
streams, the next three are taken whole by the draws that follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from interp.models.base import Message

_UNPARSED = re.compile(r"^(?:SyntaxError|IndentationError|TabError)\b")
_DEF = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)\s*\(", re.M)


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
