"""The examples in a request, run as checks of the functions the model defines.

A request that shows what a function must return (a docstring's `>>> f(3)` followed by `9`, as people and HumanEval
write them) holds tests that come from the user, not from the model. Code that only defines the function runs
cleanly whether it is right or not, and the loop learns only from failures; so once the model's code has defined a
function that an example calls, the examples run in the kernel as asserts, and one that fails goes back to the model
with what the function returned. Unlike checks the model writes itself (verify mode), these are right by definition.

Three forms are read: a docstring's `>>> f(3)` with `9` on the next line; a line that states a call's value
(`f(3) == 9`, `f(3) -> 9`, `=>`, `==>`, `➞`, `f(3) returns 9`, `should return`, `should be`), alone on its line or
after a bullet or "Example:", its value perhaps worked out (`f(3) -> 3 * 3 = 9`) or followed by a note; and, when the
request holds one function stub, the arguments of a call and its value without the call ("Input: n = 3" then
"Output: 9", as programming puzzles write them, or "For n = 3 the output should be 9"). Only examples whose expected
value is a Python literal (or prose's true and false) become asserts (`f(3) == 9`); printed text, reprs of objects
and examples that assign are left alone, as are calls of functions the model did not define.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from interp.common.extract import code_blocks
from interp.versions import tables

MAX_EXAMPLES = 12  # asserts run after one step, at most
_PROMPT = re.compile(r"^(\s*)>>> ?(.*)$")
_LEAD = re.compile(r"^\s*(?:[-*•]|>>>|e\.g\.|for example|examples?|for(?= \w+\())?[\s:,]*", re.I)
_SAYS = re.compile(r"\s*#?\s*(?:==>|==|=>|->|➞|→|=|returns|should return|should be)\s*")
_INPUT = re.compile(r"^\s*Input\s*:\s*(.*)$", re.I)
_OUTPUT = re.compile(r"^\s*Output\s*:\s*(.*)$", re.I)
_FOR = re.compile(r"\bfor (\w+\s*=.*?)[\s,]+the (?:output|result|answer) (?:should be|is) (.+)$", re.I)
_WORDS = {"true": "True", "false": "False"}  # prose's booleans ("is_prime(7) => true")
_ENDS_WANT = ('"""', "'''", "```", ">>>")  # a docstring's or a fence's end, the next example


@dataclass(frozen=True)
class Example:
    source: str  # an expression, as the request wrote it
    want: str  # the expected value, as the request wrote it
    calls: frozenset[str]  # the names it calls
    line: str = ""  # the whole assert, where the example is not one value (tables.py; its `want` is then "")


def parse(request: str) -> list[Example]:
    """The request's `>>>` examples whose expected output is a literal value. Read line by line, as doctest does but
    without its strictness: the examples sit in a docstring inside a fence, and a docstring's closing quotes or the
    fence end what the example shows."""
    examples = []
    lines = request.splitlines()
    for i, line in enumerate(lines):
        match = _PROMPT.match(line)
        if not match:
            if example := _stated(line):
                examples.append(example)
            continue
        indent, source = match.groups()
        j = i + 1
        while j < len(lines) and lines[j].startswith(f"{indent}... "):
            source += "\n" + lines[j][len(indent) + 4:]
            j += 1
        want = []
        while j < len(lines) and lines[j].strip() and lines[j].startswith(indent) \
                and not lines[j].strip().startswith(_ENDS_WANT):
            want.append(lines[j].strip())
            j += 1
        if example := _literal_example(source.strip(), " ".join(want)) if want else _stated(source):
            examples.append(example)
    stub = _signature(request)
    return examples + _given(stub, lines) + _tabled(request, stub)


def _given(signature: tuple[str, list[str]] | None, lines: list[str]) -> list[Example]:
    """Examples that give the arguments of the request's function stub and the value it returns: "Input: nums = [2, 7],
    target = 9" (or an argument a line, or the values alone) followed by "Output: [0, 1]", as programming puzzles
    write them, and "For lst = [1, 2] the output should be 5". Each becomes a call of the stub's function."""
    if signature is None:
        return []
    given = []
    for i, line in enumerate(lines):
        if match := _FOR.search(line):
            given.append((match[1], match[2]))
        elif match := _INPUT.match(line):
            arguments = [match[1]]
            for j in range(i + 1, min(i + 8, len(lines))):
                if output := _OUTPUT.match(lines[j]):
                    value = output[1] or next((v for v in lines[j + 1:j + 3] if v.strip()), "")
                    given.append(("\n".join(arguments), value))
                    break
                if _INPUT.match(lines[j]):
                    break
                arguments.append(lines[j])
    return [example for arguments, value in given if (example := _bound(*signature, arguments, value))]


def _tabled(request: str, stub: tuple[str, list[str]] | None) -> list[Example]:
    """The request's example tables (tables.py): the input tables for its function (its one stub, `stub`, or the
    `def` it writes in backticks) and the table it should give."""
    found = tables.signature(request, stub)
    if found is None:
        return []
    name, parameters, returns_none = found
    types = tables.declared(request)
    return [Example(f"{name}({', '.join(parameters)})", "", frozenset({name}),
                    tables.check(name, parameters, returns_none, ordered, output, types))
            for inputs, output in tables.pairs(request) if (ordered := tables.bound(parameters, inputs))]


def _signature(request: str) -> tuple[str, list[str]] | None:
    """The name and parameters of the request's one function stub (examples.stubs), when its parameters are plain."""
    found = _stub_nodes(request)
    if len(found) != 1:
        return None
    arguments = found[0].args
    if arguments.vararg or arguments.kwarg or arguments.kwonlyargs or arguments.posonlyargs:
        return None
    return found[0].name, [a.arg for a in arguments.args]


def _bound(name: str, parameters: list[str], arguments: str, value: str) -> Example | None:
    """The call of `name` with the arguments given ("a = 1, b = [2]", "a: 1" a line, or "1, [2]"): by name when the
    names are the parameters', else in the order given when there are as many; the first reading that parses, cutting
    the text at a comma when prose follows ("N = 1000, the sum of digits will be 1")."""
    text = ", ".join(re.sub(r"^\s*(\w+)\s*:\s*", r"\1=", line).strip().rstrip(",") for line in arguments.splitlines()
                     if line.strip())
    for end in [len(text), *reversed([m.start() for m in re.finditer(",", text)])]:
        values = _arguments(text[:end], parameters)
        if values is not None:
            source = f"{name}({', '.join(values)})"
            return next((e for want in _wants(value) if (e := _literal_example(source, want, whole_call=True))), None)
    return None


def _arguments(text: str, parameters: list[str]) -> list[str] | None:
    """The literal values of "a = 1, b = [2]" or "1, [2]" in the parameters' order, one for each; None when the text
    is not that."""
    call = f"f({text})"
    try:
        tree = ast.parse(call, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(tree, ast.Call) or (tree.args and tree.keywords):
        return None
    named = {k.arg: k.value for k in tree.keywords}
    nodes = tree.args or ([named[p] for p in parameters] if set(named) == set(parameters) else list(named.values()))
    values = [ast.get_source_segment(call, node) or "" for node in nodes]
    try:
        for value in values:
            ast.literal_eval(value or "!")
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    return values if len(values) == len(parameters) else None


def _stated(line: str) -> Example | None:
    """A line that says what a call gives (`f(2) -> 4`), tried at each place it could be split."""
    text = _LEAD.sub("", line, count=1).strip()
    for says in _SAYS.finditer(text):
        source, value = text[:says.start()], text[says.end():]
        for want in _wants(value):
            example = _literal_example(source.strip(), want, whole_call=True)
            if example is not None:
                return example
    return None


def _wants(value: str) -> list[str]:
    """The ways a stated value may end: before a comment, a note in brackets or a full stop ("16.", "'No' (no
    dot)"); as it is; after a worked sum ("19 - 5 - 6 = 8")."""
    short = re.split(r" #| \(", value)[0].rstrip(" .").strip()
    return [short, value.strip(), short.rpartition("=")[2].strip()]


def _literal_example(source: str, want: str, whole_call: bool = False) -> Example | None:
    """The example when its source is an expression that calls something (`whole_call`: that is a call) and its want
    a Python literal."""
    try:
        tree = ast.parse(source, mode="eval")
        want = _WORDS.get(want, want)
        ast.literal_eval(want or "!")  # an empty value is no example
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    if whole_call and not isinstance(tree.body, ast.Call):
        return None
    calls = frozenset(n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    # `is_happy(abc) => False` means the string: a name that is not called is prose, not Python.
    return Example(_expression(source, tree.body), want, calls) if calls and names <= calls else None


def _expression(source: str, node: ast.expr) -> str:
    """The expression's own text, on one line: without a comment after it (`round(f(x), 2)  # f(x) = 1 + 2x` would
    comment out the `== -0.5` of its assert) and, when `...` lines continue it, as Python writes it."""
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    return ast.unparse(node) if "\n" in text else text


def _side(expression: str, left: bool) -> str:
    """An example's source (`left`) or value as one side of `==`, bracketed when `==` would take only part of it
    (`f(3) > 2 == True` is a chain; `not f(3) == True` negates the comparison)."""
    try:
        whole = ast.dump(ast.parse(expression, mode="eval").body)
        test = ast.parse(f"{expression} == _" if left else f"_ == {expression}", mode="eval").body
    except (SyntaxError, ValueError):
        return expression
    fits = isinstance(test, ast.Compare) and len(test.ops) == 1 and ast.dump(
        test.left if left else test.comparators[0]) == whole
    return expression if fits else f"({expression})"


def defined_functions(code: str) -> set[str]:
    """The names of the top-level functions this Python code defines (none when it does not parse)."""
    return {node.name for node in _functions(code)}


def definitions(code: str) -> str | None:
    """The code's top-level imports, functions and classes, as written: what defining its functions again takes, and
    no more (no prints, no writes); None when it does not parse or has none."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    kept = [node for node in tree.body if isinstance(node, _DEFINITIONS)]
    return "\n\n".join(_source(code, node) for node in kept) or None


_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _source(code: str, node: ast.stmt) -> str:
    """A statement's text as written, its decorators included, and nothing else on its lines (`import a; print(a)`)."""
    decorators = [f"@{ast.get_source_segment(code, d)}\n" for d in getattr(node, "decorator_list", [])]
    return "".join(decorators) + (ast.get_source_segment(code, node) or ast.unparse(node))


def stubs(request: str) -> list[str]:
    """The functions a request asks to have written: top-level `def`s in its Python (its fenced python blocks, or
    the whole request when it is Python) whose body is only a docstring, `pass`, `...` or imports."""
    return [node.name for node in _stub_nodes(request)]


def opening(request: str) -> str:
    """How a reply to a request that hands over a stub begins (GenParams.opening): a python fence and the request's
    code up to the end of its last stub's docstring, the stub being the last thing in that code; "" otherwise. Asked
    to write a stub, a model copies its docstring first, often most of the reply's characters, each decoded several
    times slower than the same text is read as prompt."""
    for source in _sources(request):
        nodes = _functions(source)
        if not nodes or not all(map(_empty, nodes[-1].body)) or _last_line(source) != nodes[-1].end_lineno:
            continue
        first = nodes[-1].body[0]
        end = first.end_lineno if _docstring(first) else first.lineno - 1
        return "```python\n" + "\n".join(source.splitlines()[:end]) + "\n"
    return ""


def _last_line(code: str) -> int | None:
    """The line the last statement of this Python code ends on."""
    return ast.parse(code).body[-1].end_lineno


def _docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(
        statement.value.value, str)


def _sources(request: str) -> list[str]:
    """The request's Python: its fenced python blocks, or the whole request when it has no fence."""
    return [b.code for b in code_blocks(request) if b.language == "python"] if "```" in request else [request]


def _stub_nodes(request: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [node for source in _sources(request) for node in _functions(source) if all(map(_empty, node.body))]


def _functions(code: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The top-level function definitions of this Python code (none when it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    return [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _empty(statement: ast.stmt) -> bool:
    """A statement that computes nothing: a docstring (any constant), `pass`, `...`, an import."""
    return isinstance(statement, (ast.Pass, ast.Import, ast.ImportFrom)) or (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))


def checks(examples: list[Example], defined: set[str]) -> str | None:
    """Asserts for the examples that call a function in `defined`, one a line, after what table examples compare by
    (tables.HELPER) when there are any; None when there are none."""
    chosen = [e for e in examples if e.calls & defined][:MAX_EXAMPLES]
    lines = [e.line or f"assert {_side(e.source, True)} == {_side(e.want, False)}" for e in chosen]
    helper = tables.HELPER if any(e.line for e in chosen) else ""
    return helper + "\n".join(lines) + "\n" if lines else None
