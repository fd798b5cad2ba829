"""The kernel seam: what the session needs from a kernel, and from the set of kernels it runs code in.

`interp.kernel.Kernel` (a real Jupyter kernel) and `interp.kernels.Kernels` implement these; the tests' fake kernels
(tests/fakes.py) do too, so the loop is tested in-process without ipykernel.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Literal, Protocol

from interp.events import DisplayData, InputRequest, OutputChunk
from interp.sandbox import Sandbox

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
    def sandbox(self) -> Sandbox:
        """What the kernels may touch (sandbox.py): off, or the policy they run under."""
        ...

    def enable_sandbox(self) -> tuple[bool, list[str]]:
        """Puts the kernels under the sandbox before auto-run starts; whether that was allowed, and notes to show."""
        ...
