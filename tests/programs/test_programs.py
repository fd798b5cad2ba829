"""interp run FILE: the example programs run end to end (CLI, real kernel, journal) on a scripted model."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import records, run_interp, write_script

EXAMPLES = Path(__file__).resolve().parents[2] / "prompts" / "programs"
ROUND = "```python\nrounds += 1\nprint(f'rounds = {rounds}')\n```"
COMPUTE = "```python\ntotal = sum(i * i for i in range(1, 11))\nrounds = 0\nprint(f'total = {total}')\n```"


def run_program(tmp_path: Path, env: dict[str, str], program: Path, replies: list[str], *flags: str,
                stdin: str = "") -> tuple[object, Path]:
    script = write_script(tmp_path, replies)
    journal = tmp_path / "j.jsonl"
    result = run_interp(["run", str(program), "-y", "--model", f"script:{script}", "--transcript", str(journal),
                         *flags], env=env, cwd=tmp_path, stdin=stdin)
    return result, journal


def check(condition: str, choice: str) -> list[str]:
    return [f"```python\nprint({condition})\n```", choice]


def steps(journal: Path) -> list[dict]:
    return records(journal, "program_step")


def test_core_program_computes_branches_loops_three_times_and_ends(tmp_path: Path, env: dict[str, str]) -> None:
    # A decision is a check (code the model writes, run in the kernel) and the choice.
    replies = [
        COMPUTE, "The total is 385.", *check("total > 100", "Yes"),
        ROUND, "rounds is 1.", *check("rounds >= 3", "No"),
        ROUND, "rounds is 2.", *check("rounds >= 3", "No"),
        ROUND, "rounds is 3.", *check("rounds >= 3", "Yes"),
        "```python\nprint(total, rounds)\n```", "Done.",
    ]
    result, journal = run_program(tmp_path, env, EXAMPLES / "rounds.core", replies)
    assert result.returncode == 0, result.stderr
    taken = [(s["name"], s.get("branch")) for s in steps(journal)]
    assert taken == [("Compute", None), ("Big", "Yes"), ("Round", None), ("Enough", "No"), ("Round", None),
                     ("Enough", "No"), ("Round", None), ("Enough", "Yes"), ("Report", None)]
    assert [s["output"] for s in steps(journal) if s["name"] == "Round"] == [f"rounds = {n}" for n in (1, 2, 3)]
    assert [s["output"] for s in steps(journal) if s["kind"] == "branch"] == ["True", "False", "False", "True"]
    assert steps(journal)[-1]["output"] == "385 3"  # the kernel kept total and rounds across steps
    assert records(journal, "program_end")[0]["status"] == "ok"
    # Observations come back from memory once they have left the progress section of the prompt.
    recalls = records(journal, "recall")
    assert recalls and recalls[-1]["step"] == "Report"
    report_prompt = records(journal, "user")[-2]["content"]
    assert "Observations from earlier steps:" in report_prompt and "385" in report_prompt


def test_a_decision_answer_outside_its_conditions_is_an_error_not_a_guess(tmp_path: Path,
                                                                          env: dict[str, str]) -> None:
    replies = [COMPUTE, "ok", "It is big.", "Probably yes"]  # no code: the check is the reply itself
    result, journal = run_program(tmp_path, env, EXAMPLES / "rounds.core", replies)
    assert result.returncode == 1
    assert "'Probably yes' where one of Yes, No is chosen" in result.stderr
    assert [s["name"] for s in steps(journal)] == ["Compute"]
    assert records(journal, "program_end")[0]["status"] == "failed"


def test_max_steps_stops_a_loop_with_a_clear_message(tmp_path: Path, env: dict[str, str]) -> None:
    replies = [COMPUTE, "ok", *check("total > 100", "Yes")]
    replies += [ROUND, "ok", *check("rounds >= 3", "No")] * 5
    result, journal = run_program(tmp_path, env, EXAMPLES / "rounds.core", replies, "--max-steps", "6")
    assert result.returncode == 1
    assert "rounds.core:5: stopped before step 'Round'" in result.stderr
    assert "--max-steps 6" in result.stderr
    assert len(steps(journal)) == 6
    assert records(journal, "program_end")[0]["status"] == "steps"


def test_pdl_chatbot_reads_the_user_from_a_pipe_until_quit(tmp_path: Path, env: dict[str, str]) -> None:
    replies = ["A language salad is a mix of languages in one text.\n\nIgnored after the stop.",
               "Words of many tongues\nmixed in one bowl"]
    stdin = "What is a language salad?\nSay it as a poem!\nquit\nnever read\n"
    result, journal = run_program(tmp_path, env, EXAMPLES / "chatbot.pdl", replies, stdin=stdin)
    assert result.returncode == 0, result.stderr
    reads = [s["output"] for s in steps(journal) if s["kind"] == "read"]
    assert reads == ["What is a language salad?", "Say it as a poem!", "quit"]
    models = [s for s in steps(journal) if s["kind"] == "model"]
    assert [m["output"] for m in models] == ["A language salad is a mix of languages in one text.",
                                             "Words of many tongues\nmixed in one bowl"]
    # The second call sees the first exchange and the follow-up question as its context.
    second = json.loads(json.dumps(records(journal, "model_call")[1]["input_tail"]))
    assert second == {"role": "user", "content": "Say it as a poem!"}
    assert "PDL model blocks run on this session's model" in result.stderr
    assert "Enter a query" in result.stdout
    assert "Ignored after the stop" not in result.stdout


def test_pdl_for_loop_builds_few_shot_examples(tmp_path: Path, env: dict[str, str]) -> None:
    reply = "```def remove_occ(s, ch):\n    return s.replace(ch, '', 1)```\n"
    result, journal = run_program(tmp_path, env, EXAMPLES / "fewshot.pdl", [reply + "Q: more"])
    assert result.returncode == 0, result.stderr
    prompt = next(s["input"] for s in steps(journal) if s["kind"] == "model")
    assert "Q: Write a Python function that returns the square of a number." in prompt
    assert "A: ```def reverse(s):\n    return s[::-1]```" in prompt
    assert prompt.rstrip().endswith("from a string.\nA:")
    assert [s["iteration"] for s in steps(journal) if s["kind"] == "loop"] == [1, 2]
    assert "Q: more" not in steps(journal)[-2]["output"]  # the stop sequence ends the reply


def test_pdl_code_blocks_with_def_and_a_json_answer_checked_by_spec(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = run_program(tmp_path, env, EXAMPLES / "tennis.pdl",
                                  ['```json\n{"balls": 11, "unit": "tennis balls"}\n```'])
    assert result.returncode == 0, result.stderr
    assert "Roger started with 5 tennis balls.\n2 cans of 3 tennis balls each is " in result.stdout
    assert "6 tennis balls.\nThe answer is " in result.stdout
    assert "Checked: 11 tennis balls." in result.stdout
    codes = [s for s in steps(journal) if s["kind"] == "code"]
    assert [(c["input"], c["output"]) for c in codes] == [("result = 2 * 3", "6"), ("result = 5 + 6", "11")]


def test_pdl_spec_violation_names_the_file_and_line_and_exits_2(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = run_program(tmp_path, env, EXAMPLES / "tennis.pdl",
                                  ['{"balls": "eleven", "unit": "tennis balls"}'])
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if "tennis.pdl" in line]
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith(f"interp: {EXAMPLES / 'tennis.pdl'}:16: spec violated:")
    assert "'eleven' is not of type 'integer'" in lines[0]
    assert records(journal, "program_end")[0]["status"] == "invalid"


def test_pdl_output_that_is_not_json_is_a_runtime_error_at_its_line(tmp_path: Path, env: dict[str, str]) -> None:
    result, _ = run_program(tmp_path, env, EXAMPLES / "tennis.pdl", ["eleven balls"])
    assert result.returncode == 2
    assert f"{EXAMPLES / 'tennis.pdl'}:16: parser json: the output is not JSON" in result.stderr


def test_a_read_past_the_end_of_the_input_stops_the_program(tmp_path: Path, env: dict[str, str]) -> None:
    result, journal = run_program(tmp_path, env, EXAMPLES / "chatbot.pdl", ["An answer."],
                                  stdin="What is a language salad?\n")
    assert result.returncode == 0
    assert "chatbot.pdl:11: the input ended at this read" in result.stderr
    assert records(journal, "program_end")[0]["status"] == "ended"


def test_variables_from_the_command_line(tmp_path: Path, env: dict[str, str]) -> None:
    program = tmp_path / "hello.pdl"
    program.write_text("text:\n- 'Hello, ${ name }!\\n'\n- lang: python\n  code: print(${ n } * 2)\n")
    result, _ = run_program(tmp_path, env, program, [], "--var", "name=Ada", "--var", "n=21")
    assert result.returncode == 0, result.stderr
    assert "Hello, Ada!" in result.stdout and "42" in result.stdout


def test_pdl_if_num_iterations_join_regex_and_contribute(tmp_path: Path, env: dict[str, str]) -> None:
    program = tmp_path / "blocks.pdl"
    program.write_text("""\
text:
- def: squares
  contribute: []
  repeat:
    lang: python
    code: |
      k = globals().get("k", 0) + 1
      result = k * k
  num_iterations: 3
  join: {as: array}
- "squares ${ squares }\\n"
- if: ${ squares | sum > 10 }
  then: "big\\n"
  else: "small\\n"
- def: found
  model: any
  parser: {regex: "(?P<word>[a-z]+) (?P<n>[0-9]+)"}
  contribute: []
- "word ${ found.word } n ${ found.n }\\n"
""")
    result, journal = run_program(tmp_path, env, program, ["It says: apples 42."])
    assert result.returncode == 0, result.stderr
    assert "squares [1, 4, 9]\nbig\n" in result.stdout
    assert "word apples n 42" in result.stdout
    branch = next(s for s in steps(journal) if s["kind"] == "branch")
    assert (branch["branch"], branch["output"]) == ("then", "true")
    assert "apples" not in "".join(s["input"] for s in steps(journal) if s["kind"] == "model")


def test_a_decision_s_check_reads_the_session_and_never_sets_it(tmp_path: Path, env: dict[str, str]) -> None:
    """A check that assigns to a name the session holds (`rounds = 3  # example value`) answers about a value of its
    own, and the loop on it never ends (the CoRE bar's program ran to the step limit): it is not run, and the model is
    asked again, told which name it set."""
    replies = [
        COMPUTE, "The total is 385.", *check("total > 100", "Yes"),
        ROUND, "rounds is 1.", "```python\nrounds = 3  # example value for rounds\nprint(rounds >= 3)\n```",
        *check("rounds >= 3", "No"),
        ROUND, "rounds is 2.", *check("rounds >= 3", "No"),
        ROUND, "rounds is 3.", *check("rounds >= 3", "Yes"),
        "```python\nprint(total, rounds)\n```", "Done.",
    ]
    result, journal = run_program(tmp_path, env, EXAMPLES / "rounds.core", replies)
    assert result.returncode == 0, result.stderr
    assert [(r["name"], r["assigns"]) for r in records(journal, "check_refused")] == [("Enough", ["rounds"])]
    assert [s["output"] for s in steps(journal) if s["kind"] == "branch"] == ["True", "False", "False", "True"]
    assert steps(journal)[-1]["output"] == "385 3"
    told = [c["input_tail"]["content"] for c in records(journal, "model_call")]
    assert any("`rounds` is already defined in the session" in text for text in told)
