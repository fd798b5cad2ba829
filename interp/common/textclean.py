"""Cleans and bounds text before the model or the terminal sees it."""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


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


_CELL_FRAME = re.compile(r"^Cell In\[(\d+)\], line (\d+)(?:, in <(genexpr|listcomp|dictcomp|setcomp|lambda)>)?")
_CONTEXT = re.compile(r"^\s+\d+(?: (.*))?$")  # a frame's numbered line of code around the arrow, maybe blank


def for_repair(error: str) -> str:
    """A cleaned traceback as the model reads it to repair its code, which it wrote one message before: the frames of
    its own code (`_cell_frames`), the library frames between them few (`_library_runs`), and a chained exception
    without the parts raised and caught inside a library (`_unchained`)."""
    return _library_runs(_unchained(_cell_frames(error)))


LINE_CHARS = 800  # the longest line of a traceback kept whole (an exception may quote a whole column of a frame)


def short_lines(text: str) -> str:
    """The text with each line longer than LINE_CHARS cut to its head and tail, and the count of what was cut."""
    head, tail = LINE_CHARS * 3 // 5, LINE_CHARS // 5
    return "\n".join(line if len(line) <= LINE_CHARS else
                     f"{line[:head]} [... {len(line) - head - tail} characters ...] {line[-tail:]}"
                     for line in text.split("\n"))


def _cell_frames(error: str) -> str:
    """A cell's frame keeps its header, the line it points at and the non-blank lines just before and after it, not
    the five around it; a comprehension's or lambda's frame on the same line of the same cell as the frame before it
    is dropped (it repeats that line, and IPython 8 on Python 3.11 has shown it with another line's code)."""
    lines = error.splitlines()
    kept: list[str] = []
    previous: tuple[str, str] | None = None  # the cell and line of the last cell frame kept
    i = 0
    while i < len(lines):
        frame = _CELL_FRAME.match(lines[i])
        if not frame:
            kept.append(lines[i])
            i += 1
            continue
        end = _frame_end(lines, i + 1)
        body = lines[i + 1:end]
        if not (frame[3] and previous == (frame[1], frame[2])):
            arrows = [j for j, line in enumerate(body) if ARROW.match(line)]
            near = {j + step for j in arrows for step in (-1, 1)}
            kept.append(lines[i])
            kept.extend(line for j, line in enumerate(body)
                        if j in arrows or (j in near and (context := _CONTEXT.match(line)) and context[1]))
            previous = (frame[1], frame[2])
        elif kept and not kept[-1].strip() and end < len(lines) and not lines[end].strip():
            end += 1  # the blank line that followed the dropped frame
        i = end
    return "\n".join(kept)


def _frame_end(lines: list[str], start: int) -> int:
    """Where the numbered lines of code of the frame whose header is just before `start` end."""
    end = start
    while end < len(lines) and (ARROW.match(lines[end]) or _CONTEXT.match(lines[end])):
        end += 1
    return end


_CHAIN = re.compile(r"\n\n(The above exception was the direct cause of the following exception:"
                    r"|During handling of the above exception, another exception occurred:)\n\n")
_FRAME = re.compile(r"^(?:Cell In\[\d+\]|File )")
_NO_SOURCE = "'Could not get source, probably due dynamically evaluated source code.'"  # a compiled module's frame


def _unchained(error: str) -> str:
    """A chained traceback without the parts that hold no frame of the user's code (a library's `raise ... from`, an
    exception a library caught): such a part is left out when it ends in the whole traceback's exception line, and
    else kept as its exception line alone."""
    parts = _CHAIN.split(error)
    if len(parts) == 1:
        return error
    last = _exception_line(parts[-1])
    kept = []
    for part, separator in zip(parts[:-1:2], parts[1::2], strict=True):
        own = any(kind == "own" for kind, _ in _frames(part.splitlines()))
        line = _exception_line(part)
        if own or line != last:
            kept.append(f"{part if own else line}\n\n{separator}\n\n")
    return "".join(kept) + parts[-1]


def _exception_line(part: str) -> str:
    lines = part.strip().splitlines()
    return lines[-1] if lines else ""


def _library_runs(error: str) -> str:
    """Three or more library frames in a row as the first (the call into the library) and the last (where it raised),
    with the count of those between; a compiled module's frame without its 'Could not get source' line."""
    out: list[str] = []
    run: list[list[str]] = []

    def flush() -> None:
        shown = [run[0], [f"... {len(run) - 2} more frames inside libraries ..."], run[-1]] if len(run) > 2 else run
        for frame in shown:
            out.extend(frame)
        run.clear()

    for kind, lines in _frames(error.splitlines()):
        if kind == "library":
            run.append([line for line in lines if _NO_SOURCE not in line])
        elif not (run and kind == "text" and not lines[0].strip()):  # a blank line between library frames goes
            flush()
            out.extend(lines)
    flush()
    return "\n".join(out)


def _frames(lines: list[str]) -> list[tuple[str, list[str]]]:
    """A traceback's lines as frames ("own" or "library", a header and its numbered lines) and other lines ("text")."""
    items: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        if not _FRAME.match(lines[i]):
            items.append(("text", [lines[i]]))
            i += 1
            continue
        end = _frame_end(lines, i + 1)
        body = lines[i + 1:end]
        library = lines[i].startswith("File ") and (bool(_LIBRARY_FRAME.match(lines[i]))
                                                    or bool(body) and all(_NO_SOURCE in line for line in body))
        items.append(("library" if library else "own", lines[i:end]))
        i = end
    return items


_NUMBERED = re.compile(r"^(\s*(?:-+>\s*)?)(\d+)(?: .*)?$")  # a frame's numbered line: `----> 4 code`, `      3 code`


def cell_lines(error: str, code: str) -> str:
    """A cleaned traceback whose frames in the run's own cell show the lines of `code` their numbers name. IPython 9
    on Python 3.11 shows, in a frame inside a comprehension, a generator or a lambda, the cell's first line (or the
    first of the function around it) under the failing line's number: `----> 6 import matplotlib.pyplot as plt` for
    the line that ran `float(row[5])`. The run's cell is the first cell frame's, when the line it points at is the
    code's; else (a %%magic ran the code, a rewritten line) the traceback is left as it is."""
    lines, out = code.splitlines(), error.splitlines()
    frames = [(i, frame) for i, line in enumerate(out) if (frame := _CELL_FRAME.match(line))]
    if not frames:
        return error
    first, cell = frames[0][0], frames[0][1][1]
    arrows = [line for line in _body(out, first + 1) if ARROW.match(line)]
    if not arrows or any(line != _numbered(line, lines) for line in arrows):
        return error
    for i, frame in frames:
        if frame[1] == cell:
            body = _body(out, i + 1)
            if any(ARROW.match(line) for line in body):  # a SyntaxError's frame shows its line unnumbered
                out[i + 1:i + 1 + len(body)] = [_numbered(line, lines) for line in body]
    return "\n".join(out)


def _body(lines: list[str], start: int) -> list[str]:
    """The numbered lines of code of the frame whose lines start at `start`."""
    end = start
    while end < len(lines) and _NUMBERED.match(lines[end]):
        end += 1
    return lines[start:end]


def _numbered(line: str, code: list[str]) -> str:
    """A frame's numbered line showing the line of `code` its number names (as it is, when out of range)."""
    match = _NUMBERED.match(line)
    if not match or not 0 < int(match[2]) <= len(code):
        return line
    text = code[int(match[2]) - 1].rstrip()
    return f"{match[1]}{match[2]} {text}" if text else f"{match[1]}{match[2]}"


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
