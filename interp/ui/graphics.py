"""An image's pixels as a terminal draws them: Kitty graphics escape codes, DEC Sixel, or Unicode half-blocks."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator

import numpy as np
from PIL import Image
from rich.color import Color
from rich.segment import Segment
from rich.style import Style

KITTY_CHUNK = 4096  # base64 characters in one escape code, the most the protocol allows
SIXEL_COLOURS = 255


def kitty(png: bytes, cols: int, rows: int) -> str:
    """Escape codes that draw a PNG at the cursor scaled to `cols` x `rows` cells. The cursor stays where it was
    (C=1) and the terminal is asked for no reply (q=2): a reply would arrive on stdin, as if typed."""
    data = base64.standard_b64encode(png).decode("ascii")
    chunks = [data[i:i + KITTY_CHUNK] for i in range(0, len(data), KITTY_CHUNK)] or [""]
    codes = []
    for n, chunk in enumerate(chunks):
        more = int(n < len(chunks) - 1)
        keys = f"a=T,f=100,c={cols},r={rows},C=1,q=2,m={more}" if n == 0 else f"m={more},q=2"
        codes.append(f"\x1b_G{keys};{chunk}\x1b\\")
    return "".join(codes)


def sixel(image: Image.Image) -> str:
    """An RGB image in DEC Sixel at its size in pixels: its colours quantized to a palette, then bands six pixels
    high, one pass over a band for each colour in it."""
    indexed = image.convert("RGB").quantize(SIXEL_COLOURS)
    pixels = np.asarray(indexed)
    rgb = indexed.getpalette() or []
    used = sorted(int(i) for i in np.unique(pixels))
    palette = "".join(f"#{i};2;{rgb[3 * i] * 100 // 255};{rgb[3 * i + 1] * 100 // 255};{rgb[3 * i + 2] * 100 // 255}"
                      for i in used)
    bands = [_sixel_band(pixels[top:top + 6]) for top in range(0, pixels.shape[0], 6)]
    return f'\x1bP0;1;0q"1;1;{image.width};{image.height}{palette}{"-".join(bands)}\x1b\\'


def _sixel_band(band: np.ndarray) -> str:
    """One band of up to six pixel rows: for each colour, a character per column whose bits are the rows in that
    colour ('?' + bits), the passes joined by '$' (back to the band's start)."""
    weights = (1 << np.arange(band.shape[0]))[:, None]
    passes = []
    for colour in np.unique(band):
        bits = ((band == colour) * weights).sum(axis=0) + 63
        passes.append(f"#{colour}{_runs(bits.astype(np.uint8).tobytes().decode('ascii').rstrip('?'))}")
    return "$".join(passes)


def _runs(chars: str) -> str:
    """Sixel's run-length form: '!N' and the character, for a run of four or more."""
    return re.sub(r"(.)\1{3,}", lambda m: f"!{len(m.group(0))}{m.group(1)}", chars)


def half_blocks(image: Image.Image) -> Iterator[Segment]:
    """An RGB image with an even height as rows of '▀': each character shows two pixels, the upper in its colour
    and the lower in its background."""
    pixels = np.asarray(image.convert("RGB"))
    for top in range(0, pixels.shape[0] - 1, 2):
        for upper, lower in zip(pixels[top], pixels[top + 1], strict=True):
            yield Segment("▀", Style(color=Color.from_rgb(*upper), bgcolor=Color.from_rgb(*lower)))
        yield Segment("\n")
