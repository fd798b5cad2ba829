"""Finds the code in a model's reply, leniently: small models forget fences, tags and languages."""

from __future__ import annotations

import ast
import builtins
import keyword
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass

from interp.common.screentext import normal_code
from interp.common.textclean import loops_at_end

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
_NOT_CODE = {"text", "output", "plaintext", "txt", "json", "csv", "markdown", "md"}

# An opening fence: three or more backticks, an optional info string, then the body up to a closing fence of the
# same length or the end of the text (a small model often runs out of tokens before it closes the block).
_FENCE = re.compile(r"^(?P<fence>`{3,})[ \t]*(?P<info>[^\n`]*)\n(?P<body>.*?)(?:^(?P=fence)[ \t]*$|\Z)", re.S | re.M)
_TAG = re.compile(r"<(?P<tag>code|python|bash|sh)(?:\s[^>]*)?>\n?(?P<body>.*?)</(?P=tag)>", re.S | re.I)
MAX_UNFENCED_LINES = 60  # a longer reply without fences is prose; searching it for code would cost O(lines^2)
_PROMPT = re.compile(r"^(>>> |\.\.\. |>>>$|\.\.\.$)")
# A command's first word, then the end of the line or a space and no assignment: `users = [1,` is broken Python, though
# `users` is a command.
_COMMAND = re.compile(r"(?P<word>[\w.+-]+)(?:[ \t]*$|[ \t]+(?![-+*/%&|^]?=(?!=)))", re.M)
# Commands the IPython kernel runs itself when a cell begins with them (its POSIX aliases and automagics): a ```python
# block that begins so works as it is.
_IPYTHON_COMMANDS = {"cat", "cd", "clear", "conda", "cp", "env", "history", "less", "ll", "ls", "man", "mkdir", "more",
                     "mv", "pip", "pwd", "rm", "rmdir", "time"}


@dataclass(frozen=True)
class CodeBlock:
    language: str
    code: str
    # True when the code was not in a fenced block: the user is shown what was taken as code.
    inferred: bool = False
    # True for asserts interp made from the request's examples (examples.py): failures report both sides.
    checks: bool = False

    def __post_init__(self) -> None:
        # Shown and run with the same lines: a lone CR is a line break to Python, and the screen shows it as one.
        object.__setattr__(self, "code", normal_code(self.code))


def normalize_language(info: str) -> str:
    """Maps a fence's info string ('py', 'bash', 'Python 3') to the name interp runs it under."""
    word = info.strip().split(" ")[0].strip("{}.").lower() if info.strip() else ""
    return _ALIASES.get(word, word)


def _strip_prompts(code: str) -> str:
    """Code pasted from an interactive session (>>> and ... prompts) without its prompts and echoed output."""
    lines = code.splitlines()
    if not any(line.startswith(">>>") for line in lines):
        return code
    return "\n".join(_PROMPT.sub("", line) for line in lines if _PROMPT.match(line))


def _does_something(code: str, strict: bool) -> bool:
    """Python that parses and does more than name a value ('5050', 'Hello'). Strict, for prose: a statement or a
    call, since a bare expression can be a sentence that happens to parse ('It is 43.')."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    if strict:
        return any(not isinstance(node, ast.Expr) or isinstance(node.value, ast.Call) for node in tree.body)
    return any(not (isinstance(node, ast.Expr) and isinstance(node.value, (ast.Constant, ast.Name)))
               for node in tree.body)


def shell_in_python(code: str) -> bool:
    """A ```python block that holds a shell command: it does not parse as Python, and its first word is a command on
    PATH that is neither Python (a keyword, a builtin) nor one the IPython kernel runs itself (`ls`, `pip`). Told to
    reply with a python block, a small model may still write a shell command in it (`find inbox/ -type f | wc -l`),
    which meets a SyntaxError; told to send corrected python, it sends the command back."""
    try:
        ast.parse(code)
        return False
    except (SyntaxError, ValueError):
        pass
    command = _COMMAND.match(code.lstrip())
    if command is None:
        return False
    first = command["word"]
    return not keyword.iskeyword(first) and not hasattr(builtins, first) and first not in _IPYTHON_COMMANDS \
        and shutil.which(first) is not None


def _fenced_blocks(reply: str) -> Iterator[tuple[re.Match[str], CodeBlock]]:
    pos = 0
    while match := _FENCE.search(reply, pos):
        pos = match.end()
        language = normalize_language(match["info"])
        code = _strip_prompts(match["body"].strip("\n"))
        if not match["info"].strip() and not _does_something(code, strict=False):
            # An untagged block that is no code: the model quoting output, or a stray fence (a block's closing
            # fence left after prose). Go on from the line after this fence, so a real block after it is found.
            pos = reply.find("\n", match.start()) + 1 or len(reply)
            continue
        if code.strip() and language not in _NOT_CODE:
            yield match, CodeBlock(language, code)


def _fenced(reply: str) -> list[CodeBlock]:
    """The fenced blocks, each as it will run: a shell command in a ```python block as shell (shell_in_python)."""
    return [CodeBlock("shell", block.code, inferred=True) if block.language == "python" and shell_in_python(block.code)
            else block for _match, block in _fenced_blocks(reply)]


def fenced_texts(text: str) -> set[str]:
    """What each fenced block of `text` holds, stripped, whatever its language (```text too)."""
    return {match["body"].strip() for match in _FENCE.finditer(text)}


def prose(reply: str) -> str:
    """A reply without its fenced code blocks: the words around the code (a notebook's Markdown cell)."""
    pieces, pos = [], 0
    for match, _block in _fenced_blocks(reply):
        pieces.append(reply[pos:match.start()])
        pos = match.end()
    pieces.append(reply[pos:])
    return re.sub(r"\n{3,}", "\n\n", "".join(pieces)).strip()


def first_block_end(reply: str) -> int | None:
    """Where the first complete block of code in a reply being streamed ends (its closing fence, once the line
    after it has begun), or None. What a model writes after its code is not evidence: small models go on to invent
    the code's output ("Output: ..."), which must not be shown or kept as if the code had run."""
    if "```" not in reply:
        return None
    for match, _block in _fenced_blocks(reply):
        closed = match.end() < len(reply) and reply[match.end()] == "\n" and \
            reply[:match.end()].rstrip(" \t").endswith(match["fence"]) and match.end() > match.start("body")
        if closed:
            return match.end()
        break
    return None


def _tagged(reply: str) -> list[CodeBlock]:
    blocks = []
    for match in _TAG.finditer(reply):
        tag = match["tag"].lower()
        language = "python" if tag in ("code", "python") else "shell"
        code = _strip_prompts(match["body"].strip("\n"))
        if code.strip():
            blocks.append(CodeBlock(language, code, inferred=True))
    return blocks


def _unfenced(reply: str) -> list[CodeBlock]:
    """The longest run of the reply's lines that is Python which does something, prose before and after left out."""
    lines = _strip_prompts(reply.strip()).splitlines()
    if len(lines) > MAX_UNFENCED_LINES:
        return []
    for start in range(len(lines)):
        if not lines[start].strip() or lines[start][0].isspace():
            continue
        for end in range(len(lines), start, -1):
            code = "\n".join(lines[start:end]).strip()
            if _does_something(code, strict=True):
                return [CodeBlock("python", code, inferred=True)]
    return []


def code_blocks(reply: str) -> list[CodeBlock]:
    """The code blocks of a reply in order: fenced blocks; else <code>-style tags; else Python found in prose."""
    if "```" in reply:
        return _fenced(reply)
    return _tagged(reply) or _unfenced(reply)


def whole(text: str) -> str | None:
    """Why a reply being written is whole, as stream_reply would stop it: "code" once its first code block has
    ended, "loop" once it repeats itself; else None (Ahead.whole, for replies decoded unseen)."""
    if first_block_end(text) is not None:
        return "code"
    return "loop" if loops_at_end(text) else None
