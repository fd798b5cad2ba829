"""The kernel seam: what the session needs from a kernel, and from the set of kernels it runs code in.

`kernel.Kernel` (a real Jupyter kernel) and `kernels.Kernels` implement these; the tests' fake kernels (tests/fakes.py)
do too, so the loop is tested in-process without ipykernel. The sandbox is seen through `Confinement`, which
`sandbox.Sandbox` implements: the seam imports none of the code that confines a kernel (sandbox.py, _confine.py,
places.py), and the pool confines its own kernels (`KernelPool.confine`).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from string import Template
from typing import Literal, Protocol

from interp.common.events import DisplayData, InputRequest, OutputChunk

Output = OutputChunk | DisplayData | InputRequest
RunStatus = Literal["ok", "error", "interrupted", "timeout", "died"]


class KernelError(Exception):
    """The kernel could not be started or reached."""


@dataclass
class RunResult:
    """How a run ended."""

    status: RunStatus
    error: str | None = None
    ename: str | None = None
    evalue: str | None = None
    wedged: bool = False  # the code would not stop when interrupted: the kernel must be restarted


class KernelLike(Protocol):
    """One kernel: runs code and streams its outputs, and survives what the code does to it."""

    def execute(
        self, code: str, *, allow_stdin: bool = False, timeout: float = 0
    ) -> Generator[Output, None, RunResult]:
        """Runs code, yielding its outputs as they arrive (an `InputRequest` is answered by setting `answer` before
        the next item is asked for); returns how the run ended. A timeout (seconds, 0 = none) interrupts the run;
        code that will not stop ends the run `wedged`. Closing the generator or throwing into it interrupts the run."""
        ...

    def interrupt(self) -> None:
        """Asks running code to stop (SIGINT or an interrupt request), keeping the kernel's state."""
        ...

    def restart(self) -> None:
        """A fresh kernel in place of this one; all state is lost. Raises KernelError when it cannot."""
        ...

    def shutdown(self) -> None:
        """Ends the kernel and what it started."""
        ...

    def is_alive(self) -> bool: ...

    def working_directory(self) -> str | None:
        """Where the code runs now (code may have changed it); None when the kernel cannot tell."""
        ...

    def evaluate(self, expressions: dict[str, str]) -> dict[str, str]:
        """The text of each expression evaluated in the code's namespace, by key, running nothing the user sees;
        those that raised, or all when the kernel cannot tell, are left out."""
        ...


class ConfinementPolicy(Protocol):
    """The rules confined code runs under, as far as the session tells the model and the user of them."""

    @property
    def mode(self) -> str:
        """'workspace' (writes in the working directory and the temp directory) or 'read-only' (the temp directory)."""
        ...

    @property
    def network(self) -> bool: ...


class Confinement(Protocol):
    """What the session knows of the sandbox its kernels run under (sandbox.Sandbox is the real one): whether they are
    under it now, its rules, and its texts for the journal, the model and a denial's explanation."""

    @property
    def active(self) -> bool: ...

    @property
    def policy(self) -> ConfinementPolicy: ...

    def describe(self) -> str:
        """The sandbox in a few words: off, off until auto-run, or its policy."""
        ...

    def explain(self, text: str) -> str | None:
        """Which of its rules denied what a run reports (output and error), while it is on."""
        ...

    def prompt(self, template: Template) -> str:
        """Its paragraph of the system prompt; empty while code is not confined."""
        ...


class KernelPool(Protocol):
    """The kernels of a session: Python, which also runs shell blocks, and one per other installed language."""

    @property
    def python(self) -> KernelLike: ...

    def get(self, language: str) -> KernelLike | None:
        """The kernel for a language, started if need be; None when none is installed. Raises KernelError."""
        ...

    def available(self) -> list[str]:
        """The languages code may be written in."""
        ...

    def restart(self) -> None:
        """A fresh Python kernel; the others end. Raises KernelError when it cannot."""
        ...

    def shutdown(self) -> None: ...

    @property
    def sandbox(self) -> Confinement:
        """What the kernels may touch: off, or the policy they run under."""
        ...

    def confine(self) -> tuple[bool, list[str]]:
        """Puts the kernels under the sandbox before auto-run starts (answer `a`, `%auto on`), the Python kernel's
        variables carried across its restart; whether that was allowed, and notes to show."""
        ...
