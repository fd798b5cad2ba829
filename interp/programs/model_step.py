"""A PDL model block: one call on the program's context, streamed, honouring temperature, max tokens and stops."""

from __future__ import annotations

import time
from collections.abc import Generator
from typing import Any

from interp.common.events import Event, ModelStats, ReplyDone, TextDelta, Thinking
from interp.models.base import GenParams, Message, stop_early
from interp.session import Session


def call_model(session: Session, messages: list[Message], params: dict[str, Any]) -> Generator[Event, None, str]:
    """Streams the reply as TextDelta events and returns it, cut at the first stop sequence (kept with
    include_stop_sequence). Text that could be the start of a stop sequence is held back until it is not."""
    gen = GenParams(temperature=float(params.get("temperature", session.config.temperature)),
                    max_tokens=int(params.get("max_tokens", session.config.max_tokens)))
    stops = [s for s in params.get("stop", []) if s]
    hold = max(map(len, stops), default=1) - 1
    yield Thinking()
    started = time.monotonic()
    stream = session.model.complete(messages, gen)
    text, shown = "", 0
    stats = ModelStats()
    try:
        while True:
            try:
                text += next(stream)
            except StopIteration as stop:
                stats = stop.value or ModelStats()
                break
            cut = _first_stop(text, stops, params.get("include_stop_sequence", False))
            if cut is not None:
                text = text[:cut]
                stats = stop_early(stream, "stop")
                break
            if len(text) - hold > shown:
                yield TextDelta(text[shown:len(text) - hold])
                shown = len(text) - hold
    except (KeyboardInterrupt, GeneratorExit, SystemExit):
        stream.close()
        raise
    if len(text) > shown:
        yield TextDelta(text[shown:])
    session.journal.record("model_call", prompt_tokens=stats.prompt_tokens, cached_tokens=stats.cached_tokens,
                           completion_tokens=stats.completion_tokens, ttft_s=round(stats.ttft_s, 4),
                           decode_tps=round(stats.decode_tps, 2), duration_s=round(time.monotonic() - started, 3),
                           stop_reason=stats.stop_reason, input_tail=messages[-1] if messages else None)
    session.last_stats = stats
    yield ReplyDone(text, stats)
    return text


def _first_stop(text: str, stops: list[str], include: bool) -> int | None:
    found = [(text.find(s), s) for s in stops if s in text]
    if not found:
        return None
    index, stop = min(found)
    return index + len(stop) if include else index
