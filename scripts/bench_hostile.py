"""Hostile-code figures through the whole program (scripted model, -y): how long a run lasts at --timeout 3 for a
silent loop, a printing loop and a loop that swallows the interrupt; and, after `kill -9` of interp, how long until
the last process the kernel started (20 `sleep` children, a shell block's bash, a `setsid` daemon) is gone.

    .venv/bin/python scripts/bench_hostile.py [--cap 60]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

LOOPS = {
    "silent loop": "```python\nwhile True:\n    pass\n```",
    "printing loop": "```python\ni = 0\nwhile True:\n    i += 1\n    print(i, flush=True)\n```",
    "swallowing loop": ("```python\nimport time\nwhile True:\n    try:\n        time.sleep(0.5)\n    except:\n"
                        "        pass\n```"),
}
SPAWNER = ("```bash\nfor i in $(seq 20); do sleep 1000 & done\nsetsid sleep 1001 &\n"
           "echo spawned; sleep 1000\n```")


def interp(folder: Path, reply: str, *args: str) -> subprocess.Popen:
    script = folder / "script.json"
    script.write_text(json.dumps([reply, "Done."]))
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "data")}
    return subprocess.Popen([sys.executable, "-m", "interp", "-y", "--plain", "--model", f"script:{script}",
                             "--transcript", str(folder / "j.jsonl"), *args, "go"], cwd=folder, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def timeout_figure(name: str, reply: str, cap: float) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        proc = interp(folder, reply, "--timeout", "3")
        try:
            proc.communicate(timeout=cap)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return f"{name:16} still running after {cap:.0f} s (killed)"
        run = next(json.loads(line) for line in (folder / "j.jsonl").read_text().splitlines()
                   if '"execution"' in line)
        return f"{name:16} {run['duration_s']:6.2f} s   status {run['status']}: {run['error']!r:.90}"


def kill_figure() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        proc = interp(folder, SPAWNER, "--timeout", "0")
        for line in proc.stdout:
            if line.startswith("spawned"):
                break
        time.sleep(0.3)
        me = psutil.Process(proc.pid)
        tree = me.children(recursive=True)
        daemons = [p for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["sleep", "1001"]]
        watched = {p.pid: p for p in [*tree, *daemons]}
        proc.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        proc.wait()
        while time.monotonic() - killed < 30:
            alive = [p for p in watched.values() if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
            if not alive:
                return f"kill -9: {len(watched)} descendants, the last gone {time.monotonic() - killed:.2f} s after"
            time.sleep(0.02)
        for p in alive:
            p.kill()
        return f"kill -9: {len(alive)} of {len(watched)} descendants still running after 30 s (killed by the bench)"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cap", type=float, default=60, help="give up on a run after this many seconds")
    args = p.parse_args()
    for name, reply in LOOPS.items():
        print(timeout_figure(name, reply, args.cap), flush=True)
    print(kill_figure())


if __name__ == "__main__":
    main()
