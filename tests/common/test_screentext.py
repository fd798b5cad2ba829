"""The screen shows what is true: no control reaches the terminal from a model, a kernel or a file (screentext.py,
ui/edge.py), through every view and every event, whatever the bytes."""

from __future__ import annotations

import dataclasses
import io
import re
import sys
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.console import Console

from interp.common import events
from interp.common.extract import CodeBlock, code_blocks
from interp.common.screentext import for_screen, hidden_characters, normal_code, output_for_screen
from interp.ui.plain import PlainView
from interp.ui.render import RichView

# What rich writes itself on a colour terminal: styles (SGR), and the live tail's cursor moves and line erasing.
_RICH_OWN = re.compile(r"\x1b\[[0-9;]*m|\x1b\[\?25[lh]|\x1b\[[0-9]*[ABCDGK]|\x1b\[2K|\r")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.mark.parametrize("text", [
    "A:\x1b\x00]2;TITLE-PWNED\x1b\x00\\",  # a C0 control inside OSC 2: terminals act on it and go on
    "B:\x1b\n]52;c;cm0gLXJmIH4=\x1b\n\\",  # OSC 52, the clipboard
    "\x1b[\n2J\x1b[\nHFAKE: nothing ran.\nRun this code? [y/n/e/a] ",
    "\x1bc\x1b7\x1b8\x9b2J\x9d0;x\x07",  # full reset, cursor save and restore, C1 CSI and OSC
])
def test_no_escape_or_control_survives(text: str) -> None:
    for clean in (for_screen, output_for_screen):
        shown = clean(text)
        assert "\x1b" not in shown and not _CONTROLS.search(shown.replace("\n", "").replace("\t", ""))


def test_controls_are_shown_not_dropped() -> None:
    assert for_screen("a\x1b[2Kb\x00c\x7f\x9b") == "a␛[2Kb␀c␡<U+009B>"
    assert output_for_screen("\x1b[0;31mNameError\x1b[0m: x") == "NameError: x"  # a library's colours say nothing
    assert for_screen("tab\tand\nnewline") == "tab\tand\nnewline"


def test_a_lone_carriage_return_is_a_line_break_on_screen_and_in_code() -> None:
    reply = "```python\ntotal = 45  # add up 0..9\rimport os; os.system('touch HIDDEN')\nprint(total)\n```"
    code = code_blocks(reply)[0].code
    assert code.splitlines() == ["total = 45  # add up 0..9", "import os; os.system('touch HIDDEN')", "print(total)"]
    assert for_screen(reply).count("\n") == reply.replace("\r", "\n").count("\n")
    assert normal_code("a\r\nb\rc\n") == "a\nb\nc\n" == CodeBlock("python", "a\r\nb\rc\n").code


def test_invisible_and_reordering_characters_are_named_and_shown() -> None:
    trojan = 'access = "user\u202e \u2066# admin\u2069 \u2066"  # zero\u200bwidth'
    assert hidden_characters(trojan) == ["U+202E", "U+2066", "U+2069", "U+200B"]
    assert for_screen(trojan) == 'access = "user<U+202E> <U+2066># admin<U+2069> <U+2066>"  # zero<U+200B>width'
    assert hidden_characters("print('plain text, accents é, emoji 🙂')") == []


def test_the_format_characters_are_exactly_unicodes() -> None:
    """Every character of category Cf (and the line and paragraph separators) is shown by its code point, and no
    other character is: checked against this Python's unicodedata."""
    wanted = {chr(c) for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp") and not 0xD800 <= c < 0xE000}
    text = "".join(sorted(wanted))
    assert set(hidden_characters(text)) == {f"U+{ord(c):04X}" for c in wanted}
    others = "".join(chr(c) for c in range(0x20, 0x3000) if chr(c) not in wanted and not 0x7F <= c < 0xA0)
    assert hidden_characters(others) == []


def _events(text: str) -> list[events.Event]:
    """One of each event a view shows, every string field holding `text`."""
    stats = events.ModelStats(stop_reason=text)
    return [
        events.TextDelta(text), events.ReplyDone(text, stats), events.CodeShown("python", text, text),
        events.Confirm("python", text), events.InstallOffer(text, text), events.ExecutionStart(text, text),
        events.OutputChunk("stdout", text), events.OutputChunk("stderr", text), events.OutputChunk("result", text),
        events.OutputFile(text, "image/svg+xml"), events.OutputFile(text, text), events.InputRequest(text),
        events.ExecutionDone("python", text, "error", text, text, 0.1), events.ExecutionDone("python", text, "ok",
                                                                                           text, None, 0.1),
        events.Notice(text, "warning"), events.RuleFired(text, text, text), events.StepStart(text, text, 1),
        events.ProgramText(text), events.ProgramEnd(text), events.TurnEnd("ok"), events.Thinking(),
    ]


def _show_all(text: str, color: bool) -> str:
    out = io.StringIO()
    rich = RichView(Console(file=out, force_terminal=color, color_system="truecolor" if color else None, width=60,
                            height=20), inline_images="off")
    rich.verbose = True
    plain_out, plain_err = io.StringIO(), io.StringIO()
    plain = PlainView(plain_out, plain_err)
    plain.verbose = True
    for event in _events(text):
        rich.show(event)
        plain.show(event)
    rich.say(text)
    plain.say(text)
    rich.interrupted()
    return out.getvalue() + plain_out.getvalue() + plain_err.getvalue()


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80)
       | st.binary(max_size=80).map(lambda b: b.decode("latin-1")))
@example("[click here](http://example.invalid/x)\n\n")  # rich draws a Markdown link as an OSC 8 hyperlink
@example("\x1b\x00]2;TITLE\x1b\x00\\\n")
def test_no_bytes_reach_the_terminal_as_commands(text: str) -> None:
    """Arbitrary text in every field of every event, through both views: without colours nothing but newline and
    tab is a control; with colours, every ESC is one of rich's own styles or cursor moves."""
    plain = _show_all(text, color=False)
    assert not _CONTROLS.search(plain.replace("\r", "")), repr(plain)
    colored = _RICH_OWN.sub("", _show_all(text, color=True))
    assert "\x1b" not in colored and not _CONTROLS.search(colored), repr(colored)


def test_a_link_shows_where_it_goes() -> None:
    shown = _show_all("[click here](http://example.invalid/x)\n\n", color=True)
    assert "\x1b]8" not in shown and "http://example.invalid/x" in shown


def test_every_event_with_text_is_screened() -> None:
    """A new event with a string field cannot bypass the edge: the views screen every dataclass field."""
    shown = {type(event).__name__ for event in _events("x")}
    declared = {name for name, value in vars(events).items()
                if dataclasses.is_dataclass(value) and name not in ("DisplayData", "ModelStats")}
    assert declared <= shown, declared - shown
