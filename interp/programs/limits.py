"""What a program may ask of interp before and while it runs: a hostile or broken program gets one line naming the
limit, never a hang or all of the machine's memory. Expressions have their own limits (bounded.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interp.common.regular_files import read_regular

MAX_PROGRAM_BYTES = 1 << 20  # a program file, and each file it includes
MAX_READ_BYTES = 4 << 20  # a file that a PDL read: block reads
MAX_NODES = 100_000  # YAML nodes in a program with its includes, an alias counted as all that it stands for
MAX_DEPTH = 100  # lists and mappings inside each other: in a program, and in the data its parsers read
MAX_STEPS = 20_000  # steps that a program compiles to
MAX_INCLUDES = 200  # include blocks in a program, in all its files
MAX_INCLUDE_DEPTH = 16  # files that include each other in a chain


def read_text(path: Path | str, most: int) -> str:
    """A regular file's UTF-8 text, at most `most` bytes: OSError (NotRegularFile and TooLarge among them) or
    UnicodeDecodeError otherwise. A FIFO or a device is refused without a read that could hang or never end."""
    return read_regular(path, most).decode("utf-8")


def deeper_than(value: Any, most: int = MAX_DEPTH) -> bool:
    """Whether lists and mappings nest more than `most` levels in the value (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, tuple, dict)):
            if depth > most:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False
