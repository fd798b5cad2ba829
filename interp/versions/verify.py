"""Verify mode, after Reflexion: functions the model defines and never uses are tested before the turn ends.

Code that only defines a function runs without error whether the function is right or not, so the loop, which learns
only from failures, has nothing to go on. When such code runs cleanly the model is asked for a few asserts; they run
in the same kernel, and a failing one goes back to the model like any error. These helpers are pure: which functions
are untested, and the asserts rewritten so that a failure says what each side of the comparison was.
"""

from __future__ import annotations

import ast
import re

LEFT, RIGHT = "_interp_left", "_interp_right"  # where a rewritten assert keeps the two sides it compared
MAX_REPR = 200  # characters of each side shown when an assert fails
MARK = "check failed: "  # begins the message of a rewritten assert, so its failure is told from other errors


def untested(code: str) -> list[str]:
    """The top-level functions this Python code defines and never calls at top level (in a statement, an assert or
    a print): empty when the code does not parse or defines none."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    defined = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    called = {
        call.func.id
        for statement in tree.body if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for call in ast.walk(statement) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    }
    return [name for name in defined if name not in called and not name.startswith("_")]


def has_asserts(code: str) -> bool:
    """Whether the code's top level asserts anything (so it is a test, and its failures are worth explaining)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(node, ast.Assert) for node in tree.body)


def explained(code: str) -> str:
    """The code with each top-level `assert A op B` (no message of its own) rewritten to report, when it fails, the
    values of A and B: a bare AssertionError tells the model which check failed but not what the function returned.
    Lines keep their numbers, so a traceback points where the model's code does; code that does not parse is
    returned as it is."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code
    lines = code.splitlines(keepends=True)
    for node in reversed(tree.body):
        if not (isinstance(node, ast.Assert) and node.msg is None and isinstance(node.test, ast.Compare)
                and len(node.test.ops) == 1 and node.end_lineno is not None):
            continue
        test = node.test
        source = ast.get_source_segment(code, test) or ast.unparse(test)
        rewritten = ast.Assert(
            test=ast.Compare(
                left=ast.NamedExpr(ast.Name(LEFT, ast.Store()), test.left),
                ops=test.ops,
                comparators=[ast.NamedExpr(ast.Name(RIGHT, ast.Store()), test.comparators[0])],
            ),
            msg=_message(source),
        )
        first, last = node.lineno - 1, node.end_lineno - 1
        indent = lines[first][: node.col_offset]
        padding = "\n" * (last - first)
        lines[first:last + 1] = [f"{indent}{ast.unparse(ast.fix_missing_locations(rewritten))}\n{padding}"]
    return "".join(lines)


def _message(source: str) -> ast.expr:
    """`'<source>: the left side is %s, the right side %s' % (repr(left)[:N], repr(right)[:N])`."""
    def shown(name: str) -> ast.expr:
        call = ast.Call(ast.Name("repr", ast.Load()), [ast.Name(name, ast.Load())], [])
        return ast.Subscript(call, ast.Slice(upper=ast.Constant(MAX_REPR)), ast.Load())

    template = ast.Constant(MARK + source.replace("%", "%%") + ": the left side is %s, the right side %s")
    return ast.BinOp(template, ast.Mod(), ast.Tuple([shown(LEFT), shown(RIGHT)], ast.Load()))


def failed_check(error: str) -> str | None:
    """The one line that says which rewritten assert failed and with what values, or None for any other error: the
    traceback around it would only show the model the rewritten line, which it did not write."""
    for line in reversed(error.splitlines()):
        if line.startswith("AssertionError: ") and MARK in line:
            return line.removeprefix("AssertionError: ")
    return None


def checks_passed(error: str, code: str) -> int:
    """How many checks (the asserts of `code`, one a line) passed before the one that stopped a run: those above the
    line at which the traceback's first frame, the checks' own cell, stopped; 0 when the traceback does not say."""
    match = _CELL_LINE.search(error)
    return checks_in("\n".join(code.splitlines()[:int(match.group(1)) - 1])) if match else 0


def checks_in(code: str) -> int:
    """How many checks the code holds: its lines that are asserts."""
    return sum(line.startswith("assert ") for line in code.splitlines())


_CELL_LINE = re.compile(r"^Cell In\[\d+\], line (\d+)", re.MULTILINE)


def restore(text: str, code: str) -> str:
    """Text about a run of `explained(code)` (a traceback) with each rewritten assert shown as the model wrote it:
    an error raised inside a checked function would otherwise quote the rewritten line, which only confuses it."""
    for written, rewritten in zip(code.splitlines(), explained(code).splitlines(), strict=False):
        if written != rewritten and rewritten.strip():
            text = text.replace(rewritten.strip(), written.strip())
    return text
