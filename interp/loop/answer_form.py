"""The form a request asks its answer in: `@name[value]` parts (a common way to ask for several named quantities,
as benchmarks and reports do). A final answer that leaves a part out, or gives it in other words, does not answer
the request: the model is asked once for every part in that form, from the output it was shown."""

from __future__ import annotations

import re

_PART = re.compile(r"@([A-Za-z_][\w.-]*)\[")


def names(request: str) -> list[str]:
    """The names of the `@name[...]` parts the request asks for, in order, each once."""
    return list(dict.fromkeys(_PART.findall(request)))


def missing(reply: str, wanted: list[str]) -> list[str]:
    """The parts of `wanted` the reply does not give as `@name[...]`."""
    given = set(_PART.findall(reply))
    return [name for name in wanted if name not in given]
