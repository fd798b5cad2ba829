"""One persistent Jupyter kernel: run code and stream what it prints, interrupt it, notice its death, end it."""

from __future__ import annotations

import ast
import contextlib
import os
import queue
import subprocess
import tempfile
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import psutil
from jupyter_client import BlockingKernelClient, KernelManager
from jupyter_client.kernelspec import KernelSpecManager

from interp.common.events import InputRequest
from interp.runtime import places
from interp.runtime import sandbox as _sandbox
from interp.runtime.iopub import Idle, Raised, translate
from interp.runtime.kernel_api import KernelError, Output, RunResult
from interp.runtime.kernel_launch import GuardedKernelManager

POLL_S = 0.05
INTERRUPT_GRACE_S = 2.0  # how long timed-out code has to stop after the interrupt before its kernel is replaced
_HELPERS = (Path(__file__).parent / "_kernel_helpers.py").read_text(encoding="utf-8")


@dataclass
class _Clock:
    """A run's time: when to interrupt it (None: no timeout, or already interrupted), and when the interrupted code
    has had its grace."""

    timeout: float
    deadline: float | None
    next_check: float
    grace_end: float | None = None


class Kernel:
    """A local ipykernel reached over private IPC sockets, started in the given working directory; or, with
    `existing`, a kernel somebody else started, which is used the same way but never shut down. With a `sandbox`,
    the kernel starts confined whenever that sandbox is on. `specs` is where `kernel_name`'s spec is found (default:
    the installed kernelspecs; kernel_choice.py gives the one it checked)."""

    def __init__(self, cwd: str | None = None, kernel_name: str = "python3", existing: str | None = None,
                 sandbox: _sandbox.Sandbox | None = None, specs: KernelSpecManager | None = None) -> None:
        self.existing = existing
        self._cwd = cwd
        self.client: BlockingKernelClient | None = None
        self.manager: KernelManager | None = None
        self.language = ""
        self.language_info: dict[str, object] = {}  # from kernel_info, for a notebook's metadata
        if existing is None:
            self._rundir = Path(tempfile.mkdtemp(prefix="kernel-", dir=places.runtime_root()))
            self.manager = GuardedKernelManager(
                kernel_name=kernel_name,
                transport="ipc",
                ip=str(self._rundir / "k"),
                connection_file=str(self._rundir / "kernel.json"),
                **({"kernel_spec_manager": specs} if specs is not None else {}),
            )
            self.manager.sandbox = sandbox

    def start(self) -> None:
        """Launches the kernel process; returns before it is ready (see `wait_ready`)."""
        if self.manager is None:
            return
        try:
            self.manager.start_kernel(
                cwd=self._cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL
            )
        except Exception as exc:  # jupyter_client raises many types for a kernel that will not launch
            raise KernelError(f"could not start the kernel '{self.manager.kernel_name}': {exc}") from exc

    def wait_ready(self, timeout: float = 60) -> None:
        if self.manager is not None:
            self.client = self.manager.blocking_client()
        else:
            self.client = BlockingKernelClient(connection_file=self.existing)
            try:
                self.client.load_connection_file()
            except (OSError, ValueError, TypeError, AttributeError) as exc:  # a JSON list, a key that is no string
                raise KernelError(f"{self.existing}: not a usable connection file: {exc}") from None
        self.client.start_channels()
        try:
            self.client.wait_for_ready(timeout=timeout)
        except RuntimeError as exc:
            raise KernelError(f"the kernel did not become ready: {exc}") from exc
        reply = self.client.kernel_info(reply=True, timeout=timeout)
        self.language_info = reply["content"].get("language_info", {})
        self.language = str(self.language_info.get("name", "")).lower()
        if self.language == "python":
            self.client.execute_interactive(_HELPERS, silent=True, store_history=False, timeout=30)
        if self.manager is not None:  # both sides hold the key now: no other code may read it from the disk
            with contextlib.suppress(OSError):
                os.unlink(self.manager.connection_file)

    def warm(self, modules: tuple[str, ...]) -> None:
        """Imports these modules in the background (those the kernel has), binding no name: the request that imports
        them first finds them loaded. Nothing waits for it; a run sent meanwhile starts when it ends."""
        if self.language == "python" and self.client is not None:
            source = "".join(f"try:\n    __interp_import({m!r})\nexcept ImportError:\n    pass\n" for m in modules)
            self.client.execute(source, silent=True, store_history=False)

    @property
    def _ready(self) -> BlockingKernelClient:
        if self.client is None:
            raise KernelError("the kernel is not ready (wait_ready first)")
        return self.client

    def working_directory(self) -> str | None:
        """The kernel's current directory (code may have changed it), or None when it cannot tell."""
        return self.evaluate({"cwd": "__import__('os').getcwd()"}).get("cwd")

    def evaluate(self, expressions: dict[str, str], timeout: float = 10) -> dict[str, str]:
        """Evaluates expressions in the user's namespace in a silent request (nothing shown, no history); the text
        of each that evaluated (a string's own text, else the repr), by key. Those that raised are left out."""
        try:
            reply = self._ready.execute_interactive("", silent=True, store_history=False, timeout=timeout,
                                                    user_expressions=expressions)
            found = reply["content"]["user_expressions"]
        except KeyError:
            return {}
        except TimeoutError:  # interp's own question must not hold the kernel: the code that runs next would wait
            with contextlib.suppress(KernelError, OSError, RuntimeError):
                self.interrupt()
            return {}
        values = {}
        for key, item in found.items():
            if item.get("status") != "ok":
                continue
            text = item["data"]["text/plain"]
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                value = None
            values[key] = value if isinstance(value, str) else text
        return values

    @property
    def private_folder(self) -> Path:
        """The kernel's own folder (its channels), which only interp and this kernel may write."""
        if self.manager is None:
            raise KernelError("an attached kernel (--existing) has no folder of interp's")
        return self._rundir

    @property
    def spec_name(self) -> str | None:
        """The kernelspec this kernel was started from; None for one started elsewhere (--existing)."""
        return self.manager.kernel_name if self.manager is not None else None

    @property
    def argv(self) -> list[str] | None:
        """The kernel's command as its spec gives it; None for one started elsewhere (--existing)."""
        spec = self.manager.kernel_spec if self.manager is not None else None
        return list(spec.argv) if spec is not None else None

    @property
    def pid(self) -> int | None:
        process = getattr(self.manager and self.manager.provisioner, "process", None)
        return process.pid if process is not None else None

    def execute(
        self, code: str, *, allow_stdin: bool = False, timeout: float = 0
    ) -> Generator[Output, None, RunResult]:
        """Runs code, yielding its output as it arrives. A timeout (seconds, 0 = none) interrupts the run and keeps
        the kernel's state; code that does not stop within INTERRUPT_GRACE_S of the interrupt (a bare `except:`
        around a sleep, an ignored SIGINT) ends `wedged`, for the caller to restart the kernel. Ctrl-C
        (KeyboardInterrupt) interrupts the run too, then propagates."""
        client = self._ready
        msg_id = client.execute(code, allow_stdin=allow_stdin, store_history=True)
        now = time.monotonic()
        clock = _Clock(timeout, now + timeout if timeout > 0 else None, now + POLL_S)
        result = RunResult("ok")
        try:
            while True:
                if allow_stdin and (request := self._stdin_request()) is not None:
                    yield request
                    client.input(request.answer or "")
                ended = self._tick(result, clock)
                if ended is not None:
                    return ended
                try:
                    item = translate(client.get_iopub_msg(timeout=POLL_S), msg_id)
                except queue.Empty:
                    continue
                if isinstance(item, Idle):
                    return result
                if isinstance(item, Raised):
                    if result.status != "timeout":  # the KeyboardInterrupt of our own interrupt is not the code's
                        result.ename, result.evalue, result.error = item.ename, item.evalue, item.error
                        result.status = "interrupted" if item.ename == "KeyboardInterrupt" else "error"
                elif item is not None:
                    yield item
        except (KeyboardInterrupt, GeneratorExit):
            self.interrupt()
            self._drain_until_idle(msg_id, seconds=2.0)
            raise

    def _tick(self, result: RunResult, clock: _Clock) -> RunResult | None:
        """The run's checks on the clock, not only when output pauses (a loop that prints never lets the queue run
        empty): death, the interrupt at the timeout, the grace after it. A result returned ends the run."""
        now = time.monotonic()
        if now < clock.next_check:
            return None
        clock.next_check = now + POLL_S
        if not self.is_alive():
            return RunResult("died", "The kernel died while running this code; its state was lost.")
        if clock.deadline is not None and now > clock.deadline:
            self.interrupt()
            clock.deadline, clock.grace_end = None, now + INTERRUPT_GRACE_S
            result.status = "timeout"
            result.error = f"Timed out after {clock.timeout:g} seconds; the run was interrupted."
        elif clock.grace_end is not None and now > clock.grace_end:
            return RunResult("timeout", f"Timed out after {clock.timeout:g} seconds; the code did not stop when "
                             "interrupted, so the kernel was restarted and its state was lost.", wedged=True)
        return None

    def _stdin_request(self) -> InputRequest | None:
        try:
            msg = self._ready.get_stdin_msg(timeout=0)
        except queue.Empty:
            return None
        if msg["msg_type"] != "input_request":
            return None
        content = msg["content"]
        return InputRequest(prompt=content.get("prompt", ""), password=bool(content.get("password")))

    def _drain_until_idle(self, msg_id: str, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                msg = self._ready.get_iopub_msg(timeout=POLL_S)
            except queue.Empty:
                continue
            if (
                msg["parent_header"].get("msg_id") == msg_id
                and msg["msg_type"] == "status"
                and msg["content"].get("execution_state") == "idle"
            ):
                return

    def interrupt(self) -> None:
        with contextlib.suppress(Exception):
            if self.manager is not None:
                self.manager.interrupt_kernel()
            else:
                client = self._ready
                client.control_channel.send(client.session.msg("interrupt_request", {}))

    def restart(self) -> None:
        """A fresh kernel in place of a dead or wedged one; all state is lost."""
        if self.manager is None:
            raise KernelError("interp cannot restart a kernel it did not start (--existing)")
        self._kill_children()
        if self.client is not None:
            self.client.stop_channels()
        self.manager.restart_kernel(now=True)
        self.wait_ready()

    def is_alive(self) -> bool:
        if self.manager is not None:
            return self.manager.is_alive()
        return self.client is not None and self.client.is_alive()

    def _kill_children(self) -> None:
        """Kills what the kernel started: its descendants, and orphans (`sleep 1000 &` from a shell block) found
        through the kernel's session, since jupyter_client starts each kernel as a session leader."""
        pid = self.pid
        if pid is None:
            return
        found: dict[int, psutil.Process] = {}
        try:
            found.update((p.pid, p) for p in psutil.Process(pid).children(recursive=True))
            session = os.getsid(pid)
        except (psutil.Error, OSError):
            session = None
        if session == pid:
            for proc in psutil.process_iter():
                with contextlib.suppress(OSError):
                    if proc.pid != pid and os.getsid(proc.pid) == session:
                        found[proc.pid] = proc
        for proc in found.values():
            with contextlib.suppress(psutil.Error):
                proc.kill()
        psutil.wait_procs(list(found.values()), timeout=2)

    def shutdown(self) -> None:
        """Ends the kernel and every process it started (an attached kernel is only let go)."""
        if self.client is not None:
            self.client.stop_channels()
        if self.manager is None:
            return
        self._kill_children()
        with contextlib.suppress(Exception):
            self.manager.shutdown_kernel(now=True)
        with contextlib.suppress(OSError):
            for path in self._rundir.iterdir():
                path.unlink()
            self._rundir.rmdir()
