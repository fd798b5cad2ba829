"""The eval starts every task from the same model cache: the system's prefix, warmed before the task's first call, so
that what a task samples does not depend on the tasks run before it (scripts/eval.py, `_same_start`)."""

from __future__ import annotations

import sys
from collections.abc import Generator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import eval as evaluation  # noqa: E402
from eval_tasks import TASKS  # noqa: E402

from interp.events import ModelStats  # noqa: E402
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
