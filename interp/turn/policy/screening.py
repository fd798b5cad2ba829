"""What a turn does with a reply that an on_reply rule fired on (interp/rules/replies/): the rule's Act says ask once
more with its note, take the reply as the turn's answer, or draw it again (rules/rule.py). This part of the turn's
policy owns what that asks of the turn: each nudge asked at most once a turn, how the next reply begins, and how many
replies were drawn again."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from interp.rules import Fired
from interp.rules.rule import Act
from interp.turn.policy.actions import End, Nudge, Resample

RESAMPLES = 2  # replies per turn that an on_reply rule dropped and drew again (Resample) instead of running them


@dataclass
class Screening:
    """What the on_reply rules have asked of one turn so far. `nudged`: asked once more for an empty reply, or one
    guessed from a preview; `formed`: asked once for the answer's missing parts; `opened`: asked once more, the reply
    begun with the first missing part; `answer_opening`: how the next reply begins (`@name[`); `resamples`: replies
    drawn again; `in_view`: the reasons a reply was drawn again with the code in view; `doubted`: interp's notes
    doubted the output of the step that just ran."""

    nudged: bool = False
    formed: bool = False
    opened: bool = False
    answer_opening: str = ""
    resamples: int = 0
    resampling: bool = False
    in_view: set[str] = field(default_factory=set)
    doubted: bool = False

    @property
    def redraws(self) -> bool:
        """A reply may still be drawn again this turn."""
        return self.resamples < RESAMPLES

    def next_reply(self) -> bool:
        """A new reply comes to be screened: how the last one began and why it was drawn are spent. Returns whether
        interp doubted the step before it (and forgets it)."""
        self.resampling = False
        self.answer_opening = ""
        doubted, self.doubted = self.doubted, False
        return doubted

    def act(self, fired: Fired, status: Literal["ok", "failed"]) -> End | Nudge | Resample:
        """The action of the on_reply rule that fired, from its Act: ask once more with its note (each mark once a
        turn, a reply begun in the form where it `opens`), end the turn on the reply as the answer, or draw the reply
        again (RESAMPLES a turn)."""
        why, values, act = fired.rule, fired.finding.values, fired.act or Act()
        if act.kind == "nudge":
            self.nudged = self.nudged or act.marks == "nudged"
            self.formed = self.formed or act.marks == "formed"
            self.opened = self.opened or act.marks == "opened"
            if act.opens:
                self.answer_opening = str(values["opening"])
            return Nudge(why, str(values["parts"]).split(", ") if "parts" in values else [], dict(values),
                         fired.finding.variant or "note", act)
        if act.kind == "answer":
            return End(status)
        self.resamples += 1
        self.resampling = True
        unseen = act.unseen and why in self.in_view
        self.in_view.add(why)
        self.doubted = act.doubts  # the note stands for the reply drawn again
        return Resample(why, unseen)
