"""Typed events that a session yields; the terminal (or a test) is only a consumer of them.

Events that need an answer (`Confirm`, `InputRequest`) carry a mutable `answer` field: the consumer fills it in
before it asks the session for the next event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ExecStatus = Literal["ok", "error", "interrupted", "timeout", "died", "declined", "skipped"]
"""How an execution ended: the kernel's own outcomes (interp.runtime.kernel_api.RunStatus), or the block was not run."""
TurnStatus = Literal["ok", "failed", "attempts", "stuck", "declined", "skipped", "interrupted"]
"""How a turn ended: 'failed' when its latest execution failed (or the model failed); 'attempts' and 'stuck' when a
bound stopped it; 'skipped' when its code could not be run for lack of -y."""
FAILED: frozenset[TurnStatus] = frozenset({"failed", "attempts", "stuck", "skipped"})
"""The turns that end a session with exit status 1."""


@dataclass
class Thinking:
    """A model call starts: the model reads its prompt before the first piece of the reply arrives."""


@dataclass
class TextDelta:
    """A piece of the model's reply, as it is generated."""

    text: str


@dataclass
class ModelStats:
    """Figures about one model call."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    ttft_s: float = 0.0
    decode_tps: float = 0.0
    stop_reason: str = "stop"
    draft_tokens: int = 0  # tokens proposed by speculative decoding's lookup
    accepted_tokens: int = 0  # of those, the ones the model accepted (they are part of completion_tokens)
    together: int = 0  # replies decoded together with this one, itself included (models/together.py; 0: alone)
    kept: bool = False  # decoded earlier beside another reply, and given whole


@dataclass
class ReplyDone:
    """The model finished its reply."""

    text: str
    stats: ModelStats


@dataclass
class CodeShown:
    """Code that comes from outside the model's reply (a notebook's cell, %load), shown before it is asked about or
    run, as the model's code is shown in its reply. `title`: where it comes from ("code cell 2 of 3 from nb.ipynb")."""

    language: str
    code: str
    title: str


@dataclass
class Confirm:
    """Asks the consumer whether to run a code block: answer 'y', 'n' or 'e' (then set `code` to the edited code)."""

    language: str
    code: str
    answer: str | None = None


@dataclass
class InstallOffer:
    """Code failed for want of a module: asks the consumer whether to `%pip install` its package into the kernel.
    The consumer sets `answer` to 'y' or 'n' (None: nobody can answer, which declines)."""

    module: str
    package: str
    answer: str | None = None


@dataclass
class ExecutionStart:
    """A code block starts running."""

    language: str
    code: str


@dataclass
class OutputChunk:
    """Output of running code, as it arrives. `stream` is 'stdout', 'stderr' or 'result'."""

    stream: str
    text: str


@dataclass
class DisplayData:
    """A rich output of running code (a MIME bundle: image/png, text/html, ...), before it is saved."""

    data: dict[str, object]


@dataclass
class OutputFile:
    """A rich output of running code was saved to a file."""

    path: str
    mime: str


@dataclass
class InputRequest:
    """Running code called input(); the consumer sets `answer` (None means: no answer can be given)."""

    prompt: str
    password: bool = False
    answer: str | None = None


@dataclass
class ExecutionDone:
    """A code block finished (or was not run)."""

    language: str
    code: str
    status: ExecStatus
    output: str
    error: str | None
    duration_s: float
    note: str = ""  # interp's word to the model about this run, after its output (a module that is not installed)


@dataclass
class Notice:
    """A one-line message for the user."""

    text: str
    level: Literal["info", "warning", "error"] = "info"


@dataclass
class RuleFired:
    """interp told the model something beyond its code's output: which rule (interp/rules/), in which phase, and the
    text the model got."""

    rule: str
    phase: str
    text: str


@dataclass
class StepStart:
    """A program (interp run FILE) starts one of its steps. `kind` is the step graph's: model, code, read, branch,
    loop or end."""

    name: str
    kind: str
    line: int


@dataclass
class ProgramText:
    """Text a program puts in its document (a PDL text block, a read's message), shown as it is."""

    text: str


@dataclass
class ProgramEnd:
    """A program is over. `status`: 'ok', 'ended' (its input ran out at a read), 'invalid' (a program error found
    while running), 'steps' (--max-steps), 'failed', or a turn's status that stopped it."""

    status: str


@dataclass
class TurnEnd:
    """The turn is over."""

    status: TurnStatus


Event = (
    Thinking | TextDelta | ReplyDone | CodeShown | Confirm | InstallOffer | ExecutionStart | OutputChunk | OutputFile
    | InputRequest | ExecutionDone | Notice | RuleFired | StepStart | ProgramText | ProgramEnd | TurnEnd
)
