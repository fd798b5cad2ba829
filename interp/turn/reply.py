"""A model's reply as it streams: shown piece by piece, and cut where it should end before the model ends it."""

from __future__ import annotations

from collections.abc import Callable, Generator

from interp.common.events import Event, ModelStats, Notice, TextDelta
from interp.common.extract import first_block_end
from interp.common.returning import Returning
from interp.common.textclean import loops_at_end
from interp.models.base import stop_early

LOOP_CHECK_CHARS = 64  # how often (in characters of a reply) to look for a loop
LOOP_CHECK_PIECES = 300  # the reply's end that is searched for one: more than loops_at_end's window


def stream_reply(stream: Generator[str, None, ModelStats], pieces: list[str],
                 late: Callable[[], bool] = lambda: False) -> Generator[Event, None, ModelStats]:
    """Yields the reply's pieces as TextDeltas and appends them to `pieces` (the caller keeps what came before an
    interruption); stops the stream where the reply's first code block ends, where it starts repeating itself, or
    (stop reason "time") once `late()` says its time is up. Returns the call's figures, with the reason it stopped."""
    run = Returning(stream)
    length = checked = 0
    for piece in run:
        end = first_block_end("".join(pieces) + piece) if "\n" in piece else None
        if end is not None:
            # The code is complete: anything after it would be the model imagining its output.
            piece = piece[:end - length]
            if piece:
                pieces.append(piece)
                yield TextDelta(piece)
            return stop_early(stream, "code")
        pieces.append(piece)
        yield TextDelta(piece)
        if late():
            return stop_early(stream, "time")
        length += len(piece)
        if length - checked >= LOOP_CHECK_CHARS:
            checked = length
            if loops_at_end("".join(pieces[-LOOP_CHECK_PIECES:])):
                stats = stop_early(stream, "loop")
                yield Notice("The model was repeating itself; its reply was cut.", "warning")
                return stats
    return run.value or ModelStats()
