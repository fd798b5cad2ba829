"""The eval starts every task from the same model cache: the system's prefix, warmed before the task's first call, so
that what a task samples does not depend on the tasks run before it (scripts/eval.py, `_same_start`)."""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import eval as evaluation  # noqa: E402
from eval_tasks import TASKS  # noqa: E402

from interp.common.events import ModelStats  # noqa: E402
from interp.models.base import GenParams, Message  # noqa: E402
from interp.models.script import ScriptModel  # noqa: E402
from interp.prompts import Prompts  # noqa: E402


class WarmedModel(ScriptModel):
    """A scripted model that notes each warming of its cache (the prefix) and each call, in order."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies)
        self.log: list[tuple[str, list[Message]]] = []

    def warm(self, prefix: list[Message]) -> str:
        self.log.append(("warm", prefix))
        return "loaded"

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        self.log.append(("call", list(messages)))
        return (yield from super().complete(messages, params))


@pytest.mark.parametrize("system", ["interp", "naive"])
def test_each_task_starts_by_warming_its_systems_prefix(tmp_path: Path, system: str) -> None:
    tasks = {t.name: t for t in TASKS}
    answers = ["It is 5050.", "It is 3628800."] if system == "interp" else ["", ""]  # naive ends on clean code
    model = WarmedModel([r for r in ["```python\nprint(sum(range(1, 101)))\n```", answers[0],
                                     "```python\nimport math\nprint(math.factorial(10))\n```", answers[1]] if r])
    cfg = evaluation.Config(GenParams(max_tokens=64, temperature=0.2), 60.0, 30.0, seed=7)
    for name in ("sum_1_100", "factorial_10"):
        result = evaluation.run_task("simple", system, tasks[name], model, cfg, tmp_path / "root")
        assert result.passed, result
    warmed = [i for i, (what, _) in enumerate(model.log) if what == "warm"]
    assert len(warmed) == 2 and warmed[0] == 0 and model.log[warmed[1] - 1][0] == "call"  # one before each task
    prefix = model.log[0][1]
    folder = str(tmp_path / "root" / "work")
    expected = Prompts.load(cwd=folder).prefix() if system == "interp" else \
        [{"role": "system", "content": evaluation.NAIVE_PROMPT}]
    assert prefix == expected == model.log[warmed[1]][1]
    first_call = model.log[1][1]
    assert first_call[:len(prefix)] == prefix  # the task's first prompt begins with what was warmed


def test_a_paired_run_in_the_same_folder_keeps_the_other_systems_journals(tmp_path: Path) -> None:
    task = {t.name: t for t in TASKS}["sum_1_100"]
    cfg = evaluation.Config(GenParams(max_tokens=64, temperature=0.2), 60.0, 30.0, seed=7)
    code = "```python\nprint(sum(range(1, 101)))\n```"
    root = evaluation._root(tmp_path, 7)
    assert evaluation.run_task("simple", "interp", task, ScriptModel([code, "It is 5050."]), cfg, root).passed
    stale = root / "simple" / "interp" / task.name / "stale.txt"
    stale.write_text("from a run before")
    root = evaluation._root(tmp_path, 7)  # the naive loop's run, then interp's task again, in the same folder
    assert evaluation.run_task("simple", "naive", task, ScriptModel([code]), cfg, root).passed
    assert (root / "simple" / "interp" / task.name / "work").is_dir()
    assert evaluation.run_task("simple", "interp", task, ScriptModel([code, "It is 5050."]), cfg, root).passed
    assert (root / "simple" / "naive" / task.name / "work").is_dir()
    assert not stale.exists()  # the task that ran again has only its new run's files
