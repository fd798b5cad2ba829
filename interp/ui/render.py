"""The view of session events for terminals (rich), and what it shares with the plain view (plain.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.status import Status
from rich.syntax import Syntax
from rich.text import Text

from interp.common.events import (
    CodeShown,
    Event,
    ExecutionDone,
    ExecutionStart,
    ModelStats,
    Notice,
    OutputChunk,
    OutputFile,
    ProgramText,
    ReplyDone,
    RuleFired,
    StepStart,
    TextDelta,
    Thinking,
)
from interp.common.screentext import for_screen
from interp.ui.edge import screened

SCREEN_LINES = 200  # output shown per execution; the rest is counted, not printed
SCREEN_CHARS = 20_000
REFRESH_S = 0.08  # the live tail of a reply is redrawn at most this often
CODE_THEME = "monokai"  # rich's Markdown draws the model's code blocks in this theme: code shown alone matches them
_LEXERS = {"shell": "bash"}
_DRAWN = ("image/png", "image/jpeg", "image/gif")  # drawn inline as well as saved (an SVG is only saved)
_NOTICE_STYLE = {"info": "cyan", "warning": "yellow", "error": "bold red"}


def open_in_viewer(path: str) -> None:
    """Opens a file in the desktop's viewer without waiting for it; does nothing where there is no opener."""
    opener = "open" if sys.platform == "darwin" else "xdg-open"
    if shutil.which(opener):
        subprocess.Popen([opener, path], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)


def fired_line(event: RuleFired) -> str:
    """The line %verbose shows for a rule that fired: its id and the first line of what the model was told."""
    first = event.text.strip().splitlines()[0] if event.text.strip() else ""
    return f"rule {event.rule} ({event.phase}): {first[:100]}"


def stats_line(stats: ModelStats) -> str:
    return (f"[{stats.prompt_tokens} prompt tokens, {stats.cached_tokens} cached, time to first token "
            f"{stats.ttft_s:.2f}s, {stats.completion_tokens} generated at {stats.decode_tps:.1f} tokens/s"
            f"{draft_share(stats, ', ', ' from the draft')}]")


def draft_share(stats: ModelStats, before: str = "", after: str = "") -> str:
    """The share of the reply's tokens that speculative decoding took from its draft, or '' when it drafted none."""
    if not stats.draft_tokens or not stats.completion_tokens:
        return ""
    return f"{before}{stats.accepted_tokens / stats.completion_tokens:.0%}{after}"


def complete_blocks(text: str) -> int:
    """Index up to which `text` holds finished Markdown blocks: paragraphs ended by a blank line, closed fences."""
    pos = cut = 0
    in_fence = False
    for line in text.splitlines(keepends=True):
        if not line.endswith("\n"):
            break
        pos += len(line)
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            if not in_fence:
                cut = pos
        elif not in_fence and not stripped:
            cut = pos
    return cut


class OutputFold:
    """Counts one execution's output and says how much of it may still be shown: at most `lines` lines and
    `chars` characters; what is past either limit is only counted (a flood costs a count, not a copy)."""

    def __init__(self, lines: int = SCREEN_LINES, chars: int = SCREEN_CHARS) -> None:
        self.max_lines, self.max_chars = lines, chars
        self.lines = self.chars = 0
        self.hidden_lines = self.hidden_chars = 0

    def visible(self, text: str) -> str:
        pos = 0
        while self.lines < self.max_lines:
            end = text.find("\n", pos)
            if end < 0:
                pos = len(text)
                break
            pos = end + 1
            self.lines += 1
        pos = min(pos, max(self.max_chars - self.chars, 0))
        self.chars += pos
        self.hidden_lines += text.count("\n", pos)
        self.hidden_chars += len(text) - pos
        return text[:pos]

    def summary(self) -> str | None:
        """A line saying what was not shown, or None when everything was."""
        if not self.hidden_chars:
            return None
        return f"{self.hidden_lines} more lines ({self.hidden_chars} characters) not shown"


class RichView:
    """Streams Markdown: finished blocks are printed once into the scrollback, only the unfinished tail is live."""

    def __init__(self, console: Console | None = None, open_images: bool = False, inline_images: str = "off") -> None:
        self.console = console or Console(highlight=False)
        self.open_images = open_images
        self.inline_images = inline_images  # the setting: auto, a protocol, or off
        self.verbose = False
        self._pending = ""
        self._live: Live | None = None
        self._status: Status | None = None
        self._drawn = 0.0
        self._fold = OutputFold()

    def say(self, text: str) -> None:
        self.console.print(Text(for_screen(text)))

    def show(self, event: Event) -> None:
        event = screened(event)  # nothing from a model, a kernel or a file reaches the terminal unsanitized
        if isinstance(event, Thinking):
            self._stop_status()  # calls aside (choosing.py) come one after another, with no reply shown between
            self._status = Status("reading…", console=self.console, spinner="dots")
            self._status.start()
            return
        self._stop_status()
        if isinstance(event, TextDelta):
            self._text(event.text)
        elif isinstance(event, ReplyDone):
            self._flush()
            if self.verbose:
                self.console.print(Text(stats_line(event.stats), style="dim"))
        elif isinstance(event, ExecutionStart):
            self._fold = OutputFold()
            self.console.print(Text(f"▶ running {event.language}", style="dim"))
        elif isinstance(event, (OutputChunk, OutputFile)):
            self._output(event)
        elif isinstance(event, ExecutionDone):
            self._done(event)
        elif isinstance(event, (Notice, RuleFired)):
            self._notice(event)
        elif isinstance(event, StepStart):
            self.console.print(Text(f"── {event.name} ({event.kind}, line {event.line})", style="bold cyan"))
        elif isinstance(event, CodeShown):
            self.console.print(Text(f"── {event.title}", style="dim"))
            self.console.print(Syntax(event.code, _LEXERS.get(event.language, event.language), theme=CODE_THEME,
                                      word_wrap=True, padding=1))
        elif isinstance(event, ProgramText):
            self.console.print(Text(event.text), end="")

    def _notice(self, event: Notice | RuleFired) -> None:
        """A notice; a rule that fired, under %verbose."""
        if isinstance(event, Notice):
            self.console.print(Text(event.text, style=_NOTICE_STYLE.get(event.level, "")))
        elif self.verbose:
            self.console.print(Text(fired_line(event), style="dim"))

    def _output(self, event: OutputChunk | OutputFile) -> None:
        if isinstance(event, OutputChunk):
            shown = self._fold.visible(event.text)
            style = "red" if event.stream == "stderr" else "bright_black" if event.stream == "result" else ""
        else:
            shown = self._fold.visible(f"🖼  {event.mime} saved to {event.path}\n")
            style = "cyan"
            if self.open_images and event.mime.startswith("image/"):
                open_in_viewer(event.path)
        if shown:
            self.console.print(Text(shown, style=style), end="")
            if isinstance(event, OutputFile) and event.mime in _DRAWN and self.inline_images != "off":
                self._draw(event.path)

    def _draw(self, path: str) -> None:
        """Draws a saved image below the line naming its file; numpy and PIL are imported only once there is one."""
        from interp.ui.images import cell_size, choose, load

        protocol = choose(self.inline_images, os.environ)
        image = load(path, protocol, cell_size(self.console.file)) if protocol else None
        if image is not None:
            self.console.print(image)

    def _text(self, text: str) -> None:
        self._pending += text
        cut = complete_blocks(self._pending)
        if cut:
            done, self._pending = self._pending[:cut], self._pending[cut:]
            self._stop_live()
            self.console.print(Markdown(done, hyperlinks=False))  # a link shows where it goes, not only its text
            if done.endswith("\n\n"):
                self.console.print()  # each block is rendered alone: keep the gap between paragraphs
        if not self._pending.strip():
            return
        now = time.monotonic()
        if self._live is None:
            self._live = Live(console=self.console, auto_refresh=False, transient=True)
            self._live.start()
        if now - self._drawn >= REFRESH_S:
            self._live.update(Text(self._visible_tail()), refresh=True)
            self._drawn = now

    def _visible_tail(self) -> str:
        """The last lines of the unfinished block that fit on screen, as plain text: Live cannot redraw what
        scrolled off, and highlighting a growing block on every refresh would cost more the longer it grows. The
        block is rendered as Markdown once, when it is finished."""
        rows = max(self.console.height - 4, 4)
        tail = "\n".join(self._pending.split("\n")[-rows:])
        return tail[-rows * self.console.width:]

    def _stop_status(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _flush(self) -> None:
        self._stop_live()
        if self._pending.strip():
            self.console.print(Markdown(self._pending, hyperlinks=False))
        self._pending = ""

    def _done(self, event: ExecutionDone) -> None:
        if self._fold.summary():
            self.console.print(Text(f"… {self._fold.summary()}", style="dim"))
        if event.status == "ok":
            self.console.print(Text(f"✓ done in {event.duration_s:.2f}s", style="green"))
        elif event.error:
            self.console.print(Panel(Text(event.error), title=event.status, border_style="red"))

    def interrupted(self) -> None:
        self._stop_status()
        self._flush()
        self.console.print(Text("⏹ interrupted", style="yellow"))
