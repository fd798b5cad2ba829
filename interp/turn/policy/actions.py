"""What the turn policy (turn/policy/) tells the session to do next: typed actions, plain data, compared by value in the
policy's tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from interp.common.events import Notice, TurnStatus
from interp.common.extract import CodeBlock
from interp.rules.rule import Act


@dataclass
class End:
    """The turn ends with this status, after this notice if there is one."""

    status: TurnStatus
    notice: Notice | None = None


@dataclass
class Nudge:
    """Ask the model once more, with the note of the on_reply rule that fired (`why`, its id; interp/rules/replies/):
    its reply was empty ("empty"), or it answered a request about a file it was shown a preview of before any code
    ran, a guess from the preview ("unran"), or its final answer leaves out parts of the form the request asks for
    ("form_opening", or "unformed" when the turn's code printed nothing; answer_form.py), or gives one that does not
    answer it ("unfilled"). `values`: what the rule found, which fills its templates (prompts/rules/ID.json: the note
    for the model, `variant`, and the "notice" for the user); derived text, so not compared."""

    why: str = "empty"
    missing: list[str] = field(default_factory=list)  # unformed, form_opening: the @name[...] parts left out
    values: Mapping[str, object] = field(default_factory=dict, compare=False)
    variant: str = "note"
    act: Act = field(default_factory=Act, compare=False)  # what the rule asks of the turn (interp/rules/rule.py)


@dataclass
class Resample:
    """The reply is dropped and the model asked again, at policy.RESAMPLE_TEMPERATURE. `why`: the id of the on_reply
    rule that fired (interp/rules/replies/), whose template is the notice: "failed", its code is the code that just
    failed, unchanged, and running it would only fail again; "doubted", its code is the code that ran just before,
    unchanged, though interp's note doubted that run's output (notes.py); "copied", its text is one of interp's notes
    of this turn, or holds its preview of a file the request names, copied as if it were the answer; "example", its
    text copies the answer of a few-shot example. `unseen`: the turn's second "failed" or "doubted" draw, after one
    drawn again with the code in view sent it back once more: drawn from the request and what that code was told,
    without the code (Turn._redrawn, turn.py)."""

    why: str = "failed"
    unseen: bool = False


@dataclass
class Run:
    """Run these blocks of the reply, in order."""

    blocks: list[CodeBlock]
    unchanged: str | None = None  # no new code after a failure: the error it leaves standing, told to the model


@dataclass
class StepEnd:
    """What follows a reply's executions: the feedback's extras, and whether the turn stops."""

    failed: bool  # the feedback reports an error
    stuck_hint: bool = False  # the same failure came back: suggest a different way
    reflect: bool = False  # ask the model for the failure's cause first
    verify: list[str] = field(default_factory=list)  # functions that ran untested: ask the model for checks
    fresh: str | None = None  # the example the step's function failed, or its code's error: draw a new version
    fresh_on_example: bool = False  # that failure was the request's example's, not the code's own
    written: str | None = None  # the stubs are written and pass the examples: the step's imports and definitions
    stop: End | None = None
