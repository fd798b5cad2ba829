"""A session: one conversation with one model and one kernel, and what its turns share.

`Session.turn(text)` runs one request as a Turn (turn.py), which yields events and does no terminal I/O; the history,
the journal and the memory are the session's Conversation (conversation.py). The session holds what outlives a turn:
the model, the kernels, the prompts, the Config and the state, the rule engine and the helpers built on them.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path

from interp.common.events import CodeShown, Event, ExecutionDone, ModelStats, RuleFired, TurnStatus
from interp.common.extract import CodeBlock
from interp.config import Config
from interp.models.base import Message, Model
from interp.prompts import Prompts
from interp.rules import Engine, Fired
from interp.rules.registry import RULES
from interp.running.execution import Executor
from interp.running.packages import Packages, importable
from interp.running.state import SessionState
from interp.runtime.kernel_api import KernelError, KernelPool
from interp.runtime.outputs import OutputFolder
from interp.stores.conversation import Conversation
from interp.stores.journal import Journal
from interp.stores.recall import Recaller
from interp.turn.feedback import Feedback
from interp.turn.notes import Notes
from interp.turn.turn import Turn


class Session:
    """One conversation with one model and one kernel."""

    def __init__(
        self, model: Model, kernels: KernelPool, journal: Journal, prompts: Prompts, config: Config,
        outputs: OutputFolder, interactive: bool = True, memory: Recaller | None = None,
    ) -> None:
        self.model = model
        self.kernels = kernels
        self.prompts = prompts
        self.config = config
        self.outputs = outputs
        self.conversation = Conversation(journal, memory)
        self.state = SessionState(auto_run=config.yes, interactive=interactive)
        self.last_status: TurnStatus = "ok"
        self.last_stats: ModelStats | None = None
        self.rules = Engine(RULES, prompts.rules, [r for item in config.without for r in item.split(",") if r],
                            small=prompts.small)
        self.feedback = Feedback(prompts, config.verify, self.rules, self.cwd, self.evaluate)
        self.executor = Executor(kernels, outputs, journal, config, self.state,
                                 lambda text: self.conversation.add("user", text, "note"), prompts)
        self.packages = Packages(prompts, lambda modules: importable(self.evaluate, modules))
        self.notes = Notes(self.rules, self.evaluate)  # what a clean run's output does not show (notes.py)

    @property
    def history(self) -> list[Message]:
        """The conversation's messages (Conversation.history)."""
        return self.conversation.history

    @property
    def journal(self) -> Journal:
        """Where the conversation is recorded."""
        return self.conversation.journal

    @property
    def memory(self) -> Recaller | None:
        """What stores observations and recalls those that left the window (recall.py)."""
        return self.conversation.memory

    def configure(self, config: Config) -> None:
        """Runs later turns with another Config (the eval bounds each run by the task's time left)."""
        self.config = self.executor.config = config

    def prefix(self, function: bool = False) -> list[Message]:
        """What every prompt starts with: the system prompt and the few-shot examples (in a turn that writes a
        function stub, `function`, the function-writing prompt)."""
        return self.prompts.prefix(self.kernels.sandbox.prompt(self.prompts.sandbox), function=function)

    def context(self) -> list[Message]:
        """What the model is sent between turns: the prefix, then the conversation (Conversation.sent)."""
        return self.conversation.sent(self.prefix())

    def reset(self) -> str | None:
        """Empties the history and starts fresh kernels; returns why the kernels could not be restarted (an
        attached kernel), or None."""
        self.conversation.reset()
        try:
            self.kernels.restart()
        except KernelError as exc:
            return str(exc)
        return None

    def undo(self) -> int:
        """Drops the last turn (the latest request and everything after it); returns how many messages went."""
        return self.conversation.undo()

    def replace_history(self, messages: list[Message], source: str) -> None:
        """Continues from another conversation's history (%load, --resume)."""
        self.conversation.replace_history(messages, source)

    def last_code(self) -> tuple[str, str] | None:
        """The language and code of the latest code block the model wrote."""
        return self.conversation.last_code()

    def turn(self, text: str) -> Generator[Event, None, None]:
        """Runs one user request to its end (turn.py)."""
        yield from Turn(self, text).run()

    def run_code(self, language: str, code: str) -> Generator[Event, None, None]:
        """Runs code the user wrote or edited (%edit) as part of the conversation, so the model sees it."""
        self.conversation.add("user", self.prompts.ran.safe_substitute(language=language, code=code), "note")
        done = yield from self.executor.run(CodeBlock(language, code), confirmed=True)
        if done.status not in ("declined", "skipped"):
            self.conversation.add("user", self.feedback.execution(done), "feedback", error=done.status != "ok")
            yield from self.fired()

    def run_cells(self, blocks: list[CodeBlock], summarize: Callable[[list[ExecutionDone]], str],
                  source: str = "") -> Generator[Event, None, None]:
        """Runs code from outside the conversation (a notebook's cells, %load, from `source`), each shown and asked
        for like the model's code, up to the first that does not succeed; the conversation gets one summary instead
        of each output."""
        done: list[ExecutionDone] = []
        for number, block in enumerate(blocks, 1):
            yield CodeShown(block.language, block.code, f"code cell {number} of {len(blocks)}"
                            + (f" from {source}" if source else ""))
            done.append((yield from self.executor.run(block)))
            if done[-1].status != "ok":
                break
        self.conversation.add("user", summarize(done), "note")

    def fired(self) -> Generator[Event, None, None]:
        """Journals and shows the rules that fired since the last call (interp/rules/)."""
        for fired in self.rules.drain():
            self.journal.record(fired.kind, **fired.record())
            if isinstance(fired, Fired):
                yield RuleFired(fired.rule, fired.phase, fired.text)

    def cwd(self) -> Path:
        """Where relative paths point: the Python kernel's directory, which code may have changed."""
        python = self.kernels.python
        where = python.working_directory() if python.is_alive() else None
        return Path(where) if where else Path.cwd()

    def evaluate(self, expressions: dict[str, str]) -> dict[str, str]:
        """Expressions evaluated in the Python kernel's namespace, running nothing the user sees (rules/errors/,
        values.py); none when the kernel is not alive."""
        python = self.kernels.python
        return python.evaluate(expressions) if python.is_alive() else {}
