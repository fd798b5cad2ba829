"""Kernel figures: execute round trip through interp's kernel layer against raw jupyter_client doing the same work
(send, read iopub to idle; shell replies dropped outside the clock for both), interrupt latency, dead-kernel
detection and restart time, and what the sandbox costs (start and round trip, with and without), all from one run.

    .venv/bin/python scripts/bench_kernel.py [--runs 200] [--starts 9]
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import tempfile
import time
from typing import Any

from interp.common.returning import Returning
from interp.runtime.kernel import Kernel, RunResult
from interp.runtime.places import kernel_environment
from interp.runtime.sandbox import Sandbox, build, probe


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


def start_kernel(sandbox: Sandbox | None, env: dict[str, str] | None = None) -> tuple[Kernel, float]:
    kernel = Kernel(cwd=tempfile.gettempdir(), sandbox=sandbox)
    saved = dict(os.environ)
    os.environ.update(env or {})  # the kernel inherits interp's environment at launch
    try:
        t = time.perf_counter()
        kernel.start()
        kernel.wait_ready()
        return kernel, time.perf_counter() - t
    finally:
        os.environ.clear()
        os.environ.update(saved)


def sandbox_cost(runs: int, starts: int) -> None:
    """Start to ready and a `pass` round trip: without the sandbox, without it but with the IPython folder the
    sandbox gives a kernel (history in memory: what the confinement itself costs shows against this one), and with
    the default sandbox; interleaved, each kind first as often as the others."""
    sandbox = Sandbox("workspace", build("workspace", tempfile.gettempdir(), [], False), probe())
    _, refusal = sandbox.start(auto_run=True)
    if refusal:
        print(f"sandbox: {refusal}")
        return
    print(f"sandbox: {sandbox.enforcement.describe()}")
    kinds = {"no sandbox": (None, {}), "no sandbox, its IPython folder": (None, kernel_environment()),
             "sandbox": (sandbox, {})}
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for i in range(starts):
        for name in list(kinds)[i % 3:] + list(kinds)[:i % 3]:
            kernel, seconds = start_kernel(*kinds[name])
            times[name].append(seconds)
            kernel.shutdown()
    for name, values in times.items():
        print(f"start to ready, {name:31} {ms(values)}")
    kernels = {name: start_kernel(*kind)[0] for name, kind in kinds.items()}
    trips: dict[str, list[float]] = {name: [] for name in kinds}
    try:
        for i in range(runs):
            for name in list(kinds)[i % 3:] + list(kinds)[:i % 3]:
                t = time.perf_counter()
                drain(kernels[name].execute("pass"))
                trips[name].append(time.perf_counter() - t)
                drop_replies(kernels[name].client)
        for name, values in trips.items():
            print(f"execute 'pass', {name:31} {ms(values)}")
    finally:
        for kernel in kernels.values():
            kernel.shutdown()
    for what, found in (("start", times), ("'pass'", trips)):
        base, same = statistics.median(found["no sandbox"]), statistics.median(found["no sandbox, its IPython folder"])
        boxed = statistics.median(found["sandbox"])
        print(f"ratio of medians, {what}: sandbox / no sandbox {boxed / base:.3f}, "
              f"sandbox / same IPython folder {boxed / same:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--starts", type=int, default=9, help="kernel starts of each kind, with and without the sandbox")
    args = ap.parse_args()
    sandbox_cost(args.runs, args.starts)

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
