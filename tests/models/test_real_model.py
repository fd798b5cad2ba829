"""The real path: the embedded SmolLM2-135M model in-process, the real kernel, the real journal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SMOLLM2, records, run_interp

pytestmark = pytest.mark.model


def test_one_shot_request_runs_code_and_writes_a_valid_journal(tmp_path: Path, env: dict[str, str]) -> None:
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--transcript", str(journal), "--max-tokens", "256", "-c",
                         "Print the sum of the integers from 1 to 100."], env=env, cwd=tmp_path, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    lines = journal.read_text().splitlines()
    assert all(isinstance(json.loads(line), dict) for line in lines)
    session = records(journal, "session")[0]
    assert session["model"] and session["prompts"] == "small"  # 135M parameters: prompts/small/
    calls = records(journal, "model_call")
    assert calls and all(c["prompt_tokens"] > 0 and c["completion_tokens"] > 0 for c in calls)
    assert calls[0]["input_tail"] == {"role": "user", "content": "Print the sum of the integers from 1 to 100."}
    executions = records(journal, "execution")
    assert executions, "the model's reply should contain a code block that runs in the kernel"
    assert executions[0]["code"].strip()
    assert executions[0]["status"] in ("ok", "error")
    assert "--- running python" in result.stdout


def test_later_calls_reuse_the_kv_cache(tmp_path: Path, env: dict[str, str]) -> None:
    journal = tmp_path / "j.jsonl"
    run_interp(["-y", "--transcript", str(journal), "--max-tokens", "128"], env=env, cwd=tmp_path,
               stdin="Print hello.\nPrint the number 7.\n", timeout=300)
    calls = records(journal, "model_call")
    assert len(calls) >= 2
    assert 0 < calls[0]["cached_tokens"] < calls[0]["prompt_tokens"]  # the fixed prefix, put in the cache at start
    assert all(c["cached_tokens"] > 0.5 * c["prompt_tokens"] for c in calls[1:])


@pytest.mark.parametrize("mode", ["cut", "summary"])
def test_a_long_session_on_a_small_window_condenses_and_never_overflows(
    tmp_path: Path, env: dict[str, str], mode: str
) -> None:
    journal = tmp_path / "j.jsonl"
    turns = 20
    requests = "".join(f"Print {n} plus 3.\n" for n in range(1, turns + 1))
    result = run_interp(["-y", "--transcript", str(journal), "--ctx", "768", "--max-tokens", "64", "--seed", "1",
                         "--max-attempts", "1", "--condense", mode], env=env, cwd=tmp_path, stdin=requests, timeout=600)
    assert "Traceback" not in result.stderr
    assert "The model failed" not in result.stderr
    condensations = records(journal, "condense")
    # A turn adds at least a request, a reply and its output (about 30 tokens): the history passes the window at
    # least twice in 20 turns however short the replies are.
    assert len(condensations) >= 2, f"only {len(condensations)} condensations"
    assert all(c["mode"] == mode and c["tokens_after"] < c["tokens_before"] for c in condensations)
    # A summary that came back empty, or no shorter than what it replaced, falls back to a cut: the journal says
    # which happened, and what was returned.
    assert all(not c["summarized"] or (mode == "summary" and c["summary"].strip()) for c in condensations)
    if mode == "summary":
        assert any(c["summarized"] for c in condensations), condensations
    assert result.stderr.count("History condensed") == len(condensations)
    calls = records(journal, "model_call")
    assert all(c["prompt_tokens"] + c["completion_tokens"] <= 768 for c in calls)
    assert len(records(journal, "turn_end")) == turns
    # The fixed prefix stays in the cache through every condensation: the summary call, sent with a system prompt of
    # its own, once evicted it, and the next call evaluated all of it again.
    prefix = calls[0]["cached_tokens"]
    assert prefix > 0 and all(c["cached_tokens"] >= prefix for c in calls), [c["cached_tokens"] for c in calls]


def test_ctrl_c_stops_a_long_prompt_evaluation_and_the_next_call_works(capfd: pytest.CaptureFixture) -> None:
    import os
    import signal
    import threading

    from interp.models.base import GenParams, complete_text
    from interp.models.llama import LlamaModel

    model = LlamaModel(SMOLLM2, n_ctx=8192)
    messages = [{"role": "user", "content": "Summarize: " + "the quick brown fox jumps. " * 1200}]
    prompt_tokens = len(model.tokens(messages))
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN where a shell started the process in the background
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        complete_text(model, messages, GenParams(max_tokens=8, temperature=0.2))
    assert model.llm.n_tokens < prompt_tokens, "the evaluation should stop part way through the prompt"
    assert signal.getsignal(signal.SIGINT) is before
    text, stats = complete_text(model, [{"role": "user", "content": "Say hello."}],
                                GenParams(max_tokens=8, temperature=0.2))
    assert stats.completion_tokens > 0 and text
    assert capfd.readouterr().err == ""
    model.close()


def test_llama_cpp_asks_whether_to_abort_while_the_prompt_is_evaluated_not_at_each_token() -> None:
    from interp.models.base import GenParams, complete_text
    from interp.models.llama import LlamaModel
    from interp.models.llama_load import import_llama_cpp

    model = LlamaModel(SMOLLM2, n_ctx=512)
    asked = 0

    def counted(_data: object) -> bool:
        nonlocal asked
        asked += 1
        return False

    model._abort_cb = import_llama_cpp().ggml_abort_callback(counted)
    messages = [{"role": "user", "content": "Write a short poem about the sea."}]
    counts = []
    for tokens in (4, 40):
        asked = 0
        model.llm.reset()
        complete_text(model, messages, GenParams(max_tokens=tokens, temperature=0.0, ignore_eos=True))
        counts.append(asked)
    assert counts[0] > 0  # asked at each node of the prompt's graph
    assert counts[1] == counts[0]  # 36 more tokens, not one more question
    model.close()


def test_with_seed_a_session_run_again_gets_the_same_replies(tmp_path: Path, env: dict[str, str]) -> None:
    def replies(seed: int, name: str) -> list[str]:
        journal = tmp_path / f"{name}.jsonl"
        result = run_interp(["-y", "--temperature", "1.0", "--seed", str(seed), "--max-tokens", "48", "--transcript",
                             str(journal), "Write a short poem about the sea."], env=env, cwd=tmp_path, timeout=300)
        assert result.returncode in (0, 1), result.stderr
        return [r["content"] for r in records(journal, "assistant")]

    first = replies(5, "first")
    assert first and replies(5, "again") == first
    assert replies(6, "other") != first


def test_a_fixed_seed_repeats_a_sample_and_no_seed_varies() -> None:
    from interp.models.base import GenParams, complete_text
    from interp.models.llama import LlamaModel

    model = LlamaModel(SMOLLM2, n_ctx=512)
    messages = [{"role": "user", "content": "Write a short poem about the sea."}]

    def sample(seed: int | None) -> str:
        return complete_text(model, messages, GenParams(max_tokens=24, temperature=1.0, seed=seed))[0]

    assert sample(11) == sample(11)
    assert len({sample(None) for _ in range(4)}) > 1
    model.close()


def test_a_reply_s_opening_is_read_as_prompt_yielded_first_and_continued() -> None:
    from interp.common.returning import Returning
    from interp.models.base import GenParams, stop_early
    from interp.models.llama import LlamaModel

    model = LlamaModel(SMOLLM2, n_ctx=512)
    messages = [{"role": "user", "content": "Complete add(a, b), which adds two numbers."}]
    opening = '```python\ndef add(a, b):\n    """Add two numbers."""\n'
    run = Returning(model.complete(messages, GenParams(max_tokens=12, temperature=0.0, opening=opening)))
    pieces = list(run)
    assert pieces[0] == opening and len(pieces) > 1
    # The opening went into the prompt as text the reply had written; only what follows it was decoded.
    prompt = model.tokens(messages) + model.llm.tokenize(opening.encode(), add_bos=False, special=False)
    assert model.llm._input_ids.tolist()[:len(prompt)] == prompt
    assert run.value.completion_tokens == 12 and run.value.prompt_tokens == len(prompt)
    # A consumer that wants nothing past the opening stops the call before anything is evaluated.
    evaluated = model.llm.n_tokens
    stream = model.complete(messages, GenParams(max_tokens=12, temperature=0.0, opening=opening))
    assert next(stream) == opening
    assert stop_early(stream, "code").completion_tokens == 0 and model.llm.n_tokens == evaluated
    model.close()


def test_a_session_s_reply_to_a_stub_begins_with_the_stub(tmp_path: Path, env: dict[str, str]) -> None:
    stub = 'def double(x):\n    """Twice x.\n    >>> double(2)\n    4\n    """'
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--transcript", str(journal), "--max-tokens", "24", "--candidates", "0", "--choose", "0",
                         "--max-attempts", "1", f"Complete this function:\n\n```python\n{stub}\n```"],
                        env=env, cwd=tmp_path, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    first = records(journal, "model_call")[0]
    assert first["opening"] is True and first["completion_tokens"] <= 24
    assert records(journal, "assistant")[0]["content"].startswith(f"```python\n{stub}\n")
    assert stub in result.stdout  # shown as the reply's start, as the model's own text would be
