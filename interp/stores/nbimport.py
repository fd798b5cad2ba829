"""A notebook's code brought into a session (`%load FILE.ipynb`): its cells, the names they define, and the short
summary the model is given afterwards."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from string import Template

import nbformat
from IPython.core.inputtransformer2 import TransformerManager  # IPython comes with ipykernel

from interp.common.events import ExecutionDone
from interp.common.extract import CodeBlock
from interp.common.textclean import HeadTail

SUMMARY_OUTPUT_CHARS = 1200  # of the last cells' outputs, head and tail: enough to build on, small in the window
SUMMARY_NAMES = 40


class NotebookError(Exception):
    """A file that cannot be loaded as a notebook; the message is one line naming the problem."""


def code_cells(path: Path) -> list[CodeBlock]:
    """The non-empty code cells of a Python notebook, in order."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise NotebookError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise NotebookError(f"{path} is not a valid notebook: not UTF-8 text") from None
    try:
        problem = shape_problem(json.loads(text))
        if problem is None:
            book = nbformat.reads(text, as_version=4)
            nbformat.validate(book)
    # nbformat's readers and converters assume the shape its schema promises, and a file can hold anything.
    except (ValueError, TypeError, KeyError, AttributeError, nbformat.ValidationError) as exc:
        problem = str(exc).splitlines()[0][:120] if str(exc).strip() else type(exc).__name__
    if problem is not None:
        raise NotebookError(f"{path} is not a valid notebook: {problem}")
    language = (book.metadata.get("kernelspec", {}).get("language")
                or book.metadata.get("language_info", {}).get("name") or "python")
    if not isinstance(language, str):  # an old notebook's, converted without the checks of shape_problem
        raise NotebookError(f"{path} is not a valid notebook: its language is not text")
    if language.lower() != "python":
        raise NotebookError(f"{path} is a notebook for {language}; %load runs Python notebooks")
    return [CodeBlock("python", cell.source) for cell in book.cells
            if cell.cell_type == "code" and cell.source.strip()]


def shape_problem(data: object) -> str | None:
    """What makes parsed JSON unusable as a notebook where nbformat would fail without saying why (a list, cells that
    are not a list, a source or a kernelspec language that is not text), or None."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not a notebook object"
    version, minor = data.get("nbformat"), data.get("nbformat_minor", 0)
    if not isinstance(version, int) or not isinstance(minor, int) or isinstance(version, bool):
        return "no nbformat version number"
    if version < 4:
        return None  # an older layout (worksheets): nbformat converts it, or fails in a way code_cells catches
    if not isinstance(data.get("cells"), list):
        return "its cells are not a list"
    for number, cell in enumerate(data["cells"], 1):
        source = cell.get("source") if isinstance(cell, dict) else None
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            return f"cell {number} is not a cell object with a cell_type"
        if not (isinstance(source, str) or isinstance(source, list) and all(isinstance(s, str) for s in source)):
            return f"cell {number} has no text source"
    metadata = data.get("metadata", {})
    if not isinstance(metadata, dict):
        return "its metadata is not an object"
    for key, name in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key, {})
        if not isinstance(value, dict) or not isinstance(value.get(name, ""), str):
            return f"its {key} {name} is not text"
    return None


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
