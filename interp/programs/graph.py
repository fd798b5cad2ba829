"""The one small graph that both program languages compile to, and its text form for --dry-run.

A step is a model call, a code run, a read, a piece of text, a branch, a loop, a scope (PDL's composite blocks), or
the end. Steps name their successors by id; the front ends (core.py, pdl.py) build the graph and check it, the
executor (run.py) walks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("model", "code", "read", "text", "branch", "loop", "open", "close", "end")
CONTRIBUTE_ALL = ("result", "context")


class ProgramError(Exception):
    """A program that cannot run: `str()` is one line naming the file, the line and what is wrong."""

    def __init__(self, path: Path | str, line: int, message: str) -> None:
        self.path, self.line, self.message = str(path), line, message
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


@dataclass
class Step:
    """One step. Which fields matter depends on `kind`:

    model   `text` is the instruction (CoRE) or the prompt template (PDL `input`, empty: the program's context);
            `turn`: run it as a REPL turn (its code runs, errors go back) rather than one model call; `params`
    code    `text` is the code template (Python)
    read    `source` is a file (empty: the user), `text` the message shown
    text    `value` is the data (strings are templates)
    branch  `condition` is an expression (PDL); empty: the model chooses one of `targets`' labels (CoRE)
    loop    `items` is an expression for the list (`var` names each item) or a count; `body` the first step inside
    open    starts a scope: results of the steps inside are collected until its `close` (`pair`)
    close   ends a scope: `join` says how its results combine (text, lastOf, array)
    end     the program ends; `text`, when set, is a last instruction run as a turn (a CoRE terminal step)
    """

    id: str
    kind: str
    line: int
    name: str = ""
    text: str = ""
    next: str | None = None
    turn: bool = False
    targets: dict[str, str] = field(default_factory=dict)
    condition: str = ""
    source: str = ""
    value: Any = None
    items: Any = None
    var: str = ""
    body: str = ""
    join: str = "text"
    join_with: str = ""
    define: str = ""
    contribute: tuple[str, ...] = CONTRIBUTE_ALL
    role: str = "user"
    parser: Any = None
    spec: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    pair: str = ""


@dataclass
class Graph:
    """A program ready to run: its steps by id, the first one, and where it came from."""

    path: Path
    language: str  # 'core' or 'pdl'
    steps: dict[str, Step]
    entry: str
    task: str = ""  # CoRE: the task description (the file's leading comments)

    def ordered(self) -> list[Step]:
        """The steps in the order of the file."""
        return sorted(self.steps.values(), key=lambda s: (s.line, s.kind != "open", s.kind == "close"))

    def successors(self, step: Step) -> list[str]:
        found = [step.next] if step.next else []
        found += list(step.targets.values())
        if step.body:
            found.append(step.body)
        return found

    def check(self) -> None:
        """Every connection leads to a step that exists (the front ends name the missing one first)."""
        for step in self.steps.values():
            for target in self.successors(step):
                if target not in self.steps:
                    raise ProgramError(self.path, step.line, f"step '{step.name or step.id}' leads to '{target}', "
                                       "which is not a step of this program")


def describe(graph: Graph) -> list[str]:
    """The step graph as text, one line per step, in the order of the file."""
    lines = [f"{graph.path} ({graph.language}, {len(graph.steps)} steps, entry {graph.entry})"]
    if graph.task:
        lines.append(f"task: {graph.task}")
    for step in graph.ordered():
        lines.append(f"{step.id:>6}  line {step.line:<4} {step.kind:<7} {_summary(step)}")
    return lines


def _summary(step: Step) -> str:
    parts = [repr(step.name)] if step.name and step.name != step.id else []
    if step.text:
        parts.append(_short(step.text))
    if step.kind == "text":
        parts.append(_short(repr(step.value)))
    if step.kind == "model" and not step.turn:
        parts.append(f"model={step.model or 'the session model'}" + (f" {step.params}" if step.params else ""))
    if step.kind == "read":
        parts.append(f"from {step.source or 'the user'}")
    if step.kind == "loop":
        parts.append(f"for {step.var or '_'} in {_short(str(step.items))} body -> {step.body}")
    if step.condition:
        parts.append(f"if {_short(step.condition)}")
    if step.targets:
        parts.append(", ".join(f"{label} -> {target}" for label, target in step.targets.items()))
    if step.define:
        parts.append(f"def {step.define}")
    if step.contribute != CONTRIBUTE_ALL:
        parts.append(f"contribute {list(step.contribute)}")
    if step.parser:
        parts.append(f"parser {step.parser}" + (" with spec" if step.spec is not None else ""))
    if step.next:
        parts.append(f"-> {step.next}")
    return "  ".join(parts)


def _short(text: str, most: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"
