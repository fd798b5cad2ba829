"""The checks of the eval's tasks: each passes only when the answer is stated as the answer.

A check sees `Evidence`: the output of the one execution that answers (the last successful execution of the task's
last turn that printed something; see eval_judge.py), the task's folder, and what the user asked. Numbers are read
as whole tokens: the parts of a date, a time, a version or a file name are not numbers, and a number quoted from
the request is not an answer. So a `cat` of the input, an `ls -l` timestamp or a printed range does not pass for
the count or sum that was asked for.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import re
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

# A number standing alone: not part of a word (int64, 20th), a time (12:04), a date (2024-01-03), a version
# (1.4.2) or a path. Thousands separators are removed first, so $1,200 reads as 1200.
_NUMBER = re.compile(r"(?<![\w.:/\-])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w:/]|[.\-]\d)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
RUN_TIMEOUT_S = 20  # for a check that runs the fixed script


@dataclass(frozen=True)
class Evidence:
    output: str  # what the answering execution printed
    folder: Path  # the task's folder, as the system left it
    asked: str = ""  # the user's requests, joined


Check = Callable[[Evidence], bool]


def numbers(text: str) -> list[float]:
    """Every number standing alone in the text."""
    return [float(n) for n in _NUMBER.findall(_THOUSANDS.sub("", text))]


def close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol


def _stated(text: str, asked: str, keep: tuple[float, ...] = ()) -> list[float]:
    """The numbers of the text that are not quoted from the request (an expected value always counts)."""
    quoted = set(numbers(asked)) - set(keep)
    return [n for n in numbers(text) if n not in quoted]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def answer_number(value: float, tol: float = 1e-9) -> Check:
    """The last line that holds a number states the value and no other number (besides those of the request; all of
    them, when the request itself names the value: an echo of the request is no answer)."""

    def check(ev: Evidence) -> bool:
        holding = [line for line in _lines(ev.output) if numbers(line)]
        if not holding:
            return False
        quoted = any(close(n, value, tol) for n in numbers(ev.asked))
        stated = numbers(holding[-1]) if quoted else _stated(holding[-1], ev.asked, (value,))
        return bool(stated) and all(close(n, value, tol) for n in stated)

    return check


def answer_numbers(*values: float, tol: float = 1e-9) -> Check:
    """The output states exactly these numbers (in any order, repeats allowed), besides those of the request."""

    def check(ev: Evidence) -> bool:
        stated = _stated(ev.output, ev.asked, values)
        return all(any(close(n, v, tol) for n in stated) for v in values) and all(
            any(close(n, v, tol) for v in values) for n in stated)

    return check


def _near(line: str, key: str) -> float | None:
    """The number nearest a key's last mention on a line: after it ('North: 429'), else before it ('3 jpg')."""
    mentions = list(re.finditer(rf"(?<![\w-]){re.escape(key)}(?![\w-])", line, re.I))
    if not mentions:
        return None
    after, before = numbers(line[mentions[-1].end():]), numbers(line[:mentions[-1].start()])
    return after[0] if after else before[-1] if before else None


def answer_for(mapping: Mapping[str, float], tol: float = 1e-9) -> Check:
    """Each key's last mention in the output comes with its value, on its line: 'North: 429', "{'North': 429.0",
    'North    429', '      3 jpg' (uniq -c)."""

    def check(ev: Evidence) -> bool:
        lines = _lines(ev.output)
        for key, value in mapping.items():
            found = [n for line in lines if (n := _near(line, key)) is not None]
            if not found or not close(found[-1], value, tol):
                return False
        return True

    return check


def answer_text(needle: str, case: bool = False, without: tuple[str, ...] = ()) -> Check:
    """The last non-empty line of the output contains the text, and none of the texts `without` (the other
    candidates: a line listing them all is no answer)."""

    def check(ev: Evidence) -> bool:
        lines = _lines(ev.output)
        if not lines:
            return False
        last = lines[-1] if case else lines[-1].lower()
        return (needle if case else needle.lower()) in last and not any(w.lower() in last.lower() for w in without)

    return check


def answer_letter(letter: str) -> Check:
    """The letters standing alone on the last non-empty line are this one ('e', "[('e', 3)]")."""

    def check(ev: Evidence) -> bool:
        lines = _lines(ev.output)
        return bool(lines) and {w.lower() for w in re.findall(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])",
                                                              lines[-1])} == {letter}

    return check


def prints(*needles: str, case: bool = False) -> Check:
    def check(ev: Evidence) -> bool:
        text = ev.output if case else ev.output.lower()
        return all((n if case else n.lower()) in text for n in needles)

    return check


def prints_none_of(*needles: str) -> Check:
    return lambda ev: not any(n.lower() in ev.output.lower() for n in needles)


def prints_in_order(*needles: str) -> Check:
    """Each text appears, and the first appearances come in this order."""

    def check(ev: Evidence) -> bool:
        positions = [ev.output.lower().find(n.lower()) for n in needles]
        return -1 not in positions and positions == sorted(positions)

    return check


def prints_folder(ev: Evidence) -> bool:
    return str(ev.folder) in ev.output or str(ev.folder.resolve()) in ev.output


def prints_today(ev: Evidence) -> bool:
    """Today's date: ISO, or the year, the month's name and the day (as `date` prints it)."""
    today = datetime.date.today()
    if today.isoformat() in ev.output:
        return True
    month = today.strftime("%b").lower()
    return (str(today.year) in ev.output and month in ev.output.lower()
            and float(today.day) in numbers(ev.output))


def all_of(*checks: Check) -> Check:
    return lambda ev: all(c(ev) for c in checks)


def any_of(*checks: Check) -> Check:
    return lambda ev: any(c(ev) for c in checks)


# --- files --------------------------------------------------------------------------------------------------------


def read_text(folder: Path, name: str) -> str | None:
    path = folder / name
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None


def file_contains(name: str, *needles: str) -> Check:
    def check(ev: Evidence) -> bool:
        text = read_text(ev.folder, name)
        return text is not None and all(n.lower() in text.lower() for n in needles)

    return check


def file_lacks(name: str, *needles: str) -> Check:
    """The file exists and holds none of these texts."""

    def check(ev: Evidence) -> bool:
        text = read_text(ev.folder, name)
        return text is not None and not any(n in text for n in needles)

    return check


def file_lines(name: str, expected: list[str]) -> Check:
    def check(ev: Evidence) -> bool:
        text = read_text(ev.folder, name)
        return text is not None and [line.strip() for line in text.strip().splitlines()] == expected

    return check


def json_file(name: str, test: Callable[[object], bool]) -> Check:
    def check(ev: Evidence) -> bool:
        text = read_text(ev.folder, name)
        try:
            return text is not None and test(json.loads(text))
        except (json.JSONDecodeError, KeyError, TypeError, IndexError, AttributeError):
            return False

    return check


def csv_rows(folder: Path, name: str) -> list[dict[str, str]] | None:
    """The rows of a CSV file, keys and values stripped, keys lower-cased; None when there is no such file."""
    text = read_text(folder, name)
    if text is None:
        return None
    try:
        reader = csv.DictReader(io.StringIO(text))
        return [{k.strip().lower(): (v or "").strip() for k, v in row.items() if k} for row in reader]
    except csv.Error:
        return None


def csv_file(name: str, test: Callable[[list[dict[str, str]]], bool]) -> Check:
    def check(ev: Evidence) -> bool:
        rows = csv_rows(ev.folder, name)
        try:
            return rows is not None and test(rows)
        except (KeyError, ValueError):
            return False

    return check


def _python(folder: Path, argv: list[str]) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run([sys.executable, *argv], cwd=folder, capture_output=True, text=True,
                              timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None


def script_prints(name: str, expect: Check) -> Check:
    """Running the script in the folder now (a fresh Python) succeeds, and what it prints passes `expect`: the file
    was fixed, not just the kernel's copy of its code."""

    def check(ev: Evidence) -> bool:
        if not (ev.folder / name).is_file():
            return False
        run = _python(ev.folder, [name])
        return run is not None and run.returncode == 0 and expect(Evidence(run.stdout, ev.folder, ev.asked))

    return check


def python_passes(code: str) -> Check:
    """This code, run by a fresh Python in the folder, exits without an error (its asserts hold)."""

    def check(ev: Evidence) -> bool:
        run = _python(ev.folder, ["-c", code])
        return run is not None and run.returncode == 0

    return check


def is_png(data: bytes) -> bool:
    """A whole PNG: the signature, an IHDR chunk with a non-empty size first, every chunk's CRC right, IEND last."""
    if not data.startswith(PNG_MAGIC):
        return False
    pos, kinds = len(PNG_MAGIC), []
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) < length or data[pos + 8 + length:pos + 12 + length] != struct.pack(
                ">I", zlib.crc32(kind + body) & 0xFFFFFFFF):
            return False
        if not kinds and (kind != b"IHDR" or length != 13 or 0 in struct.unpack(">II", body[:8])):
            return False
        kinds.append(kind)
        pos += 12 + length
        if kind == b"IEND":
            return pos == len(data)
    return False


def tiny_png() -> bytes:
    """A valid 1x1 grey PNG, for the checks' tests."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (PNG_MAGIC + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00\x80")) + chunk(b"IEND", b""))


def png(name: str) -> Check:
    def check(ev: Evidence) -> bool:
        path = ev.folder / name
        try:
            return path.is_file() and is_png(path.read_bytes())
        except OSError:
            return False

    return check


def is_dir(name: str) -> Check:
    return lambda ev: (ev.folder / name).is_dir()


# --- the final reply ------------------------------------------------------------------------------------------------


# Numbers a reply may write as words: "notes.md has two lines ..." after a run that printed 142 states a number.
# "one" is left out: it is as often a pronoun ("one of the lines") as a count.
_COUNT_WORDS = {word: float(n) for n, word in enumerate(
    ["zero", "", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
     "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]) if word}
_WORD = re.compile(r"(?<![\w-])[a-z]+(?![\w-])")


def _worded(text: str) -> list[float]:
    return [_COUNT_WORDS[word] for word in _WORD.findall(text.lower()) if word in _COUNT_WORDS]


def contradicts(reply: str, value: float, tol: float, asked: str) -> bool:
    """Whether the reply's prose (code blocks left out) states numbers, in digits or as words (two to twenty, and
    zero), besides those of the request, and none of them is the value, allowing for the reply's own rounding ('about
    104.8' for 104.8333)."""
    text = _FENCED.sub("", reply)
    quoted = set(numbers(asked)) | set(_worded(asked))
    stated = _stated(text, asked, (value,)) + [n for n in _worded(text) if n == value or n not in quoted]
    prose = _THOUSANDS.sub("", text)
    decimals = {float(m[0]): len(m[1]) for m in re.findall(r"(-?\d+(?:\.(\d+))?)", prose)}

    def agrees(n: float) -> bool:
        return close(n, value, tol) or close(n, round(value, decimals.get(n, 0)), 1e-9)

    return bool(stated) and not any(agrees(n) for n in stated)
