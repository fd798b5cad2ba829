"""The encoding a text file is read in, told from its bytes: UTF-8 when it is UTF-8 throughout its first
ENCODING_BYTES, else the first of FALLBACK_ENCODINGS that reads its head as text. A file's preview says it, and so does
the help after code that read a file as UTF-8 and failed."""

from __future__ import annotations

import codecs
import os
import unicodedata
from typing import BinaryIO

from interp.common.regular_files import open_regular

SNIFF_BYTES = 64 * 1024  # a file's head: read to tell text from binary
ENCODING_BYTES = 16 * 2**20  # read to tell whether a text file is UTF-8 throughout, not only in its head
# Text that is not UTF-8 is read in the encoding of most such files, Windows' Western one (a spreadsheet's export);
# Latin-1 where that has no character for a byte: it has one for every byte, so code reading the file never fails.
FALLBACK_ENCODINGS = ("cp1252", "latin-1")
CONTROL_SHARE = 0.01  # at most this share of control characters (tabs and line ends aside) in text read so


def encoding_of(f: BinaryIO, head: bytes, size: int) -> str | None:
    """The encoding of the text in `f`, whose first bytes are `head`: UTF-8 when its first ENCODING_BYTES are UTF-8
    throughout, else the first of FALLBACK_ENCODINGS its head reads in as text; None for a file that is no text (a NUL
    byte, or control characters that no text holds). Read from the start, bounded; `f` is left after `head`."""
    if b"\0" in head:
        return None
    decoder = codecs.getincrementaldecoder("utf-8")()
    f.seek(0)
    try:
        for read in range(0, min(size, ENCODING_BYTES), 1 << 20):
            decoder.decode(f.read(min(1 << 20, ENCODING_BYTES - read)))
        f.seek(len(head))
        return "utf-8"
    except UnicodeDecodeError:
        f.seek(len(head))
    for encoding in FALLBACK_ENCODINGS:
        text = as_text(head, encoding)
        if text is not None:
            controls = sum(1 for c in text if unicodedata.category(c) == "Cc" and c not in "\t\n\r\f")
            return encoding if controls <= CONTROL_SHARE * max(len(text), 1) else None
    return None


def file_encoding(path: str | os.PathLike[str]) -> str | None:
    """The encoding of a regular file's text (encoding_of); None for a file that is no text. OSError (NotRegularFile
    for a FIFO, a device or a folder) as open_regular raises it."""
    with open_regular(path) as f:
        return encoding_of(f, f.read(SNIFF_BYTES), os.fstat(f.fileno()).st_size)


def as_text(data: bytes, encoding: str = "utf-8") -> str | None:
    """The bytes as text in `encoding`; None where they hold a NUL or do not decode. A UTF-8 character cut in two at
    the end (by a bounded read) is no fault of the file's: the text before it is kept."""
    if b"\0" in data:
        return None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        return data[:exc.start].decode(encoding) if encoding == "utf-8" and exc.start >= len(data) - 3 else None
