"""`interp run FILE`: the program flags, the checks before anything loads, --dry-run, and the run's exit code."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from interp.common.screentext import complain, report
from interp.programs import Graph, ProgramError, describe, load
from interp.programs.run import DEFAULT_MAX_STEPS, Runner
from interp.session import Session
from interp.stores.memory import Memory

EXIT_CODES = {"ok": 0, "ended": 0, "invalid": 2, "interrupted": 130}


@dataclass
class Program:
    graph: Graph
    variables: dict[str, Any]
    max_steps: int


def add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                   help="set a program variable (PDL: ${ NAME }; CoRE: ${ NAME } in instructions); repeatable")
    p.add_argument("--dry-run", action="store_true", help="print the program's step graph and exit; nothing runs")


def prepare(path: str, args: argparse.Namespace, max_steps: int | None) -> Program | int:
    """The checked program, or the exit code when there is nothing to run: 2 for a bad program (one line on
    stderr naming the file and line), 0 after --dry-run. `max_steps` is --max-steps when it was set (it then
    bounds the program's steps as well as each turn's code runs), else None: the program default."""
    try:
        graph = load(path)
    except ProgramError as exc:
        complain(str(exc))
        return 2
    except KeyboardInterrupt:  # Ctrl-C while a program is checked: the exit code of an interrupt, no traceback
        complain(f"{path}: interrupted while checking the program")
        return EXIT_CODES["interrupted"]
    variables: dict[str, Any] = {}
    for item in args.var:
        name, equals, value = item.partition("=")
        if not equals or not name.isidentifier():
            complain(f"--var {item!r}: give NAME=VALUE, NAME a Python-style name")
            return 2
        variables[name] = value
    if args.dry_run:
        with contextlib.suppress(BrokenPipeError):
            report("\n".join(describe(graph)))
        return 0
    return Program(graph, variables, DEFAULT_MAX_STEPS if max_steps is None else max_steps)


def run_program(session: Session, program: Program, drive: Callable[..., str], view: Any, ask: Any) -> int:
    """Runs the program through the terminal's `drive` (which shows events and answers questions); its exit code."""
    memory = Memory()
    try:
        runner = Runner(session, program.graph, program.variables, memory, program.max_steps)
        shown = drive(runner.run(), view, ask or pipe_answer)  # the terminal's status: 'interrupted' or 'ok'
    finally:
        memory.close()
    return EXIT_CODES.get("interrupted" if shown == "interrupted" else runner.status, 1)


def pipe_answer(_prompt: str, _password: bool) -> str | None:
    """A read from a pipe: the next line; None when the input has ended."""
    line = sys.stdin.readline()
    return line.rstrip("\n") if line else None
