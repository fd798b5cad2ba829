"""What the parts of the failing line held when it failed, read from the kernel after the error.

A model repairs what it can see. Told `ValueError: invalid literal for int() with base 10: ''` for
`int(re.search(r'\\d{2}:\\d{2}:\\d{2}', line).group(0)[11:13])`, it tends to guard against empty values and meet an
empty result again; nothing in the traceback says that the match is '10:02:33' and that [11:13] of it is ''. A person
would print those parts: so does interp, when the error was raised at the top level of a cell (a loop's variable still
holds the item it failed on, and every name on the line is the session's own). Only parts that cannot change anything
are evaluated: names, literals, indexing, arithmetic without `*` or `**` (no huge strings), and calls of functions and
methods known to only read (`len`, `int`, `.strip`, `re.search`, `.group`, `.get`, ...), and no indexing of a name that
holds a defaultdict (it would add the key). Each is described by the kernel's user_expressions, as values.py does, and
none is shown when the line cannot be parsed alone.

`failing_line` and `is_safe` serve other rules too: the library rules read the failing line's names, and a note after a
clean run evaluates only safe expressions.
"""

from __future__ import annotations

import ast
import builtins
import re

from interp.common.textclean import ARROW
from interp.rules.facts import Facts
from interp.rules.rule import Finding

MAX_PARTS = 6  # parts shown, innermost first
MAX_CHARS = 160  # of one part's line
_HEADER = re.compile(r"^(?:Cell In\[\d+\], line \d+(?P<function>, in .*)?|File .*:\d+(?:, in .*)?)$")
_OPAQUE = re.compile(r"^<[\w.]+ object at 0x[0-9a-fA-F]+>$")  # a default repr tells nothing: not shown

_FUNCTIONS = {"abs", "all", "any", "bool", "dict", "float", "int", "isinstance", "len", "max", "min", "repr", "round",
              "sorted", "str", "sum", "tuple", "type"}
_METHODS = {"count", "endswith", "find", "findall", "fromisoformat", "fullmatch", "get", "group", "groups", "index",
            "isalpha", "isdigit", "isnumeric", "items", "keys", "lower", "lstrip", "match", "rfind", "rsplit", "rstrip",
            "search", "split", "splitlines", "startswith", "strftime", "strip", "strptime", "title", "upper",
            "values"}
_OPERATORS = (ast.Add, ast.Sub, ast.Div, ast.FloorDiv, ast.Mod)
_PLAIN = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.UnaryOp,
          ast.Compare, ast.BoolOp, ast.keyword, ast.Load, ast.expr_context, ast.unaryop, ast.cmpop, ast.boolop,
          ast.operator)

# Evaluated in the kernel for each part: a container's type and size, then its bounded repr; anything else's repr
# (a string's, a number's, a match's); nothing for a module, a function or a class (the expression raises, and the
# kernel leaves it out).
_DESCRIBE = ("(lambda v: (1 / 0) if callable(v) or type(v).__name__ == 'module' else '%s of shape %s; columns: %s' % ("
             "type(v).__name__, tuple(v.shape), ', '.join(map(str, list(v.columns)[:12]))) if hasattr(v, 'shape') and "
             "hasattr(v, 'columns') else type(v).__name__ + ' of %d items: ' % len(v) + __import__('reprlib').repr(v) "
             "if hasattr(v, '__len__') and not isinstance(v, str) else repr(v)[:200])({code})")


def line_parts(facts: Facts) -> Finding | None:
    """What the failing line's parts held when it failed, read from the kernel: a model repairs what it can see, and
    the traceback shows the line, not the values it met (a match that is '10:02:33', a slice of it that is '')."""
    line = failing_line(facts.error)
    codes = parts(line) if line else []
    held = described(facts.evaluate(expressions(codes)), codes) if codes else ""
    return Finding({"values": held}) if held else None


def failing_line(error: str) -> str | None:
    """The source line the traceback's last cell frame points at, when that frame is the cell's top level (not a
    function's body): the line whose names are the session's own. Frames in files after it (a library's) do not
    matter: the line's names are still the session's."""
    top_level = False
    code: str | None = None
    for line in error.splitlines():
        header = _HEADER.match(line.strip())
        if header and line.strip().startswith("Cell"):
            top_level, code = not header["function"], None
        elif header is None and (arrow := ARROW.match(line)) and code is None and top_level:
            code = arrow[1]
    return code if top_level else None


def parts(line: str) -> list[str]:
    """The parts of the line that are safe to evaluate and worth showing, innermost first, each as its source."""
    parsed = _parse(line.strip())
    if parsed is None:
        return []
    text, tree = parsed
    bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
             and _in_comprehension(tree, node)}
    bound |= {arg.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda) for arg in node.args.args}
    found: dict[str, None] = {}
    for node in _post_order(tree):
        if not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.BinOp)):
            continue
        if not isinstance(getattr(node, "ctx", ast.Load()), ast.Load) or not is_safe(node):
            continue
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if names & bound or not names or (isinstance(node, ast.Name) and hasattr(builtins, node.id)):
            continue
        found.setdefault(ast.get_source_segment(text, node) or ast.unparse(node), None)
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            found.setdefault(node.target.id, None)  # `total += x` failed: what total held is half the story
    return [code for code in found if not _callee(code, text, tree)][-MAX_PARTS:]


def expressions(codes: list[str]) -> dict[str, str]:
    """The kernel expressions that describe these parts, by part. Indexing a defaultdict adds the key, so a part that
    indexes and names one is left out (the guard is checked before the part is evaluated); one nested inside a
    plain container is not seen."""
    found = {}
    for code in codes:
        tree = ast.parse(code, mode="eval")
        names = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
        describe = _DESCRIBE.format(code=code)
        if names and any(isinstance(n, ast.Subscript) for n in ast.walk(tree)):
            describe = (f"(1 / 0) if any(isinstance(v, __import__('collections').defaultdict) for v in "
                        f"({', '.join(names)},)) else {describe}")
        found[code] = describe
    return found


def described(values: dict[str, str], codes: list[str]) -> str:
    """One line per part the kernel described, `part = value`, each cut to MAX_CHARS."""
    lines = []
    for code in codes:
        if code in values and not _OPAQUE.match(values[code]):
            text = f"{code} = {values[code]}"
            lines.append(text if len(text) <= MAX_CHARS else text[:MAX_CHARS - 4] + " ...")
    return "\n".join(lines)


def _parse(line: str) -> tuple[str, ast.AST] | None:
    """The line as a statement, with the text parsed: as it is, or as a block's header (`for x in y:`, `elif a:`)
    with an empty body."""
    line = re.sub(r"^elif\b", "if", line)
    for text in (line, f"{line} pass"):
        try:
            return text, ast.parse(text)
        except (SyntaxError, ValueError):
            continue
    return None


def _post_order(node: ast.AST) -> list[ast.AST]:
    found = []
    for child in ast.iter_child_nodes(node):
        found.extend(_post_order(child))
    found.append(node)
    return found


def _in_comprehension(tree: ast.AST, name: ast.Name) -> bool:
    return any(isinstance(node, ast.comprehension) and name in ast.walk(node.target) for node in ast.walk(tree))


def is_safe(node: ast.AST) -> bool:
    """Whether evaluating this expression can change nothing and cannot run long."""
    for child in ast.walk(node):
        if isinstance(child, ast.Call):
            func = child.func
            if not ((isinstance(func, ast.Name) and func.id in _FUNCTIONS)
                    or (isinstance(func, ast.Attribute) and func.attr in _METHODS)):
                return False
            if any(isinstance(arg, ast.Starred) for arg in child.args):
                return False
        elif isinstance(child, ast.BinOp):
            if not isinstance(child.op, _OPERATORS):
                return False
        elif not isinstance(child, _PLAIN):
            return False
    return True


def _callee(code: str, text: str, tree: ast.AST) -> bool:
    """Whether this part is only ever called on the line (`re.search`, `row.get`): a function, not a value."""
    called = [ast.get_source_segment(text, node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)]
    used = [ast.get_source_segment(text, node) for node in ast.walk(tree) if isinstance(node, ast.expr)]
    return code in called and used.count(code) == called.count(code)
