"""The view of session events for pipes, NO_COLOR and --plain: clean text with no escape codes."""

from __future__ import annotations

import sys
from typing import TextIO

from interp.common.events import (
    CodeShown,
    Event,
    ExecutionDone,
    ExecutionStart,
    Notice,
    OutputChunk,
    OutputFile,
    ProgramText,
    ReplyDone,
    RuleFired,
    StepStart,
    TextDelta,
)
from interp.common.screentext import for_screen
from interp.ui.edge import screened
from interp.ui.render import OutputFold, fired_line, open_in_viewer, stats_line


class PlainView:
    """Clean text with no escape codes: the reply as generated, output as it arrives, notices on stderr."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, open_images: bool = False) -> None:
        self.open_images = open_images
        self.verbose = False
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._fold = OutputFold()
        self._at_line_start = True

    def _write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.out.flush()
            self._at_line_start = text.endswith("\n")

    def _newline(self) -> None:
        if not self._at_line_start:
            self._write("\n")

    def say(self, text: str) -> None:
        self._newline()
        self._write(for_screen(text) + "\n")

    def show(self, event: Event) -> None:
        event = screened(event)  # nothing from a model, a kernel or a file reaches the terminal unsanitized
        if isinstance(event, (TextDelta, ProgramText)):
            self._write(event.text)
        elif isinstance(event, ReplyDone):
            self._newline()
            if self.verbose:
                self._write(stats_line(event.stats) + "\n")
        elif isinstance(event, (ExecutionStart, StepStart, CodeShown)):
            self._heading(event)
        elif isinstance(event, OutputChunk):
            self._write(self._fold.visible(event.text))
        elif isinstance(event, OutputFile):
            self._newline()
            self._write(self._fold.visible(f"[{event.mime} saved to {event.path}]\n"))
            if self.open_images and event.mime.startswith("image/"):
                open_in_viewer(event.path)
        elif isinstance(event, ExecutionDone):
            self._done(event)
        elif isinstance(event, Notice):
            self._newline()
            self.err.write(f"interp: {event.text}\n")
            self.err.flush()
        elif isinstance(event, RuleFired) and self.verbose:
            self._newline()
            self.err.write(f"interp: {fired_line(event)}\n")
            self.err.flush()

    def _heading(self, event: ExecutionStart | StepStart | CodeShown) -> None:
        """A line that starts something on a line of its own (a program's text may leave the line open)."""
        self._newline()
        if isinstance(event, ExecutionStart):
            self._fold = OutputFold()
            self._write(f"--- running {event.language}\n")
        elif isinstance(event, StepStart):
            self._write(f"--- step {event.name} ({event.kind}, line {event.line})\n")
        else:
            self._write(f"--- {event.title}:\n{event.code.rstrip()}\n")

    def _done(self, event: ExecutionDone) -> None:
        self._newline()
        if self._fold.summary():
            self._write(f"... {self._fold.summary()}\n")
        if event.status == "ok":
            self._write(f"--- done in {event.duration_s:.2f}s\n")
        elif event.error:
            self._write(f"--- {event.status}:\n{event.error}\n")

    def interrupted(self) -> None:
        self._newline()
        self._write("--- interrupted\n")
