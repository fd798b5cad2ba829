"""Memory in a whole session: 40 turns in a 2,048-token window; in turn 40 the value printed in turn 2, long since
condensed out of the window, comes back from memory (real kernel; scripted model)."""

from __future__ import annotations

import hashlib
import json
import re
import stat
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from conftest import records, run_interp

from interp.common.events import ModelStats
from interp.config import Config
from interp.models.base import GenParams, Message
from interp.models.script import ScriptModel
from interp.prompts import Prompts
from interp.runtime.kernel import Kernel
from interp.runtime.kernels import Kernels
from interp.runtime.outputs import OutputFolder
from interp.session import Session
from interp.stores.journal import Journal
from interp.stores.recall import memory_path, open_recaller

TOKEN = hashlib.sha256(b"interp-memory").hexdigest()[:10]  # printed by the kernel in turn 2; in no script
QUESTION = "What was the token printed in turn 2?"
CTX = 2048


def requests() -> list[str]:
    return ["Make a secret token" if k == 2 else f"Compute value {k}" for k in range(1, 40)] + [QUESTION]


def replies() -> list[str]:
    """Turns 1-39: a code reply, then a short answer. The turn-2 code computes the token: its value is only in the
    execution's output."""
    out = []
    for k in range(1, 40):
        if k == 2:
            out.append("```python\nimport hashlib\n"
                       "print('token:', hashlib.sha256(b'interp-memory').hexdigest()[:10])\n```")
        else:
            out.append(f"```python\nv{k} = {k} * {k}\nprint('v{k} =', v{k})\n```")
        out.append("Printed.")
    return out


class Reader(ScriptModel):
    """Replies from its script, except to the question of turn 40, which it answers as a model reads its prompt: with
    the token that the prompt shows, or not at all."""

    def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
        if messages[-1]["content"].endswith(QUESTION):
            shown = re.findall(r"token: ([0-9a-f]{10})", "\n".join(m["content"] for m in messages))
            self._replies.insert(0, f"The token was {shown[-1]}." if shown else "I do not know the token.")
        return (yield from super().complete(messages, params))


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernels]:
    kernel = Kernel(cwd=str(tmp_path_factory.mktemp("kernel")))
    kernel.start()
    kernel.wait_ready()
    both = Kernels(kernel)
    yield both
    both.shutdown()


def run_session(folder: Path, kernels: Kernels, recall: int) -> tuple[Reader, Session, Path]:
    model = Reader(replies(), n_ctx=CTX)
    journal = Journal(folder / "session.jsonl")
    prompts = Prompts.load(cwd=str(folder))
    memory = open_recaller(journal.path, prompts.recall, recall)
    session = Session(model, kernels, journal, prompts, Config(yes=True, max_tokens=1024, recall=recall),
                      OutputFolder(folder / "out"), interactive=False, memory=memory)
    for text in requests():
        for _ in session.turn(text):
            pass
        assert session.last_status == "ok"
    if memory is not None:
        memory.close()
    journal.close()
    return model, session, journal.path


def test_turn_40_answers_with_the_value_printed_in_turn_2_from_memory(tmp_path: Path, kernels: Kernels) -> None:
    model, session, journal = run_session(tmp_path, kernels, recall=3)
    executions = records(journal, "execution")
    assert executions[1]["output"].strip() == f"token: {TOKEN}"
    assert sum(c["messages_dropped"] for c in records(journal, "condense")) > 0

    # The model's last prompt: the turn-2 request and output are out of the window, and the token is in it only
    # because the recall note brought it back.
    prompt = model.calls[-1]
    assert prompt[-1]["content"].endswith(QUESTION)  # after the state view: what the kernel holds, read just now
    assert prompt[-1]["content"].startswith("The session holds these")
    holding = [m["content"] for m in prompt if TOKEN in m["content"]]
    assert len(holding) == 1 and holding[0].startswith("Observations from earlier in this session")
    assert not any(m["content"] == "Make a secret token" for m in prompt)
    assert prompt[-2]["content"] == holding[0]
    assert session.history[-1]["content"] == f"The token was {TOKEN}."

    # The journal shows the retrieval: the query, and ids that name the turn-2 output in the memory file.
    recall = records(journal, "recall")[-1]
    assert recall["query"] == '"token" OR "printed" OR "turn" OR "2"'
    assert recall["sources"][0] == "turn 2"
    note, question = [r["content"] for r in records(journal, "user")][-2:]
    assert note == holding[0] and question.endswith(QUESTION)
    memory = open_recaller(journal, Prompts.load().recall, 3)
    assert memory is not None
    stored = [memory.memory.get(i) for i in recall["ids"]]
    assert any(r is not None and r.kind == "output" and TOKEN in r.text for r in stored)
    memory.close()
    assert stat.S_IMODE(memory_path(journal).stat().st_mode) == 0o600


def test_without_recall_the_same_session_cannot_answer(tmp_path: Path, kernels: Kernels) -> None:
    model, session, journal = run_session(tmp_path, kernels, recall=0)
    assert not any(TOKEN in m["content"] for m in model.calls[-1])
    assert session.history[-1]["content"] == "I do not know the token."
    assert records(journal, "recall") == []
    assert not memory_path(journal).exists()


def test_the_cli_session_recalls_and_journals_it(tmp_path: Path, env: dict[str, str]) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([*replies(), f"The token was {TOKEN}."]))
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--plain", "--ctx", str(CTX), "--model", f"script:{script}", "--transcript",
                         str(journal)], env=env, cwd=tmp_path, stdin="\n".join(requests()) + "\n")
    assert result.returncode == 0, result.stderr
    assert "Recalled 3 earlier observations (turn 2)." in result.stderr
    recall = records(journal, "recall")[-1]
    assert recall["sources"] == ["turn 2", "turn 2", "turn 2"]
    note, question = records(journal, "user")[-2:]
    assert question["content"].endswith(QUESTION)
    assert note["kind"] == "note" and f"token: {TOKEN}" in note["content"]


def test_a_damaged_memory_file_is_named_in_one_line_and_the_session_goes_on(tmp_path: Path,
                                                                            env: dict[str, str]) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["Hi."]))
    journal = tmp_path / "j.jsonl"
    memory_path(journal).write_bytes(b"garbage" * 1000)
    result = run_interp(["--model", f"script:{script}", "--transcript", str(journal), "hello"], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "the memory" in line]
    assert "j.memory.sqlite is damaged" in line and "remove it" in line and "Recall is off" in line
    assert records(journal, "assistant")[-1]["content"] == "Hi."
    assert memory_path(journal).read_bytes() == b"garbage" * 1000  # not overwritten: the user decides
    quiet = run_interp(["--recall", "0", "--model", f"script:{script}", "--transcript", str(journal), "hello"],
                       env=env, cwd=tmp_path)
    assert quiet.returncode == 0 and "the memory" not in quiet.stderr
