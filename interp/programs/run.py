"""The executor: walks a program's step graph on a session's model and kernel, yielding events, journaling each step.

Model calls, code runs, reads and decisions are the session's: a CoRE step is a REPL turn (the model writes code,
it runs, errors go back), a PDL model block is one call on the program's own context, a PDL code block runs in the
same kernel with the same confirmation. The executor does no I/O: reads from the user are InputRequest events.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from interp.common.events import Event, InputRequest, Notice, ProgramEnd, ProgramText, StepStart
from interp.common.extract import CodeBlock
from interp.models.base import Message, ModelError
from interp.programs.core_steps import CoreSteps, StepFailed
from interp.programs.expr import ExprError, Expressions, violation
from interp.programs.graph import Graph, ProgramError, Step
from interp.programs.limits import MAX_DEPTH, MAX_READ_BYTES, deeper_than, read_text
from interp.programs.model_step import call_model
from interp.programs.parse import parse_output
from interp.session import Session
from interp.stores.memory import Memory

DEFAULT_MAX_STEPS = 100
JOURNAL_CHARS = 4000  # a step's input and output in the journal, each at most this long
RESULT_PROBE = """\
import json as _interp_json
try:
    print(_interp_json.dumps({"value": result}, default=repr)); del result
except NameError:
    print('{"none": true}')
"""


class ProgramStop(Exception):  # noqa: N818 - a way out of the walk, with the status the program ends with
    def __init__(self, status: str, message: str = "", level: Literal["info", "warning", "error"] = "error") -> None:
        super().__init__(message)
        self.status, self.message, self.level = status, message, level


@dataclass
class _Scope:
    """A composite block being run: the results of the blocks inside, and where the context stood at its start."""

    results: list[Any] = field(default_factory=list)
    context_length: int = 0
    to_document: bool = True


class Runner:
    """Runs one program to its end: `run()` yields events and ends with ProgramEnd(status). Statuses: 'ok',
    'failed' (code or a turn failed), 'steps' (--max-steps reached), 'invalid' (a runtime program error: exit 2),
    'ended' (the input ran out at a read), and the session's own ('skipped', 'declined', 'interrupted', ...)."""

    def __init__(self, session: Session, graph: Graph, variables: dict[str, Any] | None = None,
                 memory: Memory | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        self.session = session
        self.graph = graph
        self.vars: dict[str, Any] = dict(variables or {})
        self.max_steps = max_steps
        self.expressions = Expressions()
        self.context: list[Message] = []
        self.scopes: list[_Scope] = []
        self.loops: dict[str, tuple[dict[str, list[Any]], int]] = {}
        self.steps_taken = 0
        self.core = CoreSteps(session, graph, memory)
        self._named_model_told = False
        self.status = "interrupted"  # until the program ends

    def run(self) -> Iterator[Event]:
        journal = self.session.journal
        journal.record("program", path=str(self.graph.path), language=self.graph.language,
                       steps=len(self.graph.steps), variables=sorted(self.vars))
        try:
            status = yield from self._walk()
        except ProgramStop as stop:
            status = stop.status
            if stop.message:
                yield Notice(stop.message, stop.level)
        except StepFailed as exc:
            status = exc.status
        except ProgramError as exc:
            status = "invalid"
            yield Notice(str(exc), "error")
        except ModelError as exc:
            status = "failed"
            yield Notice(f"The model failed: {exc}", "error")
        except (KeyboardInterrupt, GeneratorExit, SystemExit):
            journal.record("program_end", status="interrupted", steps=self.steps_taken)
            raise
        journal.record("program_end", status=status, steps=self.steps_taken)
        self.status = status
        yield ProgramEnd(status)

    def _walk(self) -> Generator[Event, None, str]:
        current: str | None = self.graph.entry
        while current is not None:
            step = self.graph.steps[current]
            if step.kind not in ("open", "close", "text"):
                self.steps_taken += 1
                if self.max_steps and self.steps_taken > self.max_steps:
                    raise ProgramStop("steps", f"{self.graph.path}:{step.line}: stopped before step "
                                      f"'{step.name or step.id}': the program took {self.max_steps} steps "
                                      f"(--max-steps {self.max_steps}); a loop that does not end? Raise "
                                      "--max-steps if it needs more.")
            handler = getattr(self, f"_{step.kind}")(step)
            current = (yield from handler) if inspect.isgenerator(handler) else handler
        return "ok"

    def fail(self, step: Step, message: str) -> ProgramError:
        return ProgramError(self.graph.path, step.line, message)

    def value(self, step: Step, template: Any) -> Any:
        try:
            return self.expressions.evaluate(template, self.vars)
        except ExprError as exc:
            raise self.fail(step, str(exc)) from None

    def record(self, step: Step, input_: Any, output: Any, **extra: Any) -> None:
        self.session.journal.record("program_step", name=step.name or step.id, kind=step.kind, line=step.line,
                                    input=_clip(input_), output=_clip(output), **extra)

    # Control flow.

    def _open(self, step: Step) -> str | None:
        close = self.graph.steps[step.pair]
        self.scopes.append(_Scope(context_length=len(self.context), to_document="result" in close.contribute
                                  and all(s.to_document for s in self.scopes)))
        return step.next

    def _close(self, step: Step) -> Generator[Event, None, str | None]:
        scope = self.scopes.pop()
        if step.join == "array":
            value: Any = scope.results
        elif step.join == "lastOf":
            value = scope.results[-1] if scope.results else ""
        else:
            value = step.join_with.join(_text(r) for r in scope.results)
        if "context" not in step.contribute:
            del self.context[scope.context_length:]
        yield from self.produce(step, value, to_context=False)
        return step.next

    def _branch(self, step: Step) -> Generator[Event, None, str | None]:
        labels = list(step.targets)
        if step.condition:
            holds = bool(self.value(step, step.condition))
            label = labels[0] if holds else labels[1]
            self.record(step, step.condition, holds, branch=label, target=step.targets[label])
            return step.targets[label]
        yield StepStart(step.name, "branch", step.line)
        question = self.value(step, step.text)
        label, found = yield from self.core.decide(step, question)
        self.record(step, question, found, branch=label, target=step.targets[label])
        yield Notice(f"{step.name}: {label} -> {step.targets[label]}")
        return step.targets[label]

    def _loop(self, step: Step) -> str | None:
        if step.id not in self.loops:
            self.loops[step.id] = (self._loop_lists(step), 0)
        lists, index = self.loops[step.id]
        length = len(next(iter(lists.values()))) if lists else 0
        if index >= length:
            del self.loops[step.id]
            return step.next
        self.loops[step.id] = (lists, index + 1)
        for name, items in lists.items():
            self.vars[name] = items[index]
        self.record(step, step.items, index, iteration=index + 1)
        return step.body

    def _loop_lists(self, step: Step) -> dict[str, list[Any]]:
        if not isinstance(step.items, dict):
            count = self.value(step, step.items)
            if not isinstance(count, int) or count < 0:
                raise self.fail(step, f"num_iterations is {count!r}, not a count")
            return {"": list(range(count))}
        lists = {name: self.value(step, expr) for name, expr in step.items.items()}
        for name, items in lists.items():
            if not isinstance(items, list):
                raise self.fail(step, f"for: '{name}' is {type(items).__name__}, not a list")
        if len({len(items) for items in lists.values()}) > 1:
            raise self.fail(step, "for: the lists are not of the same length")
        return lists

    def _end(self, step: Step) -> Generator[Event, None, str | None]:
        if step.text:  # a CoRE terminal step's last instruction
            yield StepStart(step.name, "end", step.line)
            instruction = self.value(step, step.text)
            observed = yield from self.core.perform(step, instruction)
            self.record(step, instruction, observed)
        else:
            self.record(step, "", "")
        return None

    # Steps that produce a value.

    def _text(self, step: Step) -> Generator[Event, None, str | None]:
        value = step.value if step.params.get("raw") else self.value(step, step.value)
        yield from self.produce(step, value)
        return step.next

    def _model(self, step: Step) -> Generator[Event, None, str | None]:
        if step.turn:  # CoRE: a REPL turn
            yield StepStart(step.name, "model", step.line)
            instruction = self.value(step, step.text)
            observed = yield from self.core.perform(step, instruction)
            self.record(step, instruction, observed)
            return step.next
        if not self._named_model_told and step.model != self.session.model.name:
            self._named_model_told = True
            yield Notice(f"PDL model blocks run on this session's model, {self.session.model.name} (the program "
                         f"names {step.model}).")
        given: list[Message] = [{"role": "user", "content": _text(self.value(step, step.text))}]
        prompt = given if step.text else self.context
        empty: list[Message] = [{"role": "user", "content": ""}]
        reply = yield from call_model(self.session, prompt or empty, step.params)
        self.record(step, "".join(m["content"] for m in prompt), reply, model=step.model)
        yield from self.produce(step, reply)
        return step.next

    def _code(self, step: Step) -> Generator[Event, None, str | None]:
        code = _text(self.value(step, step.text))
        done = yield from self.session.executor.run(CodeBlock("python", code))
        if done.status in ("skipped", "declined"):
            raise ProgramStop(done.status)
        if done.status != "ok":
            last = (done.error or done.status).strip().splitlines()
            raise ProgramStop("failed", f"{self.graph.path}:{step.line}: the code block failed: "
                              f"{last[-1] if last else done.status}")
        value = self._result(done.output)
        self.record(step, code, value)
        yield from self.produce(step, value)
        return step.next

    def _result(self, output: str) -> Any:
        """The code's `result` variable (PDL's convention), else what it printed."""
        probe = self.session.kernels.python.execute(RESULT_PROBE)
        printed = []
        while True:
            try:
                item = next(probe)
            except StopIteration:
                break
            printed.append(getattr(item, "text", ""))
        try:
            found = json.loads("".join(printed).strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError, RecursionError):
            return output
        return found["value"] if "value" in found else output.rstrip("\n")

    def _read(self, step: Step) -> Generator[Event, None, str | None]:
        if step.source:
            source = str(self.value(step, step.source))
            try:
                value = read_text(source, MAX_READ_BYTES)
            except (OSError, UnicodeDecodeError) as exc:
                raise self.fail(step, f"read: cannot read {source}: {getattr(exc, 'strerror', exc)}") from None
        else:
            message = _text(self.value(step, step.text))
            if message:
                yield ProgramText(message)
            ask = InputRequest("")
            yield ask
            if ask.answer is None:
                raise ProgramStop("ended", f"{self.graph.path}:{step.line}: the input ended at this read; the "
                                  "program stops here.", "warning")
            value = ask.answer
        self.record(step, step.source or step.text, value)
        yield from self.produce(step, value)
        return step.next

    def produce(self, step: Step, value: Any, to_context: bool = True) -> Iterator[Event]:
        """A step's value goes through its parser and spec, to its variable, the enclosing result, the context."""
        if step.parser:
            try:
                value = parse_output(step.parser, _text(value))
            except ValueError as exc:
                raise self.fail(step, f"parser {_parser_name(step.parser)}: {exc}") from None
        if deeper_than(value):  # a parser's or a code block's: checked and printed by recursive code
            raise self.fail(step, f"the value is nested more than {MAX_DEPTH} levels deep")
        if step.spec is not None:
            wrong = violation(value, step.spec)
            if wrong:
                raise self.fail(step, f"spec violated: {wrong}")
        if step.define:
            self.vars[step.define] = value
        if "result" in step.contribute:
            if self.scopes:
                self.scopes[-1].results.append(value)
            document = step.kind in ("text", "code") or step.kind == "read" and step.source
            if document and all(s.to_document for s in self.scopes):
                yield ProgramText(_text(value))
        if to_context and "context" in step.contribute:
            self.context.append({"role": step.role, "content": _text(value)})


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _clip(value: Any) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, default=repr)
    return text if len(text) <= JOURNAL_CHARS else text[:JOURNAL_CHARS] + f"… [{len(text)} characters]"


def _parser_name(parser: Any) -> str:
    return parser if isinstance(parser, str) else "regex"
