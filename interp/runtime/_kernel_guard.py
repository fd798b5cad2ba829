"""Stands between interp and a kernel, so that everything the kernel starts ends when interp goes, however it goes.

    python -I _kernel_guard.py RUNDIR [--confine SPEC] [--env JSON] -- KERNEL_COMMAND...

interp (through jupyter_client) starts this in place of the kernel command, in a new session; the kernel is its only
child, in the same process group, so jupyter_client's interrupt and kill signals reach both. On Linux the guard is a
child subreaper: a process below it whose parent exits is re-parented to the guard instead of to PID 1, so every
process the kernel starts stays a descendant, `setsid` and double-forked daemons included. The guard then ends them
all when either side goes:
- interp goes (even `kill -9`): its parent PID changes; it kills every descendant and removes RUNDIR, the kernel's
  private folder (connection file and sockets), which interp would have removed;
- the kernel goes (a crash, `os._exit`, a shutdown): it kills what the kernel left and exits with the kernel's status,
  so interp sees the death as before.
What it cannot catch: processes started on the kernel's behalf by another service (`systemd-run`, `at`, an SSH
session, a container daemon), which are not its descendants; and, outside Linux, orphans that leave its tree.
With --confine (a JSON spec from interp/runtime/sandbox.py), the kernel's process confines itself with _confine.py
between fork and exec, so the kernel and all it starts run sandboxed while the guard, outside, can still end them
all; a spec that cannot be applied starts no kernel at all. With --env (a kernelspec's `env`), those variables are
given to the kernel's process alone: the guard itself runs unconfined, and a variable such as LD_PRELOAD must not
load a library into it.
It runs with -I and imports only the standard library and psutil.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import runpy
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import psutil

POLL_S = 0.1
PR_SET_CHILD_SUBREAPER = 36
RUNDIR_PREFIX = "kernel-"


def _become_subreaper() -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap() -> dict[int, int]:
    """Collects every child that has exited (orphans re-parented here included); pid -> exit code."""
    ended: dict[int, int] = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return ended
        if pid == 0:
            return ended
        ended[pid] = os.waitstatus_to_exitcode(status)


def _end_descendants() -> None:
    """Kills every descendant, again and again while any is left: a process forking as it is killed, or an orphan
    re-parented here as its parent dies, shows up on the next pass."""
    me = psutil.Process()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        _reap()
        found = me.children(recursive=True)
        if not found:
            return
        for proc in found:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        time.sleep(0.02)


def _confiner(spec: str | None) -> tuple[dict[str, str], Callable[[], object] | None]:
    """The kernel's environment additions, and what its process runs before the kernel: nothing, or _confine.py's
    `confine` with the spec."""
    if spec is None:
        return {}, None
    confine = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_confine.py"))["confine"]
    settings = json.loads(spec)
    return settings.get("env", {}), lambda: confine(settings)


def main(argv: list[str]) -> int:
    rundir, *argv = argv
    spec = None
    if argv[:1] == ["--confine"] and len(argv) > 1:
        spec, argv = argv[1], argv[2:]
    kernel_env: dict[str, str] = {}
    if argv[:1] == ["--env"] and len(argv) > 1:
        kernel_env, argv = json.loads(argv[1]), argv[2:]
    separator, *command = argv or [""]
    if separator != "--" or not command:
        print("usage: _kernel_guard.py RUNDIR [--confine SPEC] [--env JSON] -- KERNEL_COMMAND...", file=sys.stderr)
        return 2
    parent = os.getppid()
    _become_subreaper()
    # The kernel's own parent poller watches the guard (ipykernel exits when JPY_PARENT_PID's process goes).
    env, confine = _confiner(spec)
    try:
        kernel = subprocess.Popen(command, env={**os.environ, **kernel_env, **env, "JPY_PARENT_PID": str(os.getpid())},
                                  preexec_fn=confine)
    except (OSError, subprocess.SubprocessError) as exc:  # the sandbox could not be applied: no kernel, unconfined
        print(f"_kernel_guard: the kernel was not started: {exc}", file=sys.stderr)
        return 3
    # jupyter_client signals the whole group: an interrupt is the kernel's business, a SIGTERM ends the kernel and
    # the guard follows it. Handlers, not SIG_IGN, so that nothing started below inherits an ignored signal.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda *_: None)
    while True:
        ended = _reap()
        if kernel.pid in ended:
            _end_descendants()
            code = ended[kernel.pid]
            return code if code >= 0 else 128 - code
        if os.getppid() != parent:
            _end_descendants()
            if os.path.basename(rundir).startswith(RUNDIR_PREFIX):  # never a folder that is not the kernel's
                shutil.rmtree(rundir, ignore_errors=True)
            return 1
        time.sleep(POLL_S)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
