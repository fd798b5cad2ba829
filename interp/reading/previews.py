"""A bounded preview of one file a request names, for the model: a text file's head and tail, a table's header,
columns and first rows, a JSON file's shape, a folder's names, a binary file's type and size. Bounded whatever the
file (its size, its lines, its columns, a file that grows while read): files are opened as regular files only (a FIFO
or a device is refused unread), and at most a fixed number of bytes is read. Text that is not UTF-8 (a spreadsheet's
Windows export) is shown as text, with the encoding its code must open it in, not as a binary file."""

from __future__ import annotations

import csv
import itertools
import json
import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from interp.common.encodings import SNIFF_BYTES, as_text, encoding_of
from interp.common.regular_files import open_regular
from interp.common.textclean import for_model

TEXT_CHARS = 3000  # of a text file shown, head and tail
FOLDER_NAMES = 30  # names of a folder's entries shown
FOLDER_ENTRIES = 10_000  # a folder's entries read, at most
TABLE_ROWS = 3  # a table's first rows shown, for its layout: each costs the model about 50 tokens to read
LINE_CHARS = 300  # of one row of a table shown
TYPE_ROWS = 200  # rows a column's type is judged from
JSON_BYTES = 2 * 2**20  # a larger JSON file is previewed as text
JSON_CHARS = 1200
COUNT_BYTES = 256 * 2**20  # read to count a file's lines; a larger file's count is estimated from its size
SHOWN_COLUMNS = 40  # a table's column names shown in its header and columns lines; the rest are counted


@dataclass
class Attachment:
    path: Path
    what: str  # "CSV, 3 columns, 100 rows", "text, 12 lines", "image/png, 2.1 MB"
    preview: str
    kind: str = "text"  # text, python, csv, json or binary: picks the hint after it (prompts/attach_hints.json)
    named: str = ""  # for a file named without @, the name as typed: what the model is told (its code runs there)
    delimiter: str = ""  # a CSV file's field separator, as the sniffer found it
    columns: int = 0  # a table's columns, as its header names them
    encoding: str = ""  # the text's encoding when it is not UTF-8 (code must open it with this one)


def describe(path: Path, chars: int = TEXT_CHARS, named: str = "") -> Attachment:
    """A preview of one file, bounded whatever its size; a text file shows at most `chars` of it. A folder's is
    what it holds at its top level (_folder). The file is read as it is when the preview begins: what it gains
    while it is read is not followed."""
    if path.is_dir():
        made = _folder(path)
        made.named = named
        return made
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(SNIFF_BYTES)
        encoding = encoding_of(f, head, size)
        text = None if encoding is None else as_text(head, encoding)
        suffix = path.suffix.lower()
        if text is None or encoding is None:
            mime = mimetypes.guess_type(path.name)[0] or "binary data"
            made = Attachment(path, f"{mime}, {_size(size)}", "(binary: not shown)", "binary")
        elif suffix in (".csv", ".tsv"):
            made = _table(path, f, text, size, encoding)
        elif suffix == ".json" and size <= JSON_BYTES and encoding == "utf-8":
            f.seek(0)
            try:
                made = _json(path, json.loads(f.read(JSON_BYTES).decode("utf-8")), size)
            except (ValueError, UnicodeDecodeError, RecursionError):  # not valid JSON after all: shown as text
                made = _text(path, f, size, chars)
        else:
            made = _text(path, f, size, chars, "python" if suffix == ".py" else "text", encoding)
    made.named = named
    if encoding not in (None, "utf-8"):
        made.encoding = encoding
        made.what += f", encoded {encoding}"
    return made


def count_lines(f: BinaryIO, size: int, end: bytes = b"\n") -> tuple[int, bool]:
    """The lines in a file's first `size` bytes, and whether that is the count or an estimate: at most COUNT_BYTES
    are read, and the rest is estimated from the size."""
    f.seek(0)
    lines = read = 0
    last = b""
    while read < min(size, COUNT_BYTES):
        chunk = f.read(min(1 << 20, min(size, COUNT_BYTES) - read))
        if not chunk:
            break
        lines, read, last = lines + chunk.count(end), read + len(chunk), chunk
    if read < size and read >= COUNT_BYTES:
        return round(lines * size / read), False
    return lines + (bool(last) and not last.endswith(end)), True


def _folder(path: Path) -> Attachment:
    """The names a folder holds at its top level, folders marked with a slash, sorted, at most FOLDER_NAMES of them
    (of the first FOLDER_ENTRIES read): a model that has not seen a folder's names guesses them (asked to count files
    by extension, it greps for extensions the folder does not hold)."""
    files = folders = 0
    names: list[str] = []
    with os.scandir(path) as entries:
        for entry in itertools.islice(entries, FOLDER_ENTRIES):
            folder = entry.is_dir()
            files, folders = files + (not folder), folders + folder
            names.append(entry.name + "/" if folder else entry.name)
    names.sort()
    shown = ", ".join(names[:FOLDER_NAMES]) + (f", ... {len(names) - FOLDER_NAMES} more" if len(names) >
                                                  FOLDER_NAMES else "")
    count = f"{files} file{'s' * (files != 1)}" + (f", {folders} folder{'s' * (folders != 1)}" if folders else "")
    whole = "at its top level" if len(names) < FOLDER_ENTRIES else f"among the first {FOLDER_ENTRIES} entries"
    return Attachment(path, f"{count} {whole}", shown or "(empty)", "folder")


def _size(size: int) -> str:
    amount = float(size)
    for unit in ("KB", "MB", "GB"):
        amount /= 1024
        if amount < 1024 or unit == "GB":
            return f"{size} bytes" if size < 1024 else f"{amount:.1f} {unit}"
    return f"{size} bytes"


def _text(path: Path, f: BinaryIO, size: int, chars: int = TEXT_CHARS, kind: str = "text",
          encoding: str = "utf-8") -> Attachment:
    """A text file's first and last `chars` // 2 bytes (the whole of a small one), and its lines counted."""
    lines, exact = count_lines(f, size)
    f.seek(0)
    if size <= chars:
        shown, whole = f.read(size).decode(encoding, "replace"), "whole"
    else:
        half = chars // 2
        head = f.read(half)
        f.seek(max(size - (chars - half), half))
        tail = f.read(chars - half)
        shown = (f"{head.decode(encoding, 'replace')}\n[... {size - len(head) - len(tail)} characters cut ...]\n"
                 f"{tail.decode(encoding, 'replace')}")
        whole = "first and last lines"
    counted = f"{lines} lines" if exact else f"about {lines} lines"
    return Attachment(path, f"text, {counted}, {_size(size)}; {whole} below", for_model(shown), kind)


def _table(path: Path, f: BinaryIO, head: str, size: int, encoding: str = "utf-8") -> Attachment:
    """A table's preview: header, columns, first rows, as written. A column's name that begins or ends with spaces is
    quoted, as a reader gives it. Lines may end in \n, \r\n or a lone \r (old Mac files); a file the csv module
    cannot read is shown as text."""
    head_only = size > SNIFF_BYTES
    head = head.removeprefix("\ufeff")  # a byte-order mark is no part of the first column's name
    newline = "\n" if "\n" in head or "\r" not in head else "\r"
    sample = head.rsplit(newline, 1)[0] if head_only else head  # no partial last row
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if path.suffix.lower() == ".tsv" else csv.excel
    try:
        rows = list(csv.reader(sample.splitlines(), dialect))
        # The names as pandas and csv.DictReader give them: spaces after a delimiter kept (the sniffer may skip them).
        names = next(csv.reader(sample.splitlines()[:1], dialect, skipinitialspace=False), [])
    except csv.Error:
        return _text(path, f, size, encoding=encoding)
    if not rows:
        return _text(path, f, size, encoding=encoding)
    header, body = rows[0], rows[1:]
    header = names if len(names) == len(header) else header
    cut = head_only and newline not in head  # a header longer than what was read: its last name is cut short
    header = header[:-1] if cut and len(header) > 1 else header
    lines, exact = count_lines(f, size, newline.encode())
    total = max(lines - 1, len(body))  # rows below the header
    head_only = head_only or not exact
    more = f", ... {len(header) - SHOWN_COLUMNS} more" if len(header) > SHOWN_COLUMNS else ""
    shown_columns = "columns: " + ", ".join(
        f"{name if name == name.strip() else repr(name)} "
        f"({_column_type([r[i] for r in body[:TYPE_ROWS] if i < len(r)])})"
        for i, name in enumerate(header[:SHOWN_COLUMNS])) + more
    # As written, quotes and blank lines kept: rejoined fields showed "$1,200.00" as two columns.
    shown = "\n".join(line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " ..."
                      for line in sample.splitlines()[1:TABLE_ROWS + 1])
    separator = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}.get(dialect.delimiter, "other")
    preview = (f"header: {dialect.delimiter.join(header[:SHOWN_COLUMNS])}{more}\n{shown_columns}\n"
               f"the first lines after the header, as written:\n{shown}")
    return Attachment(path, f"CSV, {separator}-separated, {'more than ' * cut}{len(header)} columns, "
                      f"{'about ' * head_only}{total} rows, "
                      f"{_size(size)}", for_model(preview), "csv", delimiter=dialect.delimiter, columns=len(header))


def _column_type(values: list[str]) -> str:
    filled = [v.strip() for v in values if v.strip()]
    for kind, convert in (("int", int), ("float", float)):
        try:
            for value in filled:
                convert(value)
        except ValueError:
            continue
        return kind if filled else "empty"
    return "text"


def _json(path: Path, data: object, size: int) -> Attachment:
    sample: object = data
    if isinstance(data, list):
        first = data[0] if data else None
        shape = f"a list of {len(data)} items" + (f", each like {_shape(first)}" if data else "")
        sample = data[:3]
    elif isinstance(data, dict):
        shape = f"an object: {_shape(data)}"
    else:
        shape = f"a {type(data).__name__}"
    text = json.dumps(sample, ensure_ascii=False)
    if len(text) > JSON_CHARS:
        text = text[:JSON_CHARS] + " ..."
    return Attachment(path, f"JSON, {_size(size)}", f"{shape}\nstart: {text}", "json")


def _shape(value: object) -> str:
    if isinstance(value, dict):
        keys = list(value.items())[:20]
        more = f", ... {len(value) - 20} more keys" if len(value) > 20 else ""
        return "{" + ", ".join(f"{k}: {type(v).__name__}" for k, v in keys) + more + "}"
    return type(value).__name__
