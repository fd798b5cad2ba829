"""Finds the code blocks in a model's reply."""

from __future__ import annotations

import re
from dataclasses import dataclass

_ALIASES = {
    "": "python",
    "py": "python",
    "python3": "python",
    "ipython": "python",
    "sh": "shell",
    "bash": "shell",
    "shell": "shell",
    "console": "shell",
    "zsh": "shell",
}

# An opening fence: three or more backticks, an optional info string, then the body up to a closing fence of the
# same length or the end of the text (a small model often runs out of tokens before it closes the block).
_FENCE = re.compile(r"^(?P<fence>`{3,})[ \t]*(?P<info>[^\n`]*)\n(?P<body>.*?)(?:^(?P=fence)[ \t]*$|\Z)", re.S | re.M)


@dataclass(frozen=True)
class CodeBlock:
    language: str
    code: str


def normalize_language(info: str) -> str:
    """Maps a fence's info string ('py', 'bash', 'Python 3') to the name interp runs it under."""
    word = info.strip().split(" ")[0].strip("{}.").lower() if info.strip() else ""
    return _ALIASES.get(word, word)


def code_blocks(reply: str) -> list[CodeBlock]:
    """Returns the fenced code blocks of a reply in order, skipping empty ones and output-like blocks."""
    blocks = []
    for match in _FENCE.finditer(reply):
        language = normalize_language(match["info"])
        code = match["body"].strip("\n")
        if not code.strip() or language in {"text", "output", "plaintext", "txt"}:
            continue
        blocks.append(CodeBlock(language, code))
    return blocks
