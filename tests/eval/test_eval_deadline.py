"""The eval's cap on a task's time holds inside a model call: at the deadline it presses Ctrl-C, as a person would,
so a call that shows no event (a long prompt being read) stops there too (scripts/eval_judge.py,
`ctrl_c_at_deadline`)."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import eval as evaluation  # noqa: E402
from eval_judge import Trace, ctrl_c_at_deadline  # noqa: E402
from eval_tasks import TASKS  # noqa: E402

from interp.common.events import ModelStats  # noqa: E402
from interp.models.base import GenParams, Message  # noqa: E402
from interp.models.script import ScriptModel  # noqa: E402


class SilentModel(ScriptModel):
    """A model whose call shows nothing for a minute, as llama.cpp reading a long prompt; it fails the test if
    nothing stops it."""

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        threading.Event().wait(60)
        raise AssertionError("the model call ran on past the task's deadline")
        yield ""  # unreached: it makes complete a generator, as the protocol asks


@pytest.fixture(params=["sigint handled", "sigint ignored"])
def sigint(request: pytest.FixtureRequest) -> Iterator[object]:
    """SIGINT as a foreground process has it, and as a command sent to the background (`&`, nohup) inherits it:
    ignored. The cap must hold either way, and leave the disposition as it found it."""
    before = signal.getsignal(signal.SIGINT)
    if request.param == "sigint ignored":
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    inherited = signal.getsignal(signal.SIGINT)
    try:
        yield inherited
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("system", ["interp", "naive"])
def test_a_model_call_that_shows_nothing_stops_at_the_tasks_deadline(tmp_path: Path, system: str,
                                                                     sigint: object) -> None:
    task = next(t for t in TASKS if t.name == "sum_1_100")
    cfg = evaluation.Config(GenParams(max_tokens=64, temperature=0.2), 1.0, 30.0, seed=7)
    result = evaluation.run_task("simple", system, task, SilentModel([]), cfg, tmp_path / "root")
    assert signal.getsignal(signal.SIGINT) == sigint
    assert result.timed_out and not result.passed and result.error is None
    assert result.turn_status == ["timeout"]
    if system == "interp":
        records = [json.loads(line) for line in (Path(result.folder) / "journal.jsonl").read_text().splitlines()]
        assert any("interrupt" in json.dumps(record) for record in records), records


def test_work_done_before_the_deadline_is_not_interrupted_later() -> None:
    trace = Trace(1, deadline=time.monotonic() + 0.3)
    with ctrl_c_at_deadline(trace):
        trace.turn_status.append("ok")
    while time.monotonic() < trace.deadline + 0.3:  # past the deadline: the press was called off
        time.sleep(0.05)
    assert not trace.timed_out and trace.turn_status == ["ok"]


def test_a_ctrl_c_that_is_not_the_deadlines_propagates() -> None:
    trace = Trace(1, deadline=time.monotonic() + 60)
    with pytest.raises(KeyboardInterrupt), ctrl_c_at_deadline(trace):
        raise KeyboardInterrupt
    assert not trace.timed_out
