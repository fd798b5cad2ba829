"""The terminal's edge: every event a view shows, and every line interp prints, made safe first (screentext.py).

The views call `screened` on each event before they look at it, so no string an event carries (a reply, code, an
output, an error, a notice, a file's name, a rule's text) reaches the terminal unsanitized, whatever view or field a
later change adds. A question's answer is written on the original event, not on this copy.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from interp.common.events import ExecutionDone, OutputChunk
from interp.common.screentext import for_screen, output_for_screen

_OUTPUT_FIELDS = {(OutputChunk, "text"), (ExecutionDone, "output"), (ExecutionDone, "error")}

T = TypeVar("T")


def screened(event: T) -> T:
    """A copy of a dataclass event whose strings are all safe for a terminal (a run's output and error also lose
    the colour codes libraries print); nested dataclasses likewise. Anything else is returned as it is."""
    if not dataclasses.is_dataclass(event) or isinstance(event, type):
        return event
    changes: dict[str, object] = {}
    for field in dataclasses.fields(event):
        value = getattr(event, field.name)
        if isinstance(value, str):
            clean = output_for_screen if (type(event), field.name) in _OUTPUT_FIELDS else for_screen
            changes[field.name] = clean(value)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes[field.name] = screened(value)
    return dataclasses.replace(event, **changes)
