"""Images that code displays, drawn inline in the terminal: which protocol, what size, and the rich renderable."""

from __future__ import annotations

import io
import math
import struct
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, NamedTuple, cast, get_args

import numpy as np
from PIL import Image
from rich.console import Console, ConsoleOptions
from rich.segment import ControlCode, ControlType, Segment

from interp.ui.graphics import half_blocks, kitty, sixel

Protocol = Literal["kitty", "sixel", "blocks"]
MAX_PIXELS = 25_000_000  # the largest image decoded to be drawn (about 100 MB as RGBA); a larger one is only saved
MAX_ROWS = 24  # a figure takes at most this many rows: enough to read it, not so many that the reply scrolls away
DEFAULT_CELL = (10, 20)  # a character cell in pixels, where the terminal does not say (VT340's, as others assume)
_KITTY_TERMS = ("xterm-kitty", "xterm-ghostty")
_SIXEL_TERMS = ("foot", "foot-extra", "mlterm", "contour", "yaft-256color")
_SIXEL_PROGRAMS = ("WezTerm", "iTerm.app", "mlterm", "contour")
# Marks a segment as control codes, which rich neither measures nor crops (and drops where it writes to no terminal).
_RAW: list[ControlCode] = [(ControlType.CURSOR_FORWARD, 0)]


def choose(setting: str, env: Mapping[str, str]) -> Protocol | None:
    """The protocol to draw images with: the one `setting` names, None for 'off', and for 'auto' one guessed from the
    environment. The terminal is never queried: its reply would arrive on stdin, racing what the person types."""
    if setting == "off":
        return None
    if setting in get_args(Protocol):
        return cast(Protocol, setting)
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "")
    # Multiplexers pass neither protocol through unless configured to, and a session started from kitty inherits
    # KITTY_WINDOW_ID: half-blocks are drawn by any terminal in between.
    if env.get("TMUX") or env.get("STY") or term.startswith(("screen", "tmux")):
        return "blocks"
    if env.get("KITTY_WINDOW_ID") or term in _KITTY_TERMS or program == "ghostty":
        return "kitty"
    if term in _SIXEL_TERMS or program in _SIXEL_PROGRAMS:
        return "sixel"
    return "blocks"


def cell_size(stream: IO[str]) -> tuple[int, int]:
    """A character cell's width and height in pixels as the terminal of `stream` reports them, or DEFAULT_CELL."""
    try:
        import fcntl
        import termios

        reply = fcntl.ioctl(stream.fileno(), termios.TIOCGWINSZ, bytes(8))
        rows, cols, width, height = struct.unpack("HHHH", reply)
    except (ImportError, OSError, ValueError):  # no terminal, no fcntl (Windows), no file descriptor (StringIO)
        return DEFAULT_CELL
    if not (rows and cols and width >= cols and height >= rows):
        return DEFAULT_CELL
    return width // cols, height // rows


class Fit(NamedTuple):
    """An image's place on screen: the cells it covers and its size in the terminal's pixels."""

    cols: int
    rows: int
    width: int
    height: int


def fit(size: tuple[int, int], cols: int, rows: int, cell: tuple[int, int], enlarge: bool = False) -> Fit:
    """The largest size that keeps the image's shape within `cols` x `rows` cells of `cell` pixels; never larger
    than the image itself unless `enlarge` (half-blocks, whose pixels are half a cell, always are)."""
    scale = min(cols * cell[0] / size[0], rows * cell[1] / size[1])
    if not enlarge:
        scale = min(scale, 1.0)
    width, height = max(1, round(size[0] * scale)), max(1, round(size[1] * scale))
    return Fit(min(cols, math.ceil(width / cell[0])), min(rows, math.ceil(height / cell[1])), width, height)


def shrink(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """The image at `size` as RGB on white, where ink wins over paper: a thin line, averaged with the paper around
    it, would fade away, so each block of pixels first becomes its darkest (its lightest on a dark figure)."""
    rgba = image.convert("RGBA")
    rgb = Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba).convert("RGB")
    fx, fy = max(rgb.width // size[0], 1), max(rgb.height // size[1], 1)
    if fx > 1 or fy > 1:
        pixels = np.asarray(rgb)[:rgb.height // fy * fy, :rgb.width // fx * fx]
        blocks = pixels.reshape(pixels.shape[0] // fy, fy, pixels.shape[1] // fx, fx, 3)
        edges = np.concatenate([pixels[0], pixels[-1], pixels[:, 0], pixels[:, -1]])
        pool = blocks.max if edges.mean() < 128 else blocks.min  # a figure's edges are its paper
        rgb = Image.fromarray(pool(axis=(1, 3)).astype(np.uint8))
    return rgb.resize(size, Image.Resampling.BOX)


@dataclass
class InlineImage:
    """A rich renderable: an image drawn in `protocol`, as wide as the console allows and at most MAX_ROWS high."""

    image: Image.Image
    protocol: Protocol
    cell: tuple[int, int] = DEFAULT_CELL
    max_rows: int = MAX_ROWS

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        rows = max(1, min(self.max_rows, console.height - 2))
        place = fit(self.image.size, options.max_width, rows, self.cell, enlarge=self.protocol == "blocks")
        if self.protocol == "blocks":
            yield from half_blocks(shrink(self.image, (place.cols, 2 * place.rows)))
            return
        pixels = shrink(self.image, (place.width, place.height))
        if self.protocol == "kitty":
            png = io.BytesIO()
            pixels.save(png, "PNG")
            codes = kitty(png.getvalue(), place.cols, place.rows)
        else:
            codes = sixel(pixels)
        # Blank lines first, so that the screen scrolls as text would; then the image drawn over them from their
        # top, and the cursor back below them, whatever the terminal does with it after an image.
        yield Segment("\n" * place.rows)
        yield Segment(f"\x1b7\x1b[{place.rows}A{codes}\x1b8", control=_RAW)


def load(path: str | Path, protocol: Protocol, cell: tuple[int, int] = DEFAULT_CELL) -> InlineImage | None:
    """The saved image at `path` ready to draw, or None where it cannot be read as one, or is too large to decode
    for the screen: its size is read from its header first (a 0.5 MB PNG can hold 13,000 x 13,000 pixels, 3 GB to
    decode), and only an image of at most MAX_PIXELS is decoded."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                if image.width * image.height > MAX_PIXELS:
                    return None
                image.load()
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return InlineImage(image, protocol, cell)
