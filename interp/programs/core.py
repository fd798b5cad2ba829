"""CoRE programs (the AIOS compiler paper): one step a line, `Name:::Type:::Instruction:::Connection`.

Types are process (do it, go to the one next step), decision (the connection lists `condition::target` pairs; the
model picks one) and terminal (the end). Names and types are case-insensitive; the first step is the entry; blank
lines and `#` comments are skipped, and the comments before the first step are the task description.
"""

from __future__ import annotations

from pathlib import Path

from interp.programs.graph import Graph, ProgramError, Step

TYPES = ("process", "decision", "terminal")


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def parse(path: Path, text: str) -> Graph:
    """The program's graph; raises ProgramError naming the line of the first problem found."""
    steps: dict[str, Step] = {}
    names: dict[str, str] = {}  # a name as written anywhere -> the id of its step
    links: list[tuple[Step, str, str]] = []  # (step, label, target as written)
    task: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            if line and not steps:
                task.append(line.lstrip("#").strip())
            continue
        parts = line.split(":::")
        if len(parts) != 4:
            raise ProgramError(path, number, f"a step line has four parts joined by ':::' (name, type, instruction, "
                               f"connection); this one has {len(parts)}")
        name, kind, instruction, connection = (part.strip() for part in parts)
        step = _step(path, number, name, kind.casefold(), instruction, connection, links)
        if _key(name) in names:
            raise ProgramError(path, number, f"step '{name}' is defined twice")
        names[_key(name)] = name
        steps[name] = step
    if not steps:
        raise ProgramError(path, 0, "no steps: a CoRE program has lines 'Name:::Type:::Instruction:::Connection'")
    for step, label, target in links:
        if _key(target) not in names:
            raise ProgramError(path, step.line, f"step '{step.name}' connects to '{target}', which is not a step "
                               "of this program")
        if step.kind == "branch":
            step.targets[label] = names[_key(target)]
        else:
            step.next = names[_key(target)]
    graph = Graph(path, "core", steps, next(iter(steps)), task=" ".join(t for t in task if t))
    graph.check()
    return graph


def _step(path: Path, number: int, name: str, kind: str, instruction: str, connection: str,
          links: list[tuple[Step, str, str]]) -> Step:
    if not name:
        raise ProgramError(path, number, "a step needs a name (the first part)")
    if kind not in TYPES:
        raise ProgramError(path, number, f"unknown step type '{kind}': a step is process, decision or terminal")
    pairs = _pairs(path, number, connection)
    if kind == "terminal":
        if pairs:
            raise ProgramError(path, number, "a terminal step ends the program: leave its connection empty")
        return Step(name, "end", number, name=name, text=instruction)
    if not instruction:
        raise ProgramError(path, number, f"step '{name}' has no instruction (the third part)")
    if kind == "process":
        if len(pairs) != 1:
            raise ProgramError(path, number, f"a process step goes to one next step ('next::NAME'); this one "
                               f"lists {len(pairs)}")
        step = Step(name, "model", number, name=name, text=instruction, turn=True)
    else:
        if len(pairs) < 2:
            raise ProgramError(path, number, "a decision step lists at least two 'condition::target' pairs")
        labels = [label.casefold() for label, _ in pairs]
        if len(set(labels)) != len(labels):
            raise ProgramError(path, number, "a decision step lists the same condition twice")
        step = Step(name, "branch", number, name=name, text=instruction)
    links.extend((step, label, target) for label, target in pairs)
    return step


def _pairs(path: Path, number: int, connection: str) -> list[tuple[str, str]]:
    if not connection:
        return []
    parts = [part.strip() for part in connection.split("::")]
    if len(parts) % 2 or not all(parts):
        raise ProgramError(path, number, f"the connection '{connection}' is not 'key::target' pairs joined by '::'")
    return list(zip(parts[::2], parts[1::2], strict=True))
