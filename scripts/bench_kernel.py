"""Kernel figures: execute round trip through interp's kernel layer against raw jupyter_client doing the same work
(send, read iopub to idle; shell replies dropped outside the clock for both), interrupt latency, dead-kernel
detection and restart time, all from one run.

    .venv/bin/python scripts/bench_kernel.py [--runs 200]
"""

from __future__ import annotations

import argparse
import queue
import statistics
import tempfile
import time
from typing import Any

from interp.kernel import Kernel, RunResult
from interp.returning import Returning


def drain(gen) -> RunResult:
    run = Returning(gen)
    for _ in run:
        pass
    return run.value


def ms(values: list[float]) -> str:
    p90 = statistics.quantiles(values, n=10)[-1]
    return f"median {statistics.median(values) * 1e3:7.2f} ms, p90 {p90 * 1e3:7.2f} ms"


def wait_idle(client: Any, msg_id: str) -> None:
    while True:
        try:
            msg = client.get_iopub_msg(timeout=5)
        except queue.Empty:
            continue
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"):
            return


def raw_run(client: Any, code: str) -> None:
    """The work Kernel.execute does, in plain jupyter_client: send the request, read iopub until this run's idle.
    Like interp, it does not wait for the shell reply (execute_interactive would: other work)."""
    wait_idle(client, client.execute(code, allow_stdin=False, store_history=True))


def drop_replies(client: Any) -> None:
    """The shell replies neither side reads, dropped outside the clock, so that no run pays for another's."""
    while True:
        try:
            client.get_shell_msg(timeout=0.001)
        except queue.Empty:
            return


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()

    kernel = Kernel(cwd=tempfile.gettempdir())
    started = time.perf_counter()
    kernel.start()
    kernel.wait_ready()
    print(f"kernel start to ready: {(time.perf_counter() - started) * 1e3:.0f} ms")
    try:
        raw, ours = [], []
        for _ in range(args.runs):  # interleaved, so drift hits both alike
            t = time.perf_counter()
            raw_run(kernel.client, "pass")
            raw.append(time.perf_counter() - t)
            drop_replies(kernel.client)
            t = time.perf_counter()
            drain(kernel.execute("pass"))
            ours.append(time.perf_counter() - t)
            drop_replies(kernel.client)
        print(f"execute 'pass', raw jupyter_client to idle: {ms(raw)}")
        print(f"execute 'pass', interp Kernel.execute:      {ms(ours)}")
        print(f"ratio interp / raw (medians): {statistics.median(ours) / statistics.median(raw):.3f}")

        latencies = []
        for _ in range(10):
            msg_id = kernel.client.execute("while True: pass")
            time.sleep(0.3)
            t = time.perf_counter()
            kernel.interrupt()
            wait_idle(kernel.client, msg_id)
            drop_replies(kernel.client)
            latencies.append(time.perf_counter() - t)
        print(f"interrupt to idle: {ms(latencies)}")

        detect, restart = [], []
        for _ in range(5):
            drain(kernel.execute("x = 1"))
            t = time.perf_counter()
            result = drain(kernel.execute("import os; os._exit(1)"))
            detect.append(time.perf_counter() - t)
            assert result.status == "died", result
            t = time.perf_counter()
            kernel.restart()
            restart.append(time.perf_counter() - t)
        print(f"os._exit to death detected: {ms(detect)}")
        print(f"restart to ready: {ms(restart)}")
    finally:
        kernel.shutdown()


if __name__ == "__main__":
    main()
