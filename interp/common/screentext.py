"""Text made safe for a terminal: what reaches the screen shows what is there, and nothing on it is a command.

A terminal acts on control characters. ESC starts sequences that set the window's title, write the clipboard (OSC
52), clear the screen or move the cursor to draw over what was shown ("Run this code?" drawn over the line that
deletes your files); a terminal that meets a C0 control inside such a sequence acts on the control and carries on
with the sequence, so removing complete sequences is not enough. A carriage return alone is a line break to Python,
but on a terminal it goes back to the start of the line, and text after it hides text before it. Bidirectional
overrides and zero-width characters (Unicode's format characters) make text read in another order or hide it
(Trojan Source, CVE-2021-42574).

So every string that came from a model, a kernel, a notebook or a file goes through `for_screen` before a view prints
it (`interp/ui/edge.py` does it for every event): no ESC and no C0 or C1 control but newline and tab, each shown as a
visible picture instead; a lone CR is a line break, as Python reads it; format characters shown as `<U+202E>`. Code
is run as `normal_code` makes it, so that the code shown and the code run have the same lines.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

from interp.common.textclean import strip_ansi

# Every C0 control but tab and newline (CR is made a newline first), DEL, and every C1 control.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Unicode's format characters (category Cf: bidirectional controls, zero-width characters, tags, ...) and the line
# and paragraph separators, which terminals draw in different ways or not at all. tests/common/test_screentext.py checks
# this list against unicodedata.
_FORMAT = re.compile("[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
                     "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
                     "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]")


def _picture(match: re.Match[str]) -> str:
    """A control character as something a terminal only draws: its Control Pictures sign (␛ for ESC), or its code
    point for the C1 controls, which have none."""
    code = ord(match[0])
    if code < 0x20:
        return chr(0x2400 + code)
    return "\u2421" if code == 0x7F else f"<U+{code:04X}>"


def normal_code(code: str) -> str:
    """Code with its line breaks as Python reads them: CRLF and a lone CR become newlines. Code is shown and run
    in this form, so that a CR cannot hide a line from the screen that Python would run."""
    return code.replace("\r\n", "\n").replace("\r", "\n")


def for_screen(text: str) -> str:
    """Text as a terminal may receive it: line breaks as in `normal_code`, every other control shown as a picture,
    format characters shown by their code points."""
    text = _CONTROL.sub(_picture, normal_code(text))
    return _FORMAT.sub(lambda match: f"<U+{ord(match[0]):04X}>", text)


def output_for_screen(text: str) -> str:
    """A run's output or error for the screen: the complete escape sequences that libraries print for colour
    removed first (they say nothing), then `for_screen`."""
    return for_screen(strip_ansi(text))


def hidden_characters(code: str) -> list[str]:
    """The format characters code holds, as `U+202E`, each once, in order: what a person should know of before
    running it."""
    return list(dict.fromkeys(f"U+{ord(char):04X}" for char in _FORMAT.findall(code)))


def complain(line: str, stream: TextIO | None = None) -> None:
    """One line from interp on stderr (`interp: ...`), safe for a terminal: it may quote a file, a kernelspec or an
    interpreter's own words."""
    print(f"interp: {for_screen(line)}", file=stream or sys.stderr, flush=True)


def report(text: str, stream: TextIO | None = None) -> None:
    """Lines of a report on stdout (--config, --info, --models, ...), safe for a terminal: they quote files, names
    found on disk and a model's metadata."""
    print(for_screen(text), file=stream or sys.stdout, flush=True)
