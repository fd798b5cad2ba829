"""What the session holds, told to the model with each request: read from the kernel, not from the conversation.

A later request refers to what earlier ones built by a word ("the model", "that frame", "the encoder"), and the
conversation that built it may be long gone from the window or say it wrongly (a column renamed since, a frame
filtered). The kernel knows: its namespace is read at the start of each request (`__interp_state` in
runtime/_kernel_helpers.py: at most NAMES names, each in a line of at most WIDTH characters: a frame's size and
columns with their dtypes, a series's length, an array's shape, a container's length, a function's signature, a
model's class and whether it is fitted) and put before the request. Nothing when the kernel holds nothing, as at
a session's first request.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from string import Template

NAMES = 25  # names told
WIDTH = 240  # characters of each name's line

Evaluate = Callable[[dict[str, str]], dict[str, str]]


def held(evaluate: Evaluate) -> list[tuple[str, str, str]]:
    """The names the kernel's namespace holds, each with its kind and a line about it; empty when the kernel cannot
    say (another kernel than interp's, a namespace it cannot read)."""
    answer = evaluate({"state": f"__interp_state({NAMES}, {WIDTH})"}).get("state")
    try:
        found = json.loads(answer) if answer else []
    except ValueError:
        return []
    if not isinstance(found, list):
        return []
    return [(str(item[0]), str(item[1]), str(item[2])[:WIDTH]) for item in found[:NAMES]
            if isinstance(item, list) and len(item) == 3]


def note(template: Template, entries: list[tuple[str, str, str]]) -> str:
    """The text put before a request: each name, its kind and what it is; empty for none."""
    if not entries:
        return ""
    lines = "\n".join(f"- {name}: {kind}" + (f", {detail}" if detail else "") for name, kind, detail in entries)
    return template.safe_substitute(names=lines)
