"""interp's docstrings and comments say what a thing is for: no task of the team's eval, no benchmark problem, no seed
and no measured ratio or speed (those belong in docs/ and the eval's reports, where they can be measured again)."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from eval_hard import HARD_TASKS  # noqa: E402
from eval_tasks import TASKS  # noqa: E402

PACKAGE = ROOT / "interp"
# Task names with an underscore are the eval's own (`csv_average`); one-word names (`reverse`) are plain English.
_TASKS = sorted({task.name for task in [*TASKS, *HARD_TASKS] if "_" in task.name})
_CLAIM = re.compile(r"HumanEval/\d+|DABench|\bseeds? \d+|\b\d+(\.\d+)?x\b|\b\d+(\.\d+)? ?ms\b|tokens?/s\b"
                    r"|\b(" + "|".join(_TASKS) + r")\b")
_CODE = re.compile(r"`[^`\n]*`")  # code quoted in backticks is an example, not a claim


def claims(text: str) -> list[str]:
    """What in `text` names an eval task, a benchmark problem, a seed or a measured ratio or speed."""
    return [match.group(0) for match in _CLAIM.finditer(_CODE.sub("", text))]


def _texts(source: str) -> Iterator[tuple[int, str]]:
    """The docstrings and comments of a module, each with its line."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "lineno", 1), doc
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


@pytest.mark.parametrize(("text", "found"), [
    ("Reads the file's header line.", []),
    ("written for json_customer_totals, seed 9", ["json_customer_totals", "seed 9"]),
    ("HumanEval/139 failed without it", ["HumanEval/139"]),
    ("on DABench dev", ["DABench"]),
    ("decoded 1.6x faster with drafts", ["1.6x"]),
    ("the 1.5B at 12 tokens/s", ["tokens/s"]),
    ("a sync cost 14 ms each", ["14 ms"]),
    ("`round(f(x), 2)  # f(x) = 1 + 2x` would comment out the rest", []),
    ("a 0x1f byte", []),
    ("reverse the words", []),
])
def test_claims_are_found_outside_quoted_code(text: str, found: list[str]) -> None:
    assert claims(text) == found


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_docstrings_and_comments_make_no_eval_claims(path: Path) -> None:
    found = [f"line {line}: {claim}" for line, text in _texts(path.read_text(encoding="utf-8"))
             for claim in claims(text)]
    assert not found
