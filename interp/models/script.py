"""A model whose replies are fixed in advance, for deterministic tests and demos."""

from __future__ import annotations

import json
import re
from collections.abc import Generator
from pathlib import Path

from interp.common.events import ModelStats
from interp.common.regular_files import read_regular
from interp.models.base import GenParams, Message, ModelError, StopReply

EXHAUSTED_REPLY = "Done."
MAX_SCRIPT_BYTES = 64 << 20


class ScriptModel:
    """Returns the replies of a JSON list in order, streamed word by word; then answers "Done." with no code.
    `record`: keep each call's messages and parameters (`calls`, `params`) for a test to read; a script run from the
    command line (`--model script:FILE`) keeps none, or a long session would hold every call's whole history."""

    def __init__(self, replies: list[str], name: str = "script", n_ctx: int = 0, record: bool = True) -> None:
        self.name = name
        self.n_ctx = n_ctx or 1 << 20
        self._replies = list(replies)
        self.record = record
        self.calls: list[list[Message]] = []
        self.params: list[GenParams] = []

    @classmethod
    def from_file(cls, path: str | Path, n_ctx: int = 0) -> ScriptModel:
        try:
            replies = json.loads(read_regular(path, MAX_SCRIPT_BYTES).decode("utf-8"))
        except OSError as exc:  # a FIFO or a device among them, refused unread
            raise ModelError(f"{path}: cannot read the script: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise ModelError(f"{path}: not a script (not UTF-8 text)") from None
        except json.JSONDecodeError as exc:
            raise ModelError(f"{path}: not valid JSON (line {exc.lineno}): {exc.msg}") from None
        except RecursionError:
            raise ModelError(f"{path}: a script must be a JSON list of reply strings (this one nests too deeply)") \
                from None
        if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
            raise ModelError(f"{path}: a script must be a JSON list of reply strings")
        return cls(replies, f"script:{path}", n_ctx, record=False)

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        if self.record:
            self.calls.append(list(messages))
            self.params.append(params)
        reply = self._replies.pop(0) if self._replies else EXHAUSTED_REPLY
        pieces = re.findall(r"\S+\s*|\s+", reply)
        sent = 0
        for piece in pieces:
            try:
                yield piece
            except StopReply:
                break
            sent += 1
        return ModelStats(completion_tokens=sent, stop_reason="stop")

    def choose(self, messages: list[Message], options: list[str]) -> int:
        """The next reply of the script names the option (case and spaces aside); any other reply is an error."""
        if self.record:
            self.calls.append(list(messages))
        reply = self._replies.pop(0) if self._replies else EXHAUSTED_REPLY
        wanted = [" ".join(o.split()).casefold() for o in options]
        choice = " ".join(reply.split()).casefold()
        if choice not in wanted:
            raise ModelError(f"{self.name}: the script answers {reply!r} where one of "
                             f"{', '.join(options)} is chosen")
        return wanted.index(choice)

    def count_tokens(self, messages: list[Message]) -> int:
        """About four characters a token, plus a few for each message's framing."""
        return sum(len(m["content"]) // 4 + 4 for m in messages)

    def close(self) -> None:
        pass
