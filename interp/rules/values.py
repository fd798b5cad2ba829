"""What a silent run left behind: code that printed nothing but set names is answered with what those names hold.

Told only "(no output)" after `march = [r for r in sales if r['date'] == '2024-03']`, a model may answer that the
rows were filtered, when the list is empty. So after a clean Python run that printed nothing, the model is shown the
type, size and a bounded repr of the last few names the code assigned at its top level, read from the kernel without
running anything the user sees (the kernel's user_expressions).

And `restated`, for the turn's policy: code that only prints constants a clean run of the turn already printed is an
answer that restates the output, written as code. The notes said after a clean run are rules (interp/rules/notes/).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

MAX_NAMES = 4  # the last names assigned are described, at most this many
MAX_CHARS = 160  # of one description
EMPTY = " of 0 items"  # what an empty container's description says before its repr

# Evaluated in the kernel for each name: "list of 0 items: []". reprlib bounds the repr of a large container.
# A table (a pandas frame, anything with a shape and columns) by its shape and first columns: a repr cut in its middle
# tells nothing.
_DESCRIBE = ("(lambda v: '%s of shape %s; columns: %s' % (type(v).__name__, tuple(v.shape), ', '.join(map(str, "
             "list(v.columns)[:12])) + (', ...' if len(v.columns) > 12 else '')) if hasattr(v, 'shape') and hasattr("
             "v, 'columns') else type(v).__name__ + (' of %d items' % len(v) if hasattr(v, '__len__') and not "
             "isinstance(v, str) else '') + ': ' + __import__('reprlib').repr(v))({name})")


def assigned(code: str) -> list[str]:
    """The names the code assigns at its top level, in the order last assigned, at most MAX_NAMES (the last ones).
    A `with` block's body counts as top level: `with open('sales.csv') as f: sales = csv.DictReader(f)` is how the
    small models load a file."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    names: dict[str, None] = {}
    for node in _unwrapped(tree.body):
        targets = [*getattr(node, "targets", []), getattr(node, "target", None)]
        if isinstance(node, (ast.For, ast.AsyncFor)):
            targets = []  # a loop variable holds the last item only: not what the code set out to make
        for target in filter(None, targets):
            for name in ast.walk(target):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store) and not name.id.startswith("_"):
                    names.pop(name.id, None)
                    names[name.id] = None
    return list(names)[-MAX_NAMES:]


def _unwrapped(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements, each `with` block replaced by its body's statements."""
    return [inner for node in body
            for inner in (_unwrapped(node.body) if isinstance(node, (ast.With, ast.AsyncWith)) else [node])]


def expressions(names: list[str]) -> dict[str, str]:
    """The kernel expressions that describe these names, by name."""
    return {name: _DESCRIBE.format(name=name) for name in names}


@dataclass(frozen=True)
class Seen:
    """What the names a silent run set hold: a line each, and those that hold nothing."""

    text: str
    empty: list[str]


def seen(values: dict[str, str], names: list[str]) -> Seen | None:
    """The kernel's descriptions of these names, or None when it described none. The empty ones are named too: told
    only "march: list of 0 items", a model may answer that march is empty and stop, though the request asked for the
    March rows: an empty result is more often a wrong condition than an answer."""
    text = described(values, names)
    empty = [name for name in names if values.get(name, "").split(": ", 1)[0].endswith(EMPTY)]
    return Seen(text, empty) if text else None


def described(values: dict[str, str], names: list[str]) -> str:
    """One line per name that could be described, `name: description`, each cut to MAX_CHARS."""
    lines = []
    for name in names:
        if name in values:
            text = f"{name}: {values[name]}"
            lines.append(text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 4] + " ...")
    return "\n".join(lines)


def restated(code: str, outputs: list[str]) -> bool:
    """Whether the code only prints string or number constants (`print('HELLO WORLD')`), each of which a clean run
    of the turn already printed: an answer that restates the output, written as code."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    texts = []
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"
                and not call.keywords and all(isinstance(arg, ast.Constant) for arg in call.args)):
            return False
        texts += [str(arg.value).strip() for arg in call.args if isinstance(arg, ast.Constant)]
    return bool(texts) and all(text and any(text in output for output in outputs) for text in texts)
