"""How a CoRE step runs (CoRE 3.2): recall relevant observations, build the prompt from the task, the progress, the
observations and the instruction, answer it as a REPL turn (code runs, errors go back), store what it observed;
a decision scores its listed conditions with the model and lands on one of them."""

from __future__ import annotations

import ast
from collections.abc import Generator
from dataclasses import dataclass, field
from string import Template

from interp.common.events import Event, ExecutionDone, ReplyDone, TurnEnd
from interp.common.extract import code_blocks
from interp.common.prompt_files import prompts_dir
from interp.models.base import Message
from interp.programs.graph import Graph, Step
from interp.programs.model_step import call_model
from interp.session import Session
from interp.stores.memory import Memory

RECALLED = 3  # observations retrieved for each step
PROGRESS_STEPS = 4  # the latest steps shown as progress; older ones come back through memory when relevant
PROGRESS_CHARS = 300  # of each step's output in the progress
CHECK_PARAMS = {"temperature": 0.0, "max_tokens": 80}  # a decision's check: one line of code
CHECK_TRIES = 3  # replies asked for a check that reads what the session holds instead of setting it
VARIABLES_PROBE = "print(*get_ipython().run_line_magic('who_ls', ''))"
FAILED = ("failed", "attempts", "stuck", "skipped", "declined")


class StepFailed(Exception):
    """A CoRE step's turn ended without success; `status` is the turn's."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class _Done:
    """One step already taken, for the progress section; `ids` are its observations in memory."""

    line: str
    ids: list[int] = field(default_factory=list)
    whole: bool = True  # its output is in the line uncut, so recalling it again adds nothing


class CoreSteps:
    def __init__(self, session: Session, graph: Graph, memory: Memory | None) -> None:
        self.session = session
        self.graph = graph
        self.memory = memory
        self.done: list[_Done] = []
        self.step_prompt = Template((prompts_dir() / "program_step.md").read_text(encoding="utf-8").strip())
        self.check_prompt = Template((prompts_dir() / "program_check.md").read_text(encoding="utf-8").strip())
        self.choice_prompt = Template((prompts_dir() / "program_choice.md").read_text(encoding="utf-8").strip())
        self.readonly_prompt = Template((prompts_dir() / "program_readonly.md").read_text(encoding="utf-8").strip())

    def perform(self, step: Step, instruction: str) -> Generator[Event, None, str]:
        """Runs the instruction as a REPL turn; returns what it observed (the last output, else the reply)."""
        prompt = self._fill(self.step_prompt, step, instruction)
        outputs: list[str] = []
        reply = ""
        status = "ok"
        for event in self.session.turn(prompt):
            if isinstance(event, TurnEnd):
                status = event.status
                continue
            if isinstance(event, ExecutionDone) and event.status not in ("declined", "skipped"):
                outputs.append(event.output if event.status == "ok" else f"{event.output}{event.error or ''}")
            elif isinstance(event, ReplyDone):
                reply = event.text
            yield event
        observed = (outputs[-1] if outputs else reply).strip()
        ids = self._remember(step, instruction, outputs, reply)
        if status in FAILED:
            self.session.journal.record("program_step", name=step.name, kind=step.kind, line=step.line,
                                        input=instruction, output=observed, status=status)
            raise StepFailed(status)
        short = " ".join(observed.split())
        self.done.append(_Done(f"- {step.name}: {instruction} -> {short[:PROGRESS_CHARS] or '(nothing)'}", ids,
                               whole=len(short) <= PROGRESS_CHARS))
        return observed

    def decide(self, step: Step, question: str) -> Generator[Event, None, tuple[str, str]]:
        """The label of the condition that holds, and what the check found. The model writes Python that prints
        True or False for the question, it runs in the kernel, and the choice is scored over the listed labels
        only, never parsed from text. Asked in prose, a small model may answer against what it sees ("Yes, rounds is
        3 or more" with rounds = 1 in view); a check written as code (`print(rounds >= 3)`) is computed, and its
        printed False cannot be misread. A check reads the session and never changes it: code that assigns to a name
        the session holds (`n = 2  # example value` before `print(n < 3)`) answers about a value of its own, and a
        loop that ends on that answer may never end; it is not run, and the model is asked again (CHECK_TRIES)."""
        held = self._variables()
        messages: list[Message] = [{"role": "user", "content": self.check_prompt.safe_substitute(
            question=question, variables=", ".join(held) or "none")}]
        for _ in range(CHECK_TRIES):
            reply = yield from call_model(self.session, messages, CHECK_PARAMS)
            blocks = code_blocks(reply)
            changed = sorted(assigned(blocks[0].code) & set(held)) if blocks and blocks[0].language == "python" else []
            if not changed:
                break
            self.session.journal.record("check_refused", name=step.name, code=blocks[0].code, assigns=changed)
            messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": self.readonly_prompt
                          .safe_substitute(names=", ".join(f"`{name}`" for name in changed))}]
            blocks = []  # a check that sets what it asks about is not run
        found = reply.strip() if not changed else "(the check would have set the values it asks about)"
        if blocks:
            done = yield from self.session.executor.run(blocks[0])
            if done.status in ("skipped", "declined"):
                raise StepFailed(done.status)
            found = (done.output if done.status == "ok" else f"{done.output}{done.error or ''}").strip()
        labels = list(step.targets)
        choice = self.choice_prompt.safe_substitute(question=question, found=found or "(nothing)",
                                                    options=", ".join(labels))
        index = self.session.model.choose([{"role": "user", "content": choice}], labels)
        if self.memory is not None:
            self.memory.add(f"{found} -> {labels[index]}", kind="decision",
                            source=f"{self.graph.path.name}:{step.name}", context=question)
        self.done.append(_Done(f"- {step.name}: {question} -> {found[:PROGRESS_CHARS]} -> {labels[index]}"))
        return labels[index], found

    def _variables(self) -> list[str]:
        """The names the program's code has defined so far (IPython's %who_ls), for the decision's check."""
        run = self.session.kernels.python.execute(VARIABLES_PROBE)
        printed = []
        while True:
            try:
                printed.append(getattr(next(run), "text", ""))
            except StopIteration:
                break
        return "".join(printed).split()

    def _fill(self, template: Template, step: Step, instruction: str) -> str:
        recent = self.done[-PROGRESS_STEPS:]
        shown = [i for d in recent if d.whole for i in d.ids]
        recalled = self.memory.search(instruction, RECALLED, exclude=shown) if self.memory else []
        if recalled:
            self.session.journal.record("recall", step=step.name, query=instruction,
                                        ids=[r.id for r in recalled])
        return template.safe_substitute(
            task=self.graph.task or f"run the program {self.graph.path.name}",
            progress="\n".join(d.line for d in recent) or "(this is the first step)",
            observations="\n".join(f"- {' '.join(r.text.split())[:PROGRESS_CHARS * 2]}" for r in recalled)
            or "(none)",
            name=step.name, instruction=instruction,
        )

    def _remember(self, step: Step, instruction: str, outputs: list[str], reply: str) -> list[int]:
        """Stores the step's outputs and answer, with its instruction as the words that find them."""
        if self.memory is None:
            return []
        source = f"{self.graph.path.name}:{step.name}"
        texts = [(text, "execution") for text in outputs if text.strip()] + [(reply, "answer")] * bool(reply.strip())
        return [self.memory.add(text, kind=kind, source=source, context=instruction) for text, kind in texts]


def assigned(code: str) -> set[str]:
    """The names Python code binds anywhere (assignments, loops, `with ... as`, `:=`); none when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
