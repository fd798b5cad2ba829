"""scripts/bench_kernel.py compares like with like: its raw jupyter_client side does the protocol work interp's
Kernel.execute does (send, read iopub to this run's idle), and neither reads the shell reply on the clock."""

from __future__ import annotations

import queue
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from bench_kernel import drain, drop_replies, raw_run  # noqa: E402

from interp.runtime.kernel import Kernel  # noqa: E402


class RecordingClient:
    """A kernel client that answers each run with busy, a line of output and idle, and records what is asked."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self._iopub: list[dict] = []
        self._shell: list[dict] = []
        self._runs = 0

    def execute(self, code: str, **kw: object) -> str:
        self._runs += 1
        msg_id = f"run-{self._runs}"
        self.calls.append(f"execute {code}")
        self._iopub = [self._msg(msg_id, "status", {"execution_state": "busy"}),
                       self._msg(msg_id, "stream", {"name": "stdout", "text": "x\n"}),
                       self._msg(msg_id, "status", {"execution_state": "idle"})]
        self._shell.append(self._msg(msg_id, "execute_reply", {"status": "ok"}))
        return msg_id

    @staticmethod
    def _msg(msg_id: str, msg_type: str, content: dict) -> dict:
        return {"parent_header": {"msg_id": msg_id}, "msg_type": msg_type, "content": content}

    def get_iopub_msg(self, timeout: float) -> dict:
        self.calls.append("iopub")
        if not self._iopub:
            raise queue.Empty
        return self._iopub.pop(0)

    def get_shell_msg(self, timeout: float) -> dict:
        self.calls.append("shell")
        if not self._shell:
            raise queue.Empty
        return self._shell.pop(0)

    def is_alive(self) -> bool:
        return True


def test_the_raw_side_does_the_same_work_as_interps_kernel() -> None:
    client = RecordingClient()
    raw_run(client, "pass")
    raw, client.calls = client.calls, []
    kernel = Kernel(existing="unused.json")
    kernel.client = client
    drain(kernel.execute("pass"))
    assert raw == client.calls == ["execute pass", "iopub", "iopub", "iopub"]


def test_unread_replies_are_dropped_between_runs() -> None:
    client = RecordingClient()
    raw_run(client, "pass")
    raw_run(client, "pass")
    drop_replies(client)
    assert client.calls[-3:] == ["shell", "shell", "shell"] and client._shell == []
