from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import psutil
import pytest

from interp.common.events import OutputChunk
from interp.common.returning import Returning
from interp.models.catalog import CATALOG
from interp.runtime.kernel import Kernel
from interp.runtime.kernel_api import RunResult
from interp.stores import journal

INTERP = [sys.executable, "-m", "interp"]
# The fast model, for tests of plumbing where answer quality does not matter; the default (a 1.1 GB coder) is used
# only where a test needs a good model.
SMOLLM2 = CATALOG["smollm2-135m"].shipped_file()


@pytest.fixture(autouse=True)
def _no_developer_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's INTERP_* variables (INTERP_CONFIG, INTERP_MODELS_DIR, ...) stay out of every test: in-process
    code reads os.environ too, not only the interp processes that `env` prepares."""
    for key in [k for k in os.environ if k.startswith("INTERP_")]:
        monkeypatch.delenv(key)
    for key in ("COLUMNS", "LINES"):  # set by pytest-xdist's workers; a terminal test's size is its pty's
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment for an interp process: its data (journals, input history) in a scratch folder, none of the
    developer's INTERP_* settings, and SmolLM2 as the model unless a test asks for another."""
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("INTERP_") and k not in ("NO_COLOR", "COLUMNS", "LINES")}
    e["XDG_DATA_HOME"] = str(tmp_path / "data")
    e["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    e["INTERP_MODEL"] = "smollm2-135m"
    return e


def write_script(folder: Path, replies: list[str]) -> Path:
    path = folder / "script.json"
    path.write_text(json.dumps(replies))
    return path


def run_interp(args: list[str], *, env: dict[str, str], cwd: Path, stdin: str | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*INTERP, *args], input=stdin if stdin is not None else "", capture_output=True, text=True,
        env=env, cwd=cwd, timeout=timeout,
    )


def run_scripted(folder: Path, env: dict[str, str], replies: list[str],
                 request: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """`interp -y` in `folder` on one request, the model's replies fixed in advance, the kernel real: the result and
    what the model was told before each of its replies (the last message of each call)."""
    script = write_script(folder, replies)
    journal_path = folder / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal_path), request],
                        env=env, cwd=folder)
    return result, [call["input_tail"]["content"] for call in records(journal_path, "model_call")]


def records(path: Path, type_: str | None = None) -> list[dict]:
    items = journal.read(path)
    return [r for r in items if type_ is None or r["type"] == type_]


def error_of(kernel: Kernel, code: str) -> str:
    """The error of code that must fail in the kernel."""
    run = kernel.execute(code)
    try:
        while True:
            next(run)
    except StopIteration as stop:
        assert stop.value.error, f"{code!r} did not fail"
        return stop.value.error


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    """A real ipykernel shared by a module's tests."""
    k = Kernel(cwd=str(tmp_path_factory.mktemp("kernel")))
    k.start()
    k.wait_ready()
    yield k
    k.shutdown()


def run(kernel: Kernel, code: str, **kw) -> tuple[str, RunResult]:
    execution = Returning(kernel.execute(code, **kw))
    out = "".join(item.text for item in execution if isinstance(item, OutputChunk))
    return out, execution.value


def spawn(args: list[str], env: dict[str, str], cwd: Path) -> pexpect.spawn:
    env = {**env, "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1", "EDITOR": "true"}
    return pexpect.spawn(sys.executable, ["-m", "interp", *args], env=env, cwd=str(cwd), encoding="utf-8",
                         timeout=60, dimensions=(40, 120))


def finish(child: pexpect.spawn) -> None:
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fails, rather than hangs, a step that must end (a preview of a file that never stops growing, a FIFO read)."""
    def expired(*_: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def eventually(check: Callable[[], bool], seconds: float = 20) -> bool:
    """Whether `check()` comes true within `seconds`, asked every 50 ms: for what happens soon after a step (a process
    ending, a file going), without a fixed sleep that a loaded machine outlasts."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def gone(pid: int) -> bool:
    """Whether a process has ended (a zombie waiting for its parent counts)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def working_in(folder: Path) -> list[int]:
    """The processes whose working directory is `folder` (a kernel started there)."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if Path(proc.cwd()) == folder:
                found.append(proc.pid)
        except (psutil.Error, OSError):
            continue
    return found
