"""Iterating a generator while keeping the value it returns: the one place for `next()` until `StopIteration`."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any, Generic, TypeVar

Y = TypeVar("Y")
R = TypeVar("R")


class Returning(Generic[Y, R]):
    """`for item in (run := Returning(gen)): ...` then `run.value` is what `gen` returned. `gen` stays reachable
    for `throw` and `close` (a consumer that stops early)."""

    def __init__(self, gen: Generator[Y, Any, R]) -> None:
        self.gen = gen
        self._value: R
        self.finished = False

    def __iter__(self) -> Iterator[Y]:
        self._value = yield from self.gen
        self.finished = True

    @property
    def value(self) -> R:
        if not self.finished:
            raise RuntimeError("the generator has not returned yet")
        return self._value
