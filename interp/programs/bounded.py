"""The Jinja2 environment that PDL expressions run in: sandboxed, and bounded, so that a few characters of a program
cannot take the machine's time or memory (`${ 9 ** (9 ** 9) }`, `${ 'x' * 10 ** 9 }`, `${ 'x'|center(10 ** 9) }`).

Jinja folds constant expressions while it compiles them, so an unbounded power would run already at --dry-run:
the operators that can grow without bound are intercepted (an intercepted operator is never folded), compile-time
optimisation is off, and the filters and string methods that can multiply sizes are checked before they run by an
estimate of the size of their result. Jinja's statements (`{% for %}`) are off, as in PDL itself, so an expression
has no loops; `range` is the sandbox's, at most MAX_RANGE items.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import string
from collections.abc import Callable
from typing import Any

from jinja2.sandbox import SandboxedEnvironment, SecurityError

MAX_LENGTH = 1 << 24  # characters or items that one operation may make
MAX_INT_BITS = 1 << 14  # an integer's size (Python prints no more than 4,300 digits anyway)
# PDL's own block delimiters: Jinja statements are off unless written this way (pdl_interpreter.py).
BLOCK_START, BLOCK_END = "{%%%%%PDL%%%%%%%%%%", "%%%%%PDL%%%%%%%%%%}"
_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0 +\-]*(\*|\d*)(?:\.(\*|\d*))?")
_PASSED = ("eval_ctx", "context", "environment")
Estimate = Callable[[dict[str, Any]], int]


def _size(value: Any) -> int:
    return len(value) if hasattr(value, "__len__") else 1


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _width(value: Any) -> int:
    """A width given as a count or as the string itself (indent's `width`)."""
    return value if isinstance(value, int) else _size(value)


def _number(digits: str) -> int:
    return int(digits or 0) if len(digits) < 10 else MAX_LENGTH + 1


def _replaced(text: Any, old: Any, new: Any) -> int:
    """The length of text.replace(old, new) (at most), found without making it."""
    if not isinstance(text, str) or not isinstance(old, str):
        return _size(text)
    hits = len(text) + 1 if old == "" else text.count(old)
    return len(text) + hits * _size(new)


def _format_size(fmt: Any) -> int:
    """About how long a format string's result is, from the widths it names; a width taken from an argument (`%*d`,
    `{:{}}`) counts as unbounded."""
    if not isinstance(fmt, str):
        return 0
    total = len(fmt)
    for width, precision in _PERCENT.findall(fmt) if "%" in fmt else ():
        if "*" in (width, precision):
            return MAX_LENGTH + 1
        total += _number(width) + _number(precision)
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return total  # not a str.format string; format() itself says so
    for _text, _name, spec, _conversion in fields:
        if spec and "{" in spec:
            return MAX_LENGTH + 1
        total += sum(_number(n) for n in re.findall(r"\d+", spec or ""))
    return total


# The result's size, from the bound arguments, for filters and str methods that can make more than they are given.
FILTERS: dict[str, Estimate] = {
    "center": lambda a: _int(a["width"]),
    "indent": lambda a: _size(a["s"]) + (str(a["s"]).count("\n") + 1) * _width(a["width"]),
    "wordwrap": lambda a: _size(a["s"]) + (_size(a["s"]) // max(_int(a["width"]), 1) + str(a["s"]).count("\n") + 1)
    * _size(a["wrapstring"] or "\n"),
    "replace": lambda a: _replaced(a["s"], a["old"], a["new"]),
    "join": lambda a: _size(a["value"]) * (1 + _size(a["d"])),
    "format": lambda a: _format_size(a["value"]),
    "tojson": lambda a: _size(str(a["value"])) * (1 + _int(a["indent"])),
    "slice": lambda a: _int(a["slices"]),
}
METHODS: dict[str, Estimate] = {
    "center": lambda a: _int(a["width"]), "ljust": lambda a: _int(a["width"]), "rjust": lambda a: _int(a["width"]),
    "zfill": lambda a: _int(a["width"]),
    "expandtabs": lambda a: len(a["self"]) + a["self"].count("\t") * _int(a["tabsize"]),
    "replace": lambda a: _replaced(a["self"], a["old"], a["new"]),
    "join": lambda a: _size(a["iterable"]) * (1 + len(a["self"])),
    "translate": lambda a: len(a["self"]) * max((_size(v) for v in a["table"].values()), default=1)
    if isinstance(a["table"], dict) else 0,
    "format": lambda a: _format_size(a["self"]), "format_map": lambda a: _format_size(a["self"]),
}


class BoundedEnvironment(SandboxedEnvironment):
    """A SandboxedEnvironment whose operators, filters and string methods refuse results over MAX_LENGTH items or
    integers over MAX_INT_BITS bits (SecurityError, which names what was refused)."""

    intercepted_binops = frozenset({"*", "**", "%"})

    def __init__(self, **options: Any) -> None:
        super().__init__(optimized=False, block_start_string=BLOCK_START, block_end_string=BLOCK_END, **options)
        self.globals.pop("lipsum", None)  # lipsum(n) writes n paragraphs
        for name, estimate in FILTERS.items():
            self.filters[name] = _bounded(self.filters[name], f"the filter {name}", estimate)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**":
            _check_power(left, right)
        elif operator == "*":
            _check_product(left, right)
        elif operator == "%" and isinstance(left, str):
            _check_size(_format_size(left) + _size(right), "a % format")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - as Jinja's
        method = getattr(__obj, "__wrapped__", __obj)  # str.format comes wrapped by the sandbox
        owner = getattr(method, "__self__", None)
        name = getattr(method, "__name__", "")
        if isinstance(owner, str) and name in METHODS:
            if name == "join" and args and not hasattr(args[0], "__len__"):
                args = (list(args[0]), *args[1:])  # a generator: its items are counted once, then joined
            _check_size(METHODS[name](_arguments(method, owner, args, kwargs)), f"str.{name}")
        return super().call(__context, __obj, *args, **kwargs)


def _arguments(method: Any, owner: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    if method.__name__ in ("format", "format_map"):
        return {"self": owner}
    try:
        bound = inspect.signature(method).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return {"self": owner, "width": 0, "tabsize": 0, "old": "", "new": "", "iterable": (), "table": {}}
    bound.apply_defaults()
    return {"self": owner, **bound.arguments}


def _bounded(function: Callable[..., Any], what: str, estimate: Estimate) -> Callable[..., Any]:
    signature = inspect.signature(function)
    # Jinja's async variants of plain filters take the eval context first and show the plain signature.
    skip = int(hasattr(function, "jinja_pass_arg") and next(iter(signature.parameters)) not in _PASSED)

    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args[skip:], **kwargs)
        except TypeError:
            return function(*args, **kwargs)  # the filter's own error for its arguments
        bound.apply_defaults()
        for name in ("value", "s"):  # a generator (from map, select): its items are counted, then used
            given: Any = bound.arguments.get(name)
            if not isinstance(given, str) and hasattr(given, "__iter__") and not hasattr(given, "__len__"):
                bound.arguments[name] = list(given)
        _check_size(estimate(bound.arguments), what)
        return function(*args[:skip], *bound.args, **bound.kwargs)

    return functools.update_wrapper(checked, function)  # keeps Jinja's pass_context marks


def _check_size(size: int, what: str) -> None:
    if size > MAX_LENGTH:
        raise SecurityError(f"{what} would make more than {MAX_LENGTH:,} characters or items; refused")


def _check_power(base: Any, exponent: Any) -> None:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1 \
            and math.log2(abs(base)) * exponent > MAX_INT_BITS:
        raise SecurityError(f"{_short(base)} ** {_short(exponent)} is too large (over {MAX_INT_BITS:,} bits); "
                            "refused")


def _short(number: int) -> str:
    return str(number) if number.bit_length() < 64 else f"a {number.bit_length():,}-bit number"


def _check_product(left: Any, right: Any) -> None:
    if isinstance(left, int) and isinstance(right, int):
        if left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise SecurityError(f"a product over {MAX_INT_BITS:,} bits; refused")
        return
    count, items = (left, right) if isinstance(left, int) else (right, left)
    if isinstance(count, int) and hasattr(items, "__len__"):
        _check_size(count * len(items), "the repetition")
