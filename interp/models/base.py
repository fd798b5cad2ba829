"""The model interface: messages in, text pieces out, figures at the end."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from interp.common.events import ModelStats
from interp.common.messages import Message as Message  # the model interface takes them
from interp.common.returning import Returning


class StopReply(Exception):  # noqa: N818 - a signal, not an error
    """Thrown into a model's stream by a consumer that has all of the reply it wants: the stream stops generating
    and returns its figures as usual (see stop_early)."""


class ModelError(Exception):
    """A model cannot be loaded or used; the message is one line naming the file and the problem."""


@dataclass
class GenParams:
    """How one reply is sampled (the defaults of a session's come from interp.config.Config)."""

    max_tokens: int
    temperature: float
    # Keep generating past end-of-sequence; only benchmarks use it, to decode a reply of a fixed length.
    ignore_eos: bool = False
    # A fixed sampling seed makes a call repeatable (the eval's paired runs); None draws a fresh one.
    seed: int | None = None
    # Verify drafts copied from earlier text in batches (llama.cpp models; see models/speculate.py).
    speculative: bool = True
    # The reply begins with this text: a model that can continue a reply (llama.cpp models) takes it as part of the
    # prompt, yields it first and writes the rest; one that cannot (a server) writes its reply as usual.
    opening: str = ""


@dataclass(frozen=True)
class Ahead:
    """The replies the loop may ask for after this call's own (more versions of a function, a reply for asserts at
    another temperature), in the loop's terms: a model that can (`Together`) decodes them beside this one and keeps
    each whole, given at once to a later call with the same prompt and sampling; how (llama.cpp's batches) is the
    model's business."""

    # Replies decoded together, the one asked for included, at its temperature (models/together.py).
    together: int = 1
    # Replies decoded beside the one asked for at temperatures of their own, each kept for the next call at its
    # temperature: choosing's reply for asserts at 0.8 is decoded beside the one at 0.2. When given, `together` is
    # not read.
    beside: tuple[float, ...] = ()
    # Why a reply is whole before the model ends it, given its text so far (its opening included), else None: the
    # replies decoded beside the streamed one stop there, as a consumer stops a streamed one (reply.py: whole).
    whole: Callable[[str], str | None] | None = None
    # time.monotonic() past which the replies decoded beside the streamed one are given up (0: never).
    deadline: float = 0.0


NOTHING_AHEAD = Ahead()  # no reply asked for after this one


def ahead_at(temperatures: tuple[float, ...]) -> Ahead:
    """The replies asked for after a call at the first of `temperatures`, one at each of the others: at one
    temperature, as many together; at several, each beside at its own."""
    first, *others = temperatures
    if all(t == first for t in others):
        return Ahead(together=len(temperatures)) if others else NOTHING_AHEAD
    return Ahead(beside=tuple(others))


class Model(Protocol):
    """What every model does: a reply streamed, a prompt's size, a constrained choice, and closing."""

    @property
    def name(self) -> str: ...

    @property
    def n_ctx(self) -> int: ...

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        """Yields the reply in pieces as it is generated; returns the call's figures."""
        ...

    def count_tokens(self, messages: list[Message]) -> int:
        """How many tokens these messages take as a prompt."""
        ...

    def choose(self, messages: list[Message], options: list[str]) -> int:
        """Which option the reply to these messages is, constrained to the options (never free text); its index."""
        ...

    def close(self) -> None: ...


class Together(Protocol):
    """Several replies of one prompt decoded together, a service of the models that can (llama.cpp's,
    models/together.py): on a CPU a batch of a few tokens costs little more than one. Reached with together_service."""

    def waiting(self, messages: list[Message], params: GenParams) -> bool:
        """Whether the reply to this call is already decoded (beside an earlier one): taking it costs no time."""
        ...

    def complete(self, messages: list[Message], params: GenParams,
                 ahead: Ahead) -> Generator[str, None, ModelStats]:
        """As Model.complete, with `ahead`'s replies decoded beside this one; a reply decoded beside an earlier call
        for this prompt and sampling is given whole instead."""
        ...


@runtime_checkable
class OffersTogether(Protocol):
    """A model that may decode replies together (llama.cpp's): its service, or None when it cannot now."""

    def together(self) -> Together | None: ...


@runtime_checkable
class Warms(Protocol):
    """A model that keeps the state of a fixed prefix (llama.cpp's): saved to disk, and read back at the next start."""

    def warm(self, prefix: list[Message]) -> str | None: ...


@runtime_checkable
class FromFile(Protocol):
    """A model loaded from a GGUF file on this machine: its path, and the CPU threads it decodes with."""

    path: Path
    n_threads: int


def model_file(model: Model) -> Path | None:
    """The GGUF file a model was loaded from; None for a server or a script."""
    return model.path if isinstance(model, FromFile) else None


def together_service(model: Model) -> Together | None:
    """The model's service of replies decoded together (its `together()`), or None for a model that decodes each
    reply alone (a server, a script)."""
    return model.together() if isinstance(model, OffersTogether) else None


def warm_prefix(model: Model, prefix: list[Message]) -> str | None:
    """Puts the fixed prefix in the model's cache (a saved state, else evaluated and saved) where the model keeps
    one; returns what happened, or None for models without a cache of their own."""
    return model.warm(prefix) if isinstance(model, Warms) else None


def complete_beside(model: Model, messages: list[Message], params: GenParams,
                    ahead: Ahead) -> Generator[str, None, ModelStats]:
    """The reply, with `ahead`'s replies decoded beside it where the model can; alone, by Model.complete, where it
    cannot."""
    service = together_service(model)
    return service.complete(messages, params, ahead) if service is not None else model.complete(messages, params)


def waiting(model: Model, messages: list[Message], params: GenParams) -> bool:
    """Whether the reply to this call is decoded already, beside an earlier one (never for a model that cannot)."""
    service = together_service(model)
    return service is not None and service.waiting(messages, params)


class Seeded:
    """A model whose calls are counted and, with a seed, each sampled with a fixed seed of its own (the seed plus the
    call's number): the same requests in the same order sample the same replies again (--seed; the eval's runs).
    It also adds up its decoding: the tokens decoded after each reply's first, and the seconds they took."""

    def __init__(self, model: Model, seed: int | None = None) -> None:
        self.model = model
        self.seed = seed
        self.calls = 0
        self.decoded = 0
        self.decode_s = 0.0

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def n_ctx(self) -> int:
        return self.model.n_ctx

    def complete(self, messages: list[Message], params: GenParams,
                 ahead: Ahead = NOTHING_AHEAD) -> Generator[str, None, ModelStats]:
        """The model's reply, seeded and tallied; with `ahead` as the model's Together service decodes it, when the
        model has one (see together)."""
        self.calls += 1
        if self.seed is not None:
            params = replace(params, seed=(self.seed + self.calls) % 2**31)
        return self._tally(complete_beside(self.model, messages, params, ahead))

    def together(self) -> Together | None:
        """The model's service of replies decoded together, its calls seeded and tallied as this model's; None when
        the model has none."""
        return self if together_service(self.model) is not None else None

    def waiting(self, messages: list[Message], params: GenParams) -> bool:
        """Whether the model's service has this call's reply decoded already (the seed is no part of it)."""
        return waiting(self.model, messages, params)

    def _tally(self, stream: Generator[str, None, ModelStats]) -> Generator[str, None, ModelStats]:
        stats = yield from stream
        if stats.decode_tps > 0:
            self.decoded += stats.completion_tokens - 1
            self.decode_s += (stats.completion_tokens - 1) / stats.decode_tps
        return stats

    def __getattr__(self, attribute: str) -> Any:
        """Anything else the model has (count_tokens, choose, close, a GGUF's path and threads)."""
        if attribute == "model":
            raise AttributeError(attribute)
        return getattr(self.model, attribute)


def stop_early(stream: Generator[str, None, ModelStats], reason: str) -> ModelStats:
    """Ends a reply's stream before the model is done; returns the call's figures with `reason` as its stop reason."""
    try:
        stream.throw(StopReply)
    except StopIteration as stop:
        stats = stop.value or ModelStats()
    except StopReply:
        stats = ModelStats()
    else:
        stream.close()
        stats = ModelStats()
    stats.stop_reason = reason
    return stats


def complete_text(model: Model, messages: list[Message], params: GenParams,
                  ahead: Ahead = NOTHING_AHEAD) -> tuple[str, ModelStats]:
    """A whole reply and its figures, for calls nobody watches stream (summaries, reflections, benchmarks); `ahead`:
    replies decoded beside it where the model can (complete_beside)."""
    run = Returning(complete_beside(model, messages, params, ahead))
    text = "".join(run)
    return text, run.value
