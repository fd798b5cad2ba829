"""PDL programs (IBM's Prompt Declaration Language), the supported subset, compiled to the step graph.

Supported blocks: text, lastOf, model, code (lang: python), read (a file or the user), data, include, if/then/else,
for/repeat, repeat/until, repeat/num_iterations; on any block: def, defs, contribute, role, parser (json, jsonl,
yaml, regex) with spec, description. Anything else is refused before the program runs, naming its line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interp.common.regular_files import irregular
from interp.programs.expr import ExprError, Expressions, to_schema
from interp.programs.graph import CONTRIBUTE_ALL, Graph, ProgramError, Step
from interp.programs.limits import MAX_INCLUDE_DEPTH, MAX_INCLUDES, MAX_NODES, MAX_PROGRAM_BYTES, MAX_STEPS, read_text
from interp.programs.pdl_yaml import LineList, LineMap, load_yaml

KINDS = ("for", "repeat", "if", "text", "lastOf", "model", "code", "read", "data", "include")
COMMON = {"def", "defs", "contribute", "role", "parser", "spec", "description"}
FIELDS = {
    "for": {"for", "repeat", "join"}, "repeat": {"repeat", "until", "num_iterations", "join"},
    "if": {"if", "then", "else"}, "text": {"text"}, "lastOf": {"lastOf"}, "model": {"model", "input", "parameters"},
    "code": {"code", "lang"}, "read": {"read", "message", "multiline"}, "data": {"data", "raw"},
    "include": {"include"},
}
NOT_SUPPORTED = ("function", "call", "array", "object")
PARSERS = ("json", "jsonl", "yaml")


def parse(path: Path, text: str) -> Graph:
    """The program's graph; raises ProgramError naming the line of the first problem found."""
    document, size = load_yaml(path, text)
    if document is None:
        raise ProgramError(path, 0, "empty program")
    compiler = _Compiler(path, MAX_NODES - size)
    end = compiler.add(Step("", "end", len(text.splitlines()) + 1, name="end"))
    entry = compiler.block(document, 1, end, path)
    graph = Graph(path, "pdl", compiler.steps, entry)
    graph.check()
    return graph


class _Compiler:
    def __init__(self, path: Path, nodes_left: int) -> None:
        self.path = path
        self.steps: dict[str, Step] = {}
        self.expressions = Expressions()
        self.including: list[Path] = [path.resolve()]
        self.nodes_left = nodes_left  # of MAX_NODES, for the files it includes
        self.includes = 0

    def add(self, step: Step) -> str:
        step.id = step.id or f"b{len(self.steps)}"
        return self._keep(step).id

    def reserve(self, kind: str, line: int, **fields: Any) -> Step:
        return self._keep(Step(f"b{len(self.steps)}", kind, line, **fields))

    def _keep(self, step: Step) -> Step:
        if len(self.steps) >= MAX_STEPS:
            raise self.fail(0, f"too large: it makes more than {MAX_STEPS:,} steps")
        self.steps[step.id] = step
        return step

    def fail(self, line: int, message: str, file: Path | None = None) -> ProgramError:
        return ProgramError(file or self.path, line, message)

    def check(self, value: Any, line: int, file: Path) -> Any:
        try:
            self.expressions.check(value)
        except ExprError as exc:
            raise self.fail(line, str(exc), file) from None
        return value

    def block(self, block: Any, line: int, cont: str, file: Path) -> str:
        """Compiles one block (or a list of blocks) to steps that go on to `cont`; returns the first step's id."""
        if isinstance(block, list):
            return self.sequence(block, getattr(block, "lines", []), line, cont, file)
        if not isinstance(block, dict):
            return self.add(Step("", "text", line, value=self.check(block, line, file), next=cont))
        line = getattr(block, "line", line)
        kind = next((k for k in KINDS if k in block), None)
        if kind is None:
            bad = next((k for k in block if k in NOT_SUPPORTED), None)
            if bad:
                raise self.fail(line, f"'{bad}' blocks are not supported by interp (see docs/programs.md: PDL)", file)
            keys = ", ".join(map(str, block)) or "none"
            raise self.fail(line, f"unknown block: none of {', '.join(KINDS)} among its keys ({keys})", file)
        unknown = [k for k in block if k not in FIELDS[kind] | COMMON]
        if unknown:
            raise self.fail(line, f"unknown key '{unknown[0]}' in a {kind} block", file)
        common = self.common(block, kind, line, file)
        entry = getattr(self, f"_{kind if kind != 'lastOf' else 'text'}")(block, line, cont, file, common)
        for name, sub in reversed(list((block.get("defs") or {}).items())):
            entry = self._def(str(name), sub, getattr(sub, "line", line), entry, file)
        return entry

    def _def(self, name: str, sub: Any, line: int, cont: str, file: Path) -> str:
        """One `defs` entry: its block's result goes to `name` and nowhere else."""
        wrapped = LineMap(sub) if isinstance(sub, dict) else LineMap(text=sub)
        wrapped.line = getattr(sub, "line", line)
        wrapped["def"], wrapped["contribute"] = name, LineList()
        return self.block(wrapped, line, cont, file)

    def sequence(self, items: list[Any], lines: list[int], line: int, cont: str, file: Path) -> str:
        for index in reversed(range(len(items))):
            cont = self.block(items[index], lines[index] if index < len(lines) else line, cont, file)
        return cont

    def common(self, block: dict[str, Any], kind: str, line: int, file: Path) -> dict[str, Any]:
        contribute = block.get("contribute", list(CONTRIBUTE_ALL))
        if not isinstance(contribute, list) or any(c not in CONTRIBUTE_ALL for c in contribute):
            raise self.fail(line, "contribute is a list of 'result' and 'context' (or [])", file)
        fields: dict[str, Any] = {"contribute": tuple(contribute), "define": str(block.get("def") or ""),
                                  "role": str(block.get("role") or ("assistant" if kind == "model" else "user"))}
        parser = block.get("parser")
        if parser is not None:
            if isinstance(parser, dict) and set(parser) <= {"regex", "mode", "spec"} and "regex" in parser:
                pass
            elif parser not in PARSERS:
                raise self.fail(line, f"unknown parser {parser!r}: json, jsonl, yaml or {{regex: ...}}", file)
            fields["parser"] = parser
        if "spec" in block:
            try:
                fields["spec"] = to_schema(block["spec"])
            except Exception as exc:  # ValueError, or jsonschema's SchemaError for a bad schema
                raise self.fail(line, f"bad spec: {str(exc).splitlines()[0]}", file) from None
        return fields

    def scope(self, line: int, cont: str, common: dict[str, Any], join: Any = None) -> tuple[Step, Step]:
        """A composite block's open and close steps; what runs inside goes from open to close."""
        how, separator = "text", ""
        if isinstance(join, dict):
            how, separator = str(join.get("as", "text")), str(join.get("with", ""))
        elif join is not None:
            how = str(join)
        close = self.reserve("close", line, next=cont, join=how, join_with=separator, **common)
        return self.reserve("open", line, pair=close.id), close

    def _text(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        key = "text" if "text" in block else "lastOf"
        opening, close = self.scope(line, cont, common, "text" if key == "text" else "lastOf")
        opening.next = self.block(block[key], line, close.id, file)
        return opening.id

    def _model(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        prompt = block.get("input", "")
        if not isinstance(prompt, str):
            raise self.fail(line, "a model's input must be a string (other blocks as input are not supported)", file)
        params = block.get("parameters") or {}
        if not isinstance(params, dict):
            raise self.fail(line, "a model's parameters are a mapping", file)
        return self.add(Step("", "model", line, text=self.check(prompt, line, file), next=cont,
                             model=str(block["model"]), params=_params(params), **common))

    def _code(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        lang = block.get("lang", "python")
        if lang != "python":
            raise self.fail(line, f"code blocks run Python here: lang '{lang}' is not supported", file)
        if not isinstance(block["code"], str):
            raise self.fail(line, "a code block's code is a string", file)
        return self.add(Step("", "code", line, text=self.check(block["code"], line, file), next=cont, **common))

    def _read(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        if block.get("multiline"):
            raise self.fail(line, "read with multiline: true is not supported (one line is read)", file)
        source = block["read"] or ""
        message = block.get("message") or ""
        self.check([source, message], line, file)
        if source and "${" not in source:
            source = str(file.parent / source)
            if kind := irregular(source):  # found before anything runs; a path made at run time is checked then
                raise self.fail(line, f"read: {source} is not a regular file ({kind})", file)
        return self.add(Step("", "read", line, source=str(source), text=str(message), next=cont, **common))

    def _data(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        value = block["data"] if block.get("raw") else self.check(block["data"], line, file)
        return self.add(Step("", "text", line, value=_plain(value), next=cont,
                             params={"raw": bool(block.get("raw"))}, **common))

    def _include(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        target = (file.parent / str(block["include"])).resolve()
        if target in self.including:
            raise self.fail(line, f"include of {block['include']} includes itself", file)
        self.includes += 1
        if self.includes > MAX_INCLUDES or len(self.including) > MAX_INCLUDE_DEPTH:
            raise self.fail(line, f"too many includes: at most {MAX_INCLUDES} in all, {MAX_INCLUDE_DEPTH} files "
                            "deep", file)
        try:
            text = read_text(target, MAX_PROGRAM_BYTES)
        except (OSError, UnicodeDecodeError) as exc:
            raise self.fail(line, f"cannot include {block['include']}: {getattr(exc, 'strerror', exc)}", file) \
                from None
        document, size = load_yaml(target, text, self.nodes_left)
        self.nodes_left -= size
        self.including.append(target)
        opening, close = self.scope(line, cont, common, "lastOf")
        opening.next = self.block(document, 1, close.id, target)
        self.including.pop()
        return opening.id

    def _if(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        opening, close = self.scope(line, cont, common, "lastOf")
        then = self.block(block.get("then", ""), line, close.id, file)
        otherwise = self.block(block["else"], line, close.id, file) if "else" in block else close.id
        opening.next = self.add(Step("", "branch", line, condition=str(self.check(block["if"], line, file)),
                                     targets={"then": then, "else": otherwise}))
        return opening.id

    def _for(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        lists = block["for"]
        if not isinstance(lists, dict) or not lists:
            raise self.fail(line, "for: maps each loop variable to a list, as in 'for: {x: ${ xs }}'", file)
        return self.loop(block, line, cont, file, common, dict(self.check(lists, line, file)))

    def _repeat(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any]) -> str:
        if "until" in block and "num_iterations" in block:
            raise self.fail(line, "a repeat has either until or num_iterations, not both", file)
        if "num_iterations" in block:
            return self.loop(block, line, cont, file, common, self.check(block["num_iterations"], line, file))
        if "until" not in block:
            raise self.fail(line, "a repeat needs for:, until: or num_iterations:", file)
        opening, close = self.scope(line, cont, common, block.get("join"))
        check = self.reserve("branch", line, condition=str(self.check(block["until"], line, file)))
        body = self.block(block["repeat"], line, check.id, file)
        check.targets = {"until holds": close.id, "again": body}
        opening.next = body
        return opening.id

    def loop(self, block: dict[str, Any], line: int, cont: str, file: Path, common: dict[str, Any],
             items: Any) -> str:
        opening, close = self.scope(line, cont, common, block.get("join"))
        loop = self.reserve("loop", line, items=items, next=close.id)
        loop.body = self.block(block["repeat"], line, loop.id, file)
        opening.next = loop.id
        return opening.id


def _params(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters interp honours, under one name each (PDL programs use their platform's names)."""
    found: dict[str, Any] = {}
    if params.get("decoding_method") == "greedy":
        found["temperature"] = 0.0
    if "temperature" in params:
        found["temperature"] = params["temperature"]
    for name in ("max_tokens", "max_new_tokens"):
        if name in params:
            found["max_tokens"] = params[name]
    for name in ("stop", "stop_sequences"):
        if name in params:
            stop = params[name]
            found["stop"] = [stop] if isinstance(stop, str) else list(stop)
    if "include_stop_sequence" in params:
        found["include_stop_sequence"] = bool(params["include_stop_sequence"])
    return found


def _plain(value: Any) -> Any:
    """YAML's line-keeping containers as plain ones (values end up in variables and in code)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
