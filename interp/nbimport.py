"""A notebook's code brought into a session (`%load FILE.ipynb`): its cells, the names they define, and the short
summary the model is given afterwards."""

from __future__ import annotations

import ast
from pathlib import Path
from string import Template

import nbformat
from IPython.core.inputtransformer2 import TransformerManager  # IPython comes with ipykernel

from interp.events import ExecutionDone
from interp.extract import CodeBlock
from interp.textclean import HeadTail

SUMMARY_OUTPUT_CHARS = 1200  # of the last cells' outputs, head and tail: enough to build on, small in the window
SUMMARY_NAMES = 40


class NotebookError(Exception):
    """A file that cannot be loaded as a notebook; the message is one line naming the problem."""


def code_cells(path: Path) -> list[CodeBlock]:
    """The non-empty code cells of a Python notebook, in order."""
    try:
        book = nbformat.read(path, as_version=4)
        nbformat.validate(book)
    except OSError as exc:
        raise NotebookError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, nbformat.ValidationError) as exc:  # NotJSONError is a ValueError
        raise NotebookError(f"{path} is not a valid notebook: {str(exc).splitlines()[0][:120]}") from None
    language = (book.metadata.get("kernelspec", {}).get("language")
                or book.metadata.get("language_info", {}).get("name") or "python")
    if language.lower() != "python":
        raise NotebookError(f"{path} is a notebook for {language}; %load runs Python notebooks")
    return [CodeBlock("python", cell.source) for cell in book.cells
            if cell.cell_type == "code" and cell.source.strip()]


def _python(source: str) -> str:
    """IPython's syntax (%magics, !commands) turned into Python, so that the cell can be parsed."""
    return TransformerManager().transform_cell(source)


def names_defined(sources: list[str]) -> list[str]:
    """Names bound at the top level of the cells (assignments, imports, functions, classes), first seen first."""
    names: dict[str, None] = {}
    for source in sources:
        try:
            tree = ast.parse(_python(source))
        except (SyntaxError, ValueError):
            continue
        for node in _top_level(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names[node.name] = None
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.name != "*":
                        names[alias.asname or alias.name.split(".")[0]] = None
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names[node.id] = None
    return [name for name in names if not name.startswith("_")]


def _top_level(body: list[ast.stmt]) -> list[ast.AST]:
    """The statements of a module and the nodes inside them, except inside functions and classes."""
    found: list[ast.AST] = []
    for stmt in body:
        found.append(stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for child in ast.iter_child_nodes(stmt):
            found.extend(_top_level([child]) if isinstance(child, ast.stmt) else list(ast.walk(child)))
    return found


def summary(template: Template, path: Path, cells: list[CodeBlock], done: list[ExecutionDone]) -> str:
    """What the model is told after the cells ran: how many ran, what they defined, their last outputs."""
    ran = [d for d in done if d.status == "ok"]
    names = names_defined([d.code for d in ran])
    outputs = HeadTail(SUMMARY_OUTPUT_CHARS)
    for d in done[-3:]:
        if d.output.strip() or d.error:
            outputs.add(f"{d.output.rstrip()}\n{d.error or ''}".strip() + "\n")
    last = done[-1] if done else None
    stopped = "" if last is None or last.status == "ok" else f"; cell {len(done)} ended: {last.status}"
    shown = ", ".join(names[:SUMMARY_NAMES]) + (f" and {len(names) - SUMMARY_NAMES} more"
                                                  if len(names) > SUMMARY_NAMES else "")
    return template.safe_substitute(path=str(path), ran=len(ran), cells=len(cells), stopped=stopped,
                                    names=shown or "(none)", outputs=outputs.text().strip() or "(no output)")
