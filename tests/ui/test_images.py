"""Figures drawn inline: the protocol chosen, the size fitted, the bytes of each protocol, and a plot in tmux."""

from __future__ import annotations

import base64
import io
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import records, write_script
from PIL import Image
from rich.console import Console

from interp.common.events import OutputFile
from interp.ui.images import DEFAULT_CELL, Fit, InlineImage, cell_size, choose, fit, load, shrink
from interp.ui.render import RichView

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)


@pytest.mark.parametrize(("setting", "env", "expected"), [
    ("off", {"TERM": "xterm-kitty"}, None),
    ("sixel", {"TERM": "xterm-kitty"}, "sixel"),
    ("kitty", {}, "kitty"),
    ("blocks", {"TERM": "foot"}, "blocks"),
    ("auto", {"TERM": "xterm-kitty"}, "kitty"),
    ("auto", {"TERM": "xterm-256color", "KITTY_WINDOW_ID": "1"}, "kitty"),
    ("auto", {"TERM": "xterm-ghostty"}, "kitty"),
    ("auto", {"TERM": "foot"}, "sixel"),
    ("auto", {"TERM": "xterm-256color", "TERM_PROGRAM": "WezTerm"}, "sixel"),
    ("auto", {"TERM": "xterm-256color"}, "blocks"),
    ("auto", {}, "blocks"),
    # tmux passes no graphics through by default, and keeps the variables of the kitty it was started from
    ("auto", {"TERM": "tmux-256color", "TMUX": "/tmp/tmux-1/default,1,0", "KITTY_WINDOW_ID": "1"}, "blocks"),
    ("auto", {"TERM": "screen", "STY": "1.pts-0"}, "blocks"),
])
def test_choose(setting: str, env: dict[str, str], expected: str | None) -> None:
    assert choose(setting, env) == expected


@pytest.mark.parametrize(("size", "cols", "rows", "cell", "enlarge", "expected"), [
    ((640, 480), 120, 24, (10, 20), False, Fit(64, 24, 640, 480)),  # matplotlib's default figure, at its own size
    ((640, 480), 120, 22, (10, 20), False, Fit(59, 22, 587, 440)),  # height bound: shrunk, shape kept
    ((640, 480), 40, 24, (10, 20), False, Fit(40, 15, 400, 300)),  # width bound
    ((64, 48), 120, 24, (10, 20), False, Fit(7, 3, 64, 48)),  # small: never enlarged for pixels...
    ((64, 48), 120, 24, (10, 20), True, Fit(64, 24, 640, 480)),  # ...but for half-blocks
    ((640, 480), 200, 24, (16, 32), False, Fit(40, 15, 640, 480)),  # a terminal's own cell size
])
def test_fit(size: tuple[int, int], cols: int, rows: int, cell: tuple[int, int], enlarge: bool,
             expected: Fit) -> None:
    assert fit(size, cols, rows, cell, enlarge) == expected


def test_cell_size_without_a_terminal() -> None:
    assert cell_size(io.StringIO()) == DEFAULT_CELL


def test_shrink_keeps_a_thin_line() -> None:
    """Averaging would fade a one-pixel line to a tint of the paper; the darkest of each block keeps it."""
    image = Image.new("RGB", (100, 100), WHITE)
    for x in range(100):
        image.putpixel((x, 50), BLUE)
    small = shrink(image, (10, 10))
    assert small.size == (10, 10)
    assert [small.getpixel((x, 5)) for x in range(10)] == [BLUE] * 10
    assert small.getpixel((0, 0)) == WHITE
    dark = shrink(Image.new("RGB", (100, 100), (0, 0, 0)), (10, 10))  # a dark figure: its light lines kept instead
    assert dark.getpixel((0, 0)) == (0, 0, 0)


def stripes(width: int = 7, height: int = 13) -> Image.Image:
    """An image of odd size (a last band of one row) in exact colours: a row of each, in turn."""
    image = Image.new("RGB", (width, height), WHITE)
    for y in range(height):
        for x in range(width):
            image.putpixel((x, y), [RED, GREEN, BLUE, WHITE][y % 4] if x < width - 1 else WHITE)
    return image


def draw(image: Image.Image, protocol: str, width: int = 80, height: int = 30) -> str:
    """What a terminal console of that size receives when the image is printed in that protocol."""
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="truecolor", width=width, height=height)
    console.print(InlineImage(image, protocol))  # type: ignore[arg-type]
    return out.getvalue()


def test_kitty_bytes() -> None:
    image = Image.frombytes("RGB", (300, 200), random.Random(0).randbytes(300 * 200 * 3))  # noise: PNG of chunks
    sent = draw(image, "kitty")
    rows = 10  # 200 pixels of 20-pixel cells
    assert sent.startswith("\n" * rows + f"\x1b7\x1b[{rows}A\x1b_G") and sent.endswith("\x1b\\\x1b8")
    codes = re.findall(r"\x1b_G([^;]*);([^\x1b]*)\x1b\\", sent)
    assert codes[0][0] == "a=T,f=100,c=30,r=10,C=1,q=2,m=1"  # PNG, at the cursor, left there, no reply
    assert [keys for keys, _ in codes[1:]] == ["m=1,q=2"] * (len(codes) - 2) + ["m=0,q=2"]
    assert all(len(chunk) <= 4096 for _, chunk in codes)
    png = Image.open(io.BytesIO(base64.b64decode("".join(chunk for _, chunk in codes))))
    assert png.convert("RGB").tobytes() == image.tobytes()  # at its own size: 30 x 10 cells of 10 x 20 pixels


def test_sixel_bytes() -> None:
    image = stripes()
    sent = draw(image, "sixel")
    assert sent.startswith("\n\x1b7\x1b[1A\x1bP0;1;0q") and sent.endswith("\x1b\\\x1b8")  # 13 pixels fit a row
    body = sent[sent.index("\x1bP"):sent.rindex("\x1b\\")]
    assert body.startswith('\x1bP0;1;0q"1;1;7;13#')  # raster: square pixels, 7 x 13
    assert decode_sixel(body) == [[image.getpixel((x, y)) for x in range(7)] for y in range(13)]


def decode_sixel(body: str) -> list[list[tuple[int, ...] | None]]:
    """The pixels a terminal would paint from Sixel data (palette in percent, as this encoder writes it); None
    where no colour was painted."""
    size = re.match(r'\x1bP0;1;0q"1;1;(\d+);(\d+)', body)
    assert size, body[:40]
    width, height = int(size[1]), int(size[2])
    palette = {int(i): tuple(round(int(c) * 255 / 100) for c in rgb)
               for i, *rgb in re.findall(r"#(\d+);2;(\d+);(\d+);(\d+)", body)}
    data = re.sub(r"#\d+;2;\d+;\d+;\d+", "", body[size.end():])
    data = re.sub(r"!(\d+)(.)", lambda m: m[2] * int(m[1]), data)
    pixels: list[list[tuple[int, ...] | None]] = [[None] * width for _ in range(height)]
    for band, passes in enumerate(data.split("-")):
        for one in passes.split("$"):
            colour, chars = re.fullmatch(r"#(\d+)(.*)", one).groups()  # type: ignore[union-attr]
            for x, char in enumerate(chars):
                for bit in range(6):
                    if (ord(char) - 63) >> bit & 1:
                        pixels[6 * band + bit][x] = palette[int(colour)]
    return pixels


def test_half_blocks() -> None:
    sent = draw(Image.new("RGB", (40, 30), BLUE), "blocks", width=20)
    lines = sent.splitlines()
    assert len(lines) == 8 and all(line.count("▀") == 20 for line in lines)  # 20 x 16 pixels: 4:3 in 2:1 cells
    assert "\x1b[38;2;0;0;255;48;2;0;0;255m▀" in sent  # both halves of each cell blue


def test_graphics_are_dropped_where_rich_writes_to_no_terminal() -> None:
    out = io.StringIO()
    Console(file=out, force_terminal=False, width=80).print(InlineImage(stripes(), "kitty"))
    assert "\x1b" not in out.getvalue()


def test_view_draws_a_saved_image_below_its_line(tmp_path: Path) -> None:
    path = tmp_path / "output-1.png"
    stripes().save(path)
    broken = tmp_path / "output-2.png"
    broken.write_bytes(b"not a png")
    out = io.StringIO()
    # Wide enough that no line breaks within the path of the file, wherever the temp folder lies.
    view = RichView(Console(file=out, force_terminal=True, width=240, height=30), inline_images="sixel")
    for saved in (path, broken):
        view.show(OutputFile(str(saved), "image/png"))
    view.show(OutputFile(str(tmp_path / "output-3.svg"), "image/svg+xml"))
    shown = out.getvalue()
    assert shown.count("\x1bP") == 1 and shown.index("output-1.png") < shown.index("\x1bP") < shown.index("output-2")
    assert "output-3.svg" in shown
    assert load(broken, "sixel") is None
    off = io.StringIO()
    RichView(Console(file=off, force_terminal=True, width=240), inline_images="off").show(OutputFile(str(path),
                                                                                                    "image/png"))
    assert "output-1.png" in off.getvalue() and "\x1bP" not in off.getvalue()


PLOT = "```python\nimport matplotlib.pyplot as plt\nplt.plot([1, 4, 9])\nplt.show()\n```"


def test_a_plot_is_drawn_inline_in_tmux_and_saved(tmp_path: Path, env: dict[str, str]) -> None:
    """A person's view: tmux is a real terminal, where interp draws half-blocks; the PNG is saved as before."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    script = write_script(tmp_path, [PLOT, "Plotted."])
    name = f"interp-images-{tmp_path.name}"
    command = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "interp", "-y", "--model",
                                                 f"script:{script.name}", "--transcript", "j.jsonl"])
    keep = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "PATH", "HOME", "PYTHONPATH")
    tmux_env = [f"{k}={v}" for k, v in env.items() if k in keep]
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "100", "-y", "40", "-c", str(tmp_path),
                    "env", *tmux_env, "sh", "-c", command], check=True)
    try:
        wait_for(name, "auto-run on")
        subprocess.run(["tmux", "send-keys", "-t", name, "plot it", "Enter"], check=True)
        screen = wait_for(name, "Plotted.")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
    outputs = records(tmp_path / "j.jsonl", "execution")[0]["outputs"]
    saved = tmp_path / next(o["files"]["image/png"] for o in outputs if "files" in o)  # the journal's path, relative
    assert saved.parent == tmp_path / "j" and saved.read_bytes().startswith(b"\x89PNG")
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if "saved to" in line)
    figure = [line for line in lines[start + 1:] if "▀" in line]
    assert 12 <= len(figure) <= 24, screen  # at most 24 rows, and not squashed into a few
    assert all(len(line.rstrip()) <= 100 for line in figure)
    assert lines.index(figure[-1]) < lines.index(next(line for line in lines if "Plotted." in line))


def wait_for(session: str, text: str) -> str:
    for _ in range(300):
        shown = subprocess.run(["tmux", "capture-pane", "-t", session, "-p"], capture_output=True, text=True).stdout
        if text in shown:
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared:\n{shown}")


@pytest.mark.parametrize(("args", "drawn"), [([], True), (["--plain"], False), (["--inline-images", "off"], False)])
def test_in_kitty_a_plot_is_drawn_unless_plain_or_off(tmp_path: Path, env: dict[str, str], args: list[str],
                                                      drawn: bool) -> None:
    import pexpect

    script = write_script(tmp_path, [PLOT, "Plotted."])
    child = pexpect.spawn(sys.executable, ["-m", "interp", "-y", *args, "--model", f"script:{script}",
                                           "--transcript", str(tmp_path / "j.jsonl"), "-c", "plot it"],
                          env={**env, "TERM": "xterm-kitty"}, cwd=str(tmp_path), encoding="utf-8", timeout=60,
                          dimensions=(40, 100))
    child.expect(pexpect.EOF)
    child.close()
    assert "image/png saved to" in child.before and "Plotted." in child.before
    assert ("\x1b_Ga=T,f=100," in child.before) == drawn
    if "--plain" in args:
        assert "\x1b" not in child.before
    assert (tmp_path / "j" / "output-1.png").read_bytes().startswith(b"\x89PNG")
