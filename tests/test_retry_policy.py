"""The loop's policy for small models, driven by a scripted model through the real kernel: stuck detection, the
reflection call, rising temperature, empty replies, code found outside fences, replies caught in a loop."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_interp, write_script

FAIL = "```python\nraise ValueError('always')\n```"


def run(tmp_path: Path, env: dict[str, str], replies: list[str], *args: str):
    script = write_script(tmp_path, replies)
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), *args, "do it"],
                        env=env, cwd=tmp_path)
    return result, journal


def test_same_code_failing_the_same_way_three_times_stops_the_turn(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = run(tmp_path, env, [FAIL, FAIL, FAIL, "never reached"], "--max-attempts", "9")
    assert result.returncode == 1
    assert "same failing code 3 times" in result.stderr
    assert records(journal, "turn_end")[-1]["status"] == "stuck"
    assert len(records(journal, "execution")) == 3
    feedback = [r["content"] for r in records(journal, "user") if r.get("kind") == "feedback"]
    assert "different, simpler way" not in feedback[0]
    assert "different, simpler way" in feedback[1]


def test_a_second_failure_in_a_row_asks_for_the_cause_and_the_retry_sees_it(tmp_path: Path,
                                                                             env: dict[str, str]) -> None:
    replies = ["```python\nprint(undefined_a)\n```", "```python\nprint(undefined_b)\n```",
               "The variable was never defined. Then more text.", "```python\nprint('fixed')\n```", "Fixed."]
    result, journal = run(tmp_path, env, replies, "--reflect")
    assert result.returncode == 0, result.stderr
    assert records(journal, "reflection")[0]["cause"] == "The variable was never defined"
    calls = records(journal, "model_call")
    assert "Likely cause: The variable was never defined" in calls[2]["input_tail"]["content"]
    assert [e["status"] for e in records(journal, "execution")] == ["error", "error", "ok"]


def test_no_reflection_on_the_last_allowed_attempt(tmp_path: Path, env: dict[str, str]) -> None:
    replies = ["```python\nprint(undefined_a)\n```", "```python\nprint(undefined_b)\n```", "unused"]
    result, journal = run(tmp_path, env, replies, "--reflect", "--max-attempts", "2")
    assert records(journal, "turn_end")[-1]["status"] == "attempts"
    assert records(journal, "reflection") == []


def test_identical_blocks_in_one_reply_run_once_and_a_repeat_of_working_code_ends_well(
    tmp_path: Path, env: dict[str, str]
) -> None:
    works = "```python\nprint('works')\n```"
    replies = [f"{works}\n{works}", "```python\nprint(missing)\n```", works]
    result, journal = run(tmp_path, env, replies)
    assert [e["status"] for e in records(journal, "execution")] == ["ok", "error"]
    assert records(journal, "turn_end")[-1]["status"] == "ok"
    assert result.returncode == 0


def test_a_failed_shell_block_asks_for_a_shell_fix(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = run(tmp_path, env, ["```bash\nls --no-such-flag\n```", "ok"])
    assert "```bash block" in records(journal, "model_call")[1]["input_tail"]["content"]


def test_temperature_rises_with_each_failure_in_a_row(tmp_path: Path, env: dict[str, str]) -> None:
    from interp.models.base import GenParams
    from interp.session import Session, Settings

    session = Session.__new__(Session)
    session.settings = Settings(gen=GenParams(temperature=0.2))
    assert [round(session._retry_params(n).temperature, 2) for n in range(6)] == [0.2, 0.4, 0.6, 0.8, 1.0, 1.0]


def test_an_empty_reply_is_not_an_answer(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = run(tmp_path, env, ["", "```python\nprint(6 * 7)\n```", "42."])
    assert result.returncode == 0, result.stderr
    assert records(journal, "execution")[0]["output"].strip() == "42"
    assert "empty" in records(journal, "model_call")[1]["input_tail"]["content"]


def test_code_without_fences_is_run_and_shown(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = run(tmp_path, env, ["Sure:\nx = 6 * 7\nprint(x)\nThat prints it.", "42."])
    assert result.returncode == 0, result.stderr
    assert "Taking this part of the reply as python code" in result.stderr
    assert records(journal, "execution")[0]["output"].strip() == "42"


def test_a_reply_caught_in_a_loop_is_cut(tmp_path: Path, env: dict[str, str]) -> None:
    looping = "```python\nprint('" + "-l " * 1000 + "')\n```"
    result, journal = run(tmp_path, env, [looping, "```python\nprint('fixed')\n```", "Fixed."])
    assert result.returncode == 0, result.stderr
    assert "repeating itself" in result.stderr
    first = records(journal, "assistant")[0]["content"]
    assert first.startswith("```python\nprint('-l -l") and len(first) < 600
    assert [e["status"] for e in records(journal, "execution")] == ["error", "ok"]
