"""The kernel layer against a real ipykernel, with code that misbehaves on purpose."""

from __future__ import annotations

import time

import psutil
import pytest
from conftest import eventually, gone, run

from interp.runtime.kernel import Kernel


def test_state_persists_and_output_streams(kernel: Kernel) -> None:
    assert run(kernel, "value = 41")[1].status == "ok"
    out, result = run(kernel, "print(value + 1)\nvalue")
    assert result.status == "ok"
    assert out == "42\n41\n"


def test_error_is_cleaned(kernel: Kernel) -> None:
    out, result = run(kernel, "1 / 0")
    assert result.status == "error"
    assert result.ename == "ZeroDivisionError"
    assert result.error.endswith("ZeroDivisionError: division by zero")
    assert "\x1b" not in result.error


def test_timeout_interrupts_and_keeps_state(kernel: Kernel) -> None:
    run(kernel, "kept = 'still here'")
    started = time.monotonic()
    out, result = run(kernel, "import time\nwhile True: time.sleep(0.01)", timeout=1)
    assert result.status == "timeout"
    assert "Timed out after 1 seconds" in result.error
    assert time.monotonic() - started < 10
    assert run(kernel, "print(kept)")[0] == "still here\n"


class EndlessOutput:
    """A client whose kernel prints without a pause, so its message queue never runs empty; an interrupt stops it
    unless it is `stubborn`."""

    def __init__(self, stubborn: bool = False) -> None:
        self.stubborn = stubborn
        self.interrupted = False
        self.received = 0

    def execute(self, code: str, **kw: object) -> str:
        return "run"

    def is_alive(self) -> bool:
        return True

    def get_iopub_msg(self, timeout: float) -> dict:
        self.received += 1
        # About 10,000 messages a second: the timeout and its grace pass within a few thousand; a run that never
        # checks its deadline reaches the bound after minutes, however fast the machine.
        time.sleep(0.0001)
        assert self.received < 2_000_000, "the deadline was never checked"
        if self.interrupted and not self.stubborn:
            return {"parent_header": {"msg_id": "run"}, "msg_type": "status", "content": {"execution_state": "idle"}}
        return {"parent_header": {"msg_id": "run"}, "msg_type": "stream", "content": {"name": "stdout", "text": "1\n"}}


@pytest.mark.parametrize("stubborn", [False, True], ids=["stops", "ignores-the-interrupt"])
def test_timeout_is_kept_while_output_never_pauses(stubborn: bool) -> None:
    client = EndlessOutput(stubborn)
    kernel = Kernel(existing="unused.json")
    kernel.client = client
    kernel.interrupt = lambda: setattr(client, "interrupted", True)
    out, result = run(kernel, "while True: print(1)", timeout=0.2)
    assert client.interrupted
    assert result.status == "timeout"
    assert result.wedged == stubborn
    assert "Timed out after 0.2 seconds" in result.error


def test_input_without_stdin_fails_fast(kernel: Kernel) -> None:
    started = time.monotonic()
    out, result = run(kernel, "input('name? ')", allow_stdin=False)
    assert result.status == "error"
    assert "StdinNotImplementedError" in result.error
    assert time.monotonic() - started < 10


def test_death_is_detected_and_restart_gives_a_fresh_kernel(kernel: Kernel) -> None:
    # The name is defined here, not by an earlier test: alone or in any order, the test can tell state kept from lost.
    assert run(kernel, "before_death = 1\nprint('before_death' in dir())")[0] == "True\n"
    old_pid = kernel.pid
    out, result = run(kernel, "import os\nos._exit(1)")
    assert result.status == "died"
    kernel.restart()
    assert kernel.pid != old_pid and not psutil.pid_exists(old_pid)
    out, result = run(kernel, "print('before_death' in dir())")
    assert out == "False\n"


def test_shutdown_ends_children(tmp_path) -> None:
    k = Kernel(cwd=str(tmp_path))
    k.start()
    k.wait_ready()
    out, _ = run(k, "import subprocess\np = subprocess.Popen(['sleep', '1000'])\nprint(p.pid)")
    child = int(out)
    kernel_pid = k.pid
    k.shutdown()
    assert eventually(lambda: gone(kernel_pid) and gone(child))
