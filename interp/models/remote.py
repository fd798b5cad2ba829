"""Any OpenAI-compatible chat server (llama-server, llama-cpp-python's server, vLLM, Ollama) as the model."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Generator
from typing import Any

from interp.common.events import ModelStats
from interp.config import redact_url
from interp.models.base import GenParams, Message, ModelError, StopReply

DEFAULT_CTX = 8192
CHARS_PER_TOKEN = 3.5  # the server's tokenizer is not at hand: count conservatively


class RemoteModel:
    """Streams chat completions from `{api_base}/chat/completions` over server-sent events."""

    def __init__(self, api_base: str, model: str | None = None, api_key: str | None = None, n_ctx: int = 0,
                 timeout: float = 600) -> None:
        self.api_base = api_base.rstrip("/")
        self.model = model or "default"
        self.name = f"{self.model} at {redact_url(self.api_base)}"
        self.n_ctx = n_ctx or DEFAULT_CTX
        self.timeout = timeout
        self._headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"

    def count_tokens(self, messages: list[Message]) -> int:
        return sum(int(len(m["content"]) / CHARS_PER_TOKEN) + 4 for m in messages)

    def _events(self, body: dict[str, Any]) -> Generator[dict[str, Any], None, None]:
        request = urllib.request.Request(f"{self.api_base}/chat/completions", data=json.dumps(body).encode(),
                                         headers=self._headers, method="POST")
        try:
            response = urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", errors="replace")[:300]
            raise ModelError(f"{self.api_base}: HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ModelError(f"{self.api_base}: cannot reach the server ({reason})") from None
        with response:
            for raw in response:
                line = raw.decode("utf-8", errors="replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                try:
                    yield json.loads(data)
                except json.JSONDecodeError:
                    raise ModelError(f"{self.api_base}: the server sent something that is not JSON") from None

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "temperature": params.temperature,
        }
        if params.max_tokens > 0:
            body["max_tokens"] = params.max_tokens
        if params.seed is not None:
            body["seed"] = params.seed
        stats = ModelStats(prompt_tokens=self.count_tokens(messages))
        started = time.perf_counter()
        first = last = started
        pieces = 0
        events = self._events(body)
        stopped = False
        for event in events:
            usage = event.get("usage") or {}
            if usage:
                stats.prompt_tokens = usage.get("prompt_tokens", stats.prompt_tokens)
                stats.completion_tokens = usage.get("completion_tokens", stats.completion_tokens)
                stats.cached_tokens = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) or 0
            for choice in event.get("choices") or []:
                text = (choice.get("delta") or {}).get("content")
                if text:
                    last = time.perf_counter()
                    if pieces == 0:
                        first = last
                    pieces += 1
                    try:
                        yield text
                    except StopReply:
                        stopped = True
                        break
                if choice.get("finish_reason"):
                    stats.stop_reason = choice["finish_reason"]
            if stopped:
                events.close()  # the connection closes; the server stops generating
                break
        stats.completion_tokens = stats.completion_tokens or pieces
        stats.ttft_s = first - started
        if stats.completion_tokens > 1 and last > first:
            stats.decode_tps = (stats.completion_tokens - 1) / (last - first)
        return stats

    def choose(self, messages: list[Message], options: list[str]) -> int:
        """Asks for JSON constrained to the options (structured output: llama-server, vLLM, Ollama and OpenAI
        honour a JSON Schema `enum`); a server that ignores the constraint is an error, not a guess."""
        body: dict[str, Any] = {
            "model": self.model, "messages": messages, "stream": True, "temperature": 0.0, "max_tokens": 64,
            "response_format": {"type": "json_schema", "json_schema": {
                "name": "choice", "strict": True, "schema": {"type": "string", "enum": options}}},
        }
        text = "".join((choice.get("delta") or {}).get("content") or ""
                       for event in self._events(body) for choice in event.get("choices") or [])
        try:
            return options.index(json.loads(text))
        except (json.JSONDecodeError, ValueError, TypeError):
            raise ModelError(f"{self.api_base}: the server answered {text[:80]!r}, not one of the options: it does "
                             "not support constrained output (response_format json_schema)") from None

    def close(self) -> None:
        pass
