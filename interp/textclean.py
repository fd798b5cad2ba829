"""Cleans and bounds text before the model or the terminal sees it."""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


_TERMINAL_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def for_terminal(text: str) -> str:
    """Model text as it may reach a terminal: escape sequences removed, and every other control character but tab
    and newline (a sequence split across two pieces of a stream is defused by removing its ESC)."""
    return _TERMINAL_CONTROL.sub("", strip_ansi(text))


def for_model(text: str) -> str:
    """Output as a model should read it: no escape codes, a progress bar redrawn with \\r reduced to its last
    state, no other control characters."""
    lines = []
    for line in strip_ansi(text).replace("\r\n", "\n").split("\n"):
        if "\r" in line:
            line = next((part for part in reversed(line.split("\r")) if part), "")
        lines.append(_CONTROL.sub("", line))
    return "\n".join(lines)


class HeadTail:
    """Keeps the first and last `limit // 2` characters of a stream of text in bounded memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._head: list[str] = []
        self._head_len = 0
        self._tail = ""
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        if self.limit <= 0:
            self._head.append(text)
            return
        half = self.limit // 2
        if self._head_len < half:
            take = text[: half - self._head_len]
            self._head.append(take)
            self._head_len += len(take)
            text = text[len(take):]
        if text:
            keep = self.limit - half
            self._tail = text[-keep:] if len(text) >= keep else (self._tail + text)[-keep:]

    def text(self) -> str:
        head = "".join(self._head)
        if self.limit <= 0 or self.total <= self.limit:
            return head + self._tail
        cut = self.total - len(head) - len(self._tail)
        return f"{head}\n[... {cut} characters cut ...]\n{self._tail}"


_LIBRARY_FRAME = re.compile(r"^File (?:[^\n]*/(?:site-packages|dist-packages|lib/python3[.\d]*)/|<frozen )")
ARROW = re.compile(r"^\s*-+>\s*\d+\s?(.*)$")  # IPython's `----> 9 code`, `---> 10 code`: the line that raised


def clean_traceback(lines: list[str]) -> str:
    """Turns an IPython traceback into the lines that matter to a model: the user's frames and the exception line.
    A frame in a library (the standard library, site-packages) keeps its header and the line it points at, without
    the lines around it: `re.findall`'s frame brought its docstring, some 150 tokens to read before each repair."""
    frames = [strip_ansi(frame) for frame in lines]
    frames = ["\n".join(line for i, line in enumerate(frame.splitlines()) if i == 0 or ARROW.match(line))
              if _LIBRARY_FRAME.match(frame.lstrip()) else frame for frame in frames]
    text = "\n".join(frames)
    kept = []
    for line in text.splitlines():
        if set(line.strip()) == {"-"}:
            continue
        if "Traceback (most recent call last)" in line:
            kept.append("Traceback (most recent call last):")
            continue
        kept.append(line.rstrip())
    return "\n".join(kept).strip()


def arrow_lines(error: str) -> list[str]:
    """The code of the lines a traceback's arrows point at, outermost frame first, line numbers dropped."""
    return [match[1] for line in error.splitlines() if (match := ARROW.match(line))]


def loops_at_end(text: str, window: int = 240, max_period: int = 40) -> bool:
    """Whether the text ends in one short unit repeated over the last `window` characters ('-l -l -l ...'): a small
    model caught in a loop, which would otherwise run on to its token limit."""
    if len(text) < window:
        return False
    tail = text[-window:]
    return any(tail == (tail[-period:] * (window // period + 1))[-window:] for period in range(1, max_period + 1))
