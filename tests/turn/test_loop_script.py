"""The whole loop (CLI, session, real kernel, journal, view) driven by a scripted model."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_interp, run_scripted, write_script

FAILING = "Let me compute it.\n```python\nprint(total_sum)\n```"
WORKING = "Fixed:\n```python\ntotal_sum = sum(range(1, 101))\nprint(total_sum)\n```"


def test_error_is_fed_back_and_the_second_attempt_works(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [FAILING, WORKING, "The sum is 5050."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "-c", "sum 1..100"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "5050" in result.stdout
    assert all("type" in r and "ts" in r for r in records(journal))
    executions = records(journal, "execution")
    assert [e["status"] for e in executions] == ["error", "ok"]
    assert "NameError" in executions[0]["error"] and "total_sum" in executions[0]["error"]
    assert "\x1b[" not in executions[0]["error"]
    assert executions[1]["output"].strip() == "5050"
    calls = records(journal, "model_call")
    assert len(calls) == 3
    assert calls[1]["input_tail"]["role"] == "user"
    assert "NameError" in calls[1]["input_tail"]["content"]
    assert "5050" in calls[2]["input_tail"]["content"]
    assert records(journal, "assistant")[-1]["content"] == "The sum is 5050."


def test_the_model_reads_the_failing_line_and_its_neighbours_once(tmp_path: Path, env: dict[str, str]) -> None:
    """The real kernel's traceback of an error inside a generator: the user sees it whole; the model reads the
    failing line with the lines next to it, once (not the generator's frame repeating it)."""
    code = "import re\nfirst = 1\nsecond = 2\n\ntotal = sum(int(d) for d in ['1h', '2'])\nprint(total)"
    script = write_script(tmp_path, [f"```python\n{code}\n```", "Stopped."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "--max-attempts", "1",
                         "add them"], env=env, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    error = records(journal, "execution")[0]["error"]
    assert "<genexpr>" in error and "first = 1" in error
    told = next(r["content"] for r in records(journal, "user") if r["kind"] == "feedback")
    assert told.count("total = sum(int(d) for d in ['1h', '2'])") == 1 and "<genexpr>" not in told
    assert "second = 2" not in told and "first = 1" not in told and "print(total)" in told
    assert "ValueError: invalid literal for int() with base 10: '1h'" in told


def test_variables_survive_across_piped_turns(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [
        "```python\nsecret = 6 * 7\n```", "Defined.",
        "```python\nprint(secret + 1)\n```", "It is 43.",
    ])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)],
                        env=env, cwd=tmp_path, stdin="define secret\nuse secret\n")
    assert result.returncode == 0, result.stderr
    assert [r.get("typed", r["content"]) for r in records(journal, "user")][::2] == ["define secret", "use secret"]
    assert "- secret: int, 42" in records(journal, "user")[2]["content"]  # told what the session holds
    executions = records(journal, "execution")
    assert [e["status"] for e in executions] == ["ok", "ok"]
    assert executions[1]["output"].strip() == "43"
    assert "43" in result.stdout


def test_attempts_bound_ends_the_turn_with_exit_1(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [f"```python\nraise ValueError('try {i}')\n```" for i in range(6)])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "--max-attempts", "2",
                         "do it"], env=env, cwd=tmp_path)
    assert result.returncode == 1
    assert "2 failed attempts" in result.stderr
    assert [e["status"] for e in records(journal, "execution")] == ["error", "error"]
    assert records(journal, "turn_end")[-1]["status"] == "attempts"


def test_without_terminal_and_without_y_code_is_not_run(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```python\nopen('made.txt', 'w').write('x')\n```"])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["--model", f"script:{script}", "--transcript", str(journal), "make a file"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 1
    assert "pass -y" in result.stderr
    assert not (tmp_path / "made.txt").exists()
    assert records(journal, "execution")[0]["status"] == "skipped"


def test_shell_block_shares_the_working_directory(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "sub").mkdir()
    script = write_script(tmp_path, [
        "```bash\ncd sub && echo hello > note.txt\n```",
        "```python\nimport os\nprint(os.path.basename(os.getcwd()), open('note.txt').read().strip())\n```",
        "done",
    ])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "go"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert records(journal, "execution")[1]["output"].strip() == "sub hello"


def test_failing_shell_command_is_an_error(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, ["```sh\nls /no/such/folder\n```", "It does not exist."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "list"],
                        env=env, cwd=tmp_path)
    execution = records(journal, "execution")[0]
    assert execution["status"] == "error"
    assert "exit status 2" in execution["error"]
    assert "No such file" in execution["output"]
    assert result.returncode == 1


def test_a_seed_gives_each_model_call_its_own_fixed_seed() -> None:
    from interp.models.base import GenParams, Seeded, complete_text
    from interp.models.script import ScriptModel

    script = ScriptModel(["a", "b", "c"])
    for model, seeds in ((Seeded(script, 40), [41, 42]), (Seeded(script), [None])):
        for _ in seeds:
            complete_text(model, [{"role": "user", "content": "hi"}], GenParams(max_tokens=8, temperature=0.5))
        assert model.calls == len(seeds) and model.name == "script"
    assert [p.seed for p in script.params] == [41, 42, None]


def test_a_counted_model_adds_up_its_decoding() -> None:
    from collections.abc import Generator

    from interp.common.events import ModelStats
    from interp.models.base import GenParams, Message, Seeded, complete_text, stop_early
    from interp.models.script import ScriptModel

    class Timed(ScriptModel):
        """Each reply decoded at 20 tokens a second, its first token aside."""

        def complete(self, messages: list[Message], params: GenParams) -> Generator[str, None, ModelStats]:
            yield from super().complete(messages, params)
            return ModelStats(completion_tokens=11, decode_tps=20.0)

    params = GenParams(max_tokens=8, temperature=0.5)
    model = Seeded(Timed(["one two three", "four five six"]))
    complete_text(model, [{"role": "user", "content": "hi"}], params)
    assert (model.decoded, model.decode_s) == (10, 0.5)
    stream = model.complete([{"role": "user", "content": "hi"}], params)
    assert next(stream)
    assert stop_early(stream, "cut").decode_tps == 20.0  # a reply stopped early counts what it decoded
    assert (model.calls, model.decoded, model.decode_s) == (2, 20, 1.0)
    plain = Seeded(ScriptModel(["a"]))  # figures without a speed add nothing
    complete_text(plain, [{"role": "user", "content": "hi"}], params)
    assert (plain.decoded, plain.decode_s) == (0, 0.0)


def test_an_answer_that_restates_the_output_as_unfenced_code_ends_the_turn(tmp_path: Path, env: dict[str, str]) -> None:
    """Real kernel: the reply `print('HELLO WORLD')` after a run printed it is the answer; nothing runs again, and no
    note about typed text sends the model after another version."""
    replies = ["```python\nprint('hello world'.upper())\n```", "print('HELLO WORLD')", "print('Hello world')"]
    result, told = run_scripted(tmp_path, env, replies, "Print 'hello world' in upper case.")
    assert result.returncode == 0, result.stderr
    executions = records(tmp_path / "j.jsonl", "execution")
    assert [e["output"] for e in executions] == ["HELLO WORLD\n"] and len(told) == 2, told
    assert "Taking this part of the reply" not in result.stderr
