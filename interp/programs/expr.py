"""PDL expressions: `${ jinja2 }` in strings, evaluated in a bounded sandbox (bounded.py); and `spec` types checked
with JSON Schema."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
from jinja2 import StrictUndefined, TemplateError, Undefined

from interp.programs.bounded import MAX_LENGTH, BoundedEnvironment

_WHOLE = re.compile(r"\s*\$\{(?P<expr>.*)\}\s*", re.DOTALL)
_SHORT_TYPES = {"str": "string", "string": "string", "int": "integer", "integer": "integer", "float": "number",
                "number": "number", "bool": "boolean", "boolean": "boolean", "list": "array", "array": "array",
                "obj": "object", "object": "object", "null": "null"}


class ExprError(Exception):
    """An expression that cannot be parsed or evaluated; the message is one line."""


class Expressions:
    """Jinja2 with PDL's `${ }` delimiters (`{{ }}` clashes with YAML), sandboxed and bounded, undefined names an
    error."""

    def __init__(self) -> None:
        self.env = BoundedEnvironment(variable_start_string="${", variable_end_string="}",
                                      undefined=StrictUndefined, keep_trailing_newline=True)

    def check(self, value: Any) -> None:
        """Parses every expression in a value (strings, nested lists and mappings) without evaluating it."""
        for text in _strings(value):
            try:
                whole = _WHOLE.fullmatch(text)
                if whole and "${" not in whole["expr"]:
                    self.env.compile_expression(whole["expr"])
                elif "${" in text:
                    self.env.parse(text)
            except TemplateError as exc:
                raise ExprError(f"bad expression {text.strip()!r}: {exc.message}") from None

    def evaluate(self, value: Any, scope: dict[str, Any]) -> Any:
        """A string that is one `${ expr }` gives the expression's value (a list stays a list); other strings are
        templates; lists and mappings are evaluated item by item."""
        if isinstance(value, str):
            return self._string(value, scope)
        if isinstance(value, list):
            return [self.evaluate(item, scope) for item in value]
        if isinstance(value, dict):
            return {key: self.evaluate(item, scope) for key, item in value.items()}
        return value

    def _string(self, text: str, scope: dict[str, Any]) -> Any:
        if "${" not in text:
            return text
        try:
            whole = _WHOLE.fullmatch(text)
            if whole and "${" not in whole["expr"]:
                result = self.env.compile_expression(whole["expr"], undefined_to_none=False)(**scope)
                if isinstance(result, Undefined):
                    str(result)  # StrictUndefined raises, naming the undefined name
            else:
                result = self.env.from_string(text).render(**scope)
        except TemplateError as exc:
            raise ExprError(f"{text.strip()!r}: {exc.message}") from None
        except Exception as exc:  # an expression's own error (1/0, a bad index) is the program's, not ours
            raise ExprError(f"{text.strip()!r}: {type(exc).__name__}: {exc}") from None
        if isinstance(result, (str, list, dict)) and len(result) > MAX_LENGTH:  # grown step by step, as in a loop
            raise ExprError(f"{text.strip()!r}: the value has {len(result):,} characters or items, more than "
                            f"{MAX_LENGTH:,}; refused")
        return result


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def to_schema(spec: Any) -> dict[str, Any]:
    """PDL's type shorthand as JSON Schema: `str`, `int`, `float`, `bool`, `list`, `obj`, `[T]` (a list of T),
    `{name: T, ...}` (an object with those fields, all required); a mapping with `type` or `enum` is JSON Schema
    already. Raises ValueError for anything else."""
    if isinstance(spec, str):
        if spec not in _SHORT_TYPES:
            raise ValueError(f"unknown type '{spec}' (str, int, float, bool, list, obj, null, [T] or {{field: T}})")
        return {"type": _SHORT_TYPES[spec]}
    if isinstance(spec, list):
        if len(spec) != 1:
            raise ValueError("a list type has one item type: [T]")
        return {"type": "array", "items": to_schema(spec[0])}
    if isinstance(spec, dict):
        if "type" in spec or "enum" in spec:
            jsonschema.Draft202012Validator.check_schema(spec)
            return dict(spec)
        return {"type": "object", "properties": {str(k): to_schema(v) for k, v in spec.items()},
                "required": [str(k) for k in spec]}
    raise ValueError(f"not a type: {spec!r}")


def violation(value: Any, schema: dict[str, Any]) -> str | None:
    """What is wrong with a value under a JSON Schema, in one line; None when it conforms."""
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(value))
    if error is None:
        return None
    where = "".join(f"[{p!r}]" for p in error.absolute_path)
    return f"{'the value' + where if where else 'the value'}: {error.message}"
