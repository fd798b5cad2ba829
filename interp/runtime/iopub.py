"""What one Jupyter iopub message means for a run: an output, the run's error, its end, or nothing. No I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from interp.common.events import DisplayData, OutputChunk
from interp.common.textclean import clean_traceback


@dataclass
class Raised:
    """The code raised: the error as the model will see it (traceback cleaned of colours)."""

    ename: str | None
    evalue: str | None
    error: str


@dataclass
class Idle:
    """The kernel went idle: the run is over."""


def translate(msg: dict[str, Any], msg_id: str) -> OutputChunk | DisplayData | Raised | Idle | None:
    """The meaning of an iopub message for the run whose request was `msg_id`; messages of other runs (and kinds
    that carry nothing for the user: busy, execute_input, ...) mean nothing."""
    if msg.get("parent_header", {}).get("msg_id") != msg_id:
        return None
    kind, content = msg.get("msg_type"), msg.get("content", {})
    if kind == "stream":
        return OutputChunk(content["name"], content["text"])
    if kind in ("execute_result", "display_data"):
        data = content.get("data", {})
        if set(data) - {"text/plain"}:
            return DisplayData(data)
        if data.get("text/plain"):
            return OutputChunk("result", data["text/plain"] + "\n")
        return None
    if kind == "error":
        ename, evalue = content.get("ename"), content.get("evalue")
        return Raised(ename, evalue, clean_traceback(content.get("traceback", [])) or f"{ename}: {evalue}")
    if kind == "status" and content.get("execution_state") == "idle":
        return Idle()
    return None
