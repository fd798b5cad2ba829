"""The loop in-process: a scripted model and fake kernels drive Session.turn; the journal is the oracle. No
ipykernel, no real model (the end-to-end versions are in test_loop_script.py, test_hostile_code.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records
from fakes import (
    DyingKernel,
    FakeKernel,
    FloodingKernel,
    HangingKernel,
    ScriptedKernel,
    make_session,
    out,
    raised,
    turn,
)

from interp.common.events import Confirm, DisplayData, InputRequest, Notice, OutputChunk, OutputFile, TextDelta
from interp.common.extract import code_blocks
from interp.models.script import ScriptModel
from interp.prompts import Prompts
from interp.runtime.kernel_api import RunResult
from interp.session import Session
from interp.stores.conversations import history_from_journal
from interp.stores.journal import read

FAIL = "```python\nraise ValueError('always')\n```"
FAILING = "Let me compute it.\n```python\nprint(total_sum)\n```"
WORKING = "Fixed:\n```python\ntotal_sum = sum(range(1, 101))\nprint(total_sum)\n```"


def journal(tmp_path: Path, type_: str) -> list[dict]:
    return records(tmp_path / "j.jsonl", type_)


def notices(events: list) -> str:
    return "\n".join(e.text for e in events if isinstance(e, Notice))


def test_an_error_is_fed_back_and_the_second_attempt_works(tmp_path: Path) -> None:
    kernel = ScriptedKernel([raised("NameError", "name 'total_sum' is not defined")], [out("5050\n")])
    session = make_session(tmp_path, [FAILING, WORKING, "The sum is 5050."], kernel)
    events, status = turn(session, "sum 1..100")
    assert status == "ok"
    assert kernel.executed == ["print(total_sum)", "total_sum = sum(range(1, 101))\nprint(total_sum)"]
    assert [e["status"] for e in journal(tmp_path, "execution")] == ["error", "ok"]
    calls = journal(tmp_path, "model_call")
    assert len(calls) == 3
    assert "NameError" in calls[1]["input_tail"]["content"] and "5050" in calls[2]["input_tail"]["content"]
    assert journal(tmp_path, "turn_end")[-1]["status"] == "ok"


def test_the_same_failure_three_times_stops_the_turn(tmp_path: Path) -> None:
    """The failing code sent again unchanged is drawn again, twice (the reply dropped), then runs again."""
    kernel = ScriptedKernel(*[[raised("ValueError", "always")]] * 3)
    session = make_session(tmp_path, [FAIL] * 5 + ["never reached"], kernel, max_attempts=9)
    events, status = turn(session)
    assert status == "stuck" and "same failing code 3 times" in notices(events)
    assert len(journal(tmp_path, "execution")) == 3 and len(journal(tmp_path, "resample")) == 2
    assert notices(events).count("The model sent the code that failed again, unchanged; asking it once more.") == 2
    assert [r["rule"] for r in journal(tmp_path, "rule_fired") if r["phase"] == "on_reply"] == ["failed", "failed"]
    replies = [m for m in session.history if m["kind"] == "reply"]
    assert len(replies) == 3 and history_from_journal(records(tmp_path / "j.jsonl")) == session.history
    feedback = [r["content"] for r in journal(tmp_path, "user") if r.get("kind") == "feedback"]
    assert "different, simpler way" not in feedback[0] and "different, simpler way" in feedback[1]


def test_failing_code_sent_back_is_drawn_again_from_the_request_and_the_failure_without_the_code(
        tmp_path: Path) -> None:
    """Sent back once more after a hotter draw with the code in view, the failed code is drawn again from the turns
    before, then the request with what the failed code was told (Turn._redrawn); the reply drawn so enters the
    history after that feedback, and the calls after it see the whole turn again."""
    failing, fixed = "```python\nprint(int('1h'))\n```", "```python\nprint(int('1h'[:-1]))\n```"
    kernel = ScriptedKernel([out("2\n")], [raised("ValueError", "invalid literal for int() with base 10: '1h'")],
                            [out("1\n")])
    session = make_session(tmp_path, ["```python\nprint(2)\n```", "Two.", failing, failing, failing, fixed, "One."],
                           kernel)
    turn(session, "Print 2.")
    events, status = turn(session, "Print the hours in '1h'.")
    assert status == "ok" and kernel.executed[1:] == ["print(int('1h'))", "print(int('1h'[:-1]))"]
    assert [(r["why"], r.get("redrawn")) for r in journal(tmp_path, "resample")] == [("failed", None), ("failed", True)]
    in_view, redraw, after = session.model.calls[4:7]  # type: ignore[attr-defined]
    assert failing in [m["content"] for m in in_view]
    assert [m["content"] for m in redraw[-5:-1:3]] == ["Print 2.", "Two."]  # the turn before, whole
    asked = redraw[-1]["content"]
    assert asked.startswith("Print the hours in '1h'.") and "ValueError: invalid literal" in asked
    assert "not shown here" in asked and not any(failing in m["content"] for m in redraw)
    assert failing in [m["content"] for m in after] and after[-1]["content"].startswith("Output:")
    assert [m["content"] for m in session.history if m["kind"] == "reply"][-2:] == [fixed, "One."]


def test_the_attempts_bound_ends_the_turn(tmp_path: Path) -> None:
    replies = [f"```python\nraise ValueError('try {i}')\n```" for i in range(6)]
    kernel = ScriptedKernel(*[[raised("ValueError", f"try {i}")] for i in range(6)])
    events, status = turn(make_session(tmp_path, replies, kernel, max_attempts=2))
    assert status == "attempts" and "2 failed attempts" in notices(events)
    assert len(kernel.executed) == 2


def test_a_second_failure_in_a_row_asks_for_the_cause_and_the_retry_sees_it(tmp_path: Path) -> None:
    replies = ["```python\nprint(undefined_a)\n```", "```python\nprint(undefined_b)\n```",
               "The variable was never defined. Then more text.", "```python\nprint('fixed')\n```", "Fixed."]
    kernel = ScriptedKernel([raised("NameError", "a")], [raised("NameError", "b")], [out("fixed\n")])
    _, status = turn(make_session(tmp_path, replies, kernel, reflect=True))
    assert status == "ok"
    assert journal(tmp_path, "reflection")[0]["cause"] == "The variable was never defined"
    assert "Likely cause: The variable was never defined" in journal(tmp_path, "model_call")[2]["input_tail"]["content"]


def test_no_reflection_on_the_last_allowed_attempt(tmp_path: Path) -> None:
    replies = ["```python\nprint(undefined_a)\n```", "```python\nprint(undefined_b)\n```", "unused"]
    kernel = ScriptedKernel([raised("NameError", "a")], [raised("NameError", "b")])
    _, status = turn(make_session(tmp_path, replies, kernel, reflect=True, max_attempts=2))
    assert status == "attempts" and journal(tmp_path, "reflection") == []


def test_identical_blocks_run_once_and_a_repeat_of_working_code_is_not_run_again(tmp_path: Path) -> None:
    works = "```python\nprint('works')\n```"
    kernel = ScriptedKernel([out("works\n")], [raised("NameError", "missing")])
    events, status = turn(make_session(tmp_path, [f"{works}\n{works}", "```python\nprint(missing)\n```", works,
                                                  "I cannot fix it."], kernel))
    assert kernel.executed == ["print('works')", "print(missing)"]
    assert "the failure stands" in notices(events)
    shown = [call["input_tail"]["content"] for call in journal(tmp_path, "model_call")]
    assert shown[3].startswith("That code already ran, and the failure it left stands") and "NameError" in shown[3]
    assert status == "failed"  # the latest execution failed


def test_code_sent_again_after_a_note_doubted_its_output_is_drawn_again_once(tmp_path: Path) -> None:
    """A note (notes.py: the code printed the answer typed into it) asks for other code; the same code sent back is
    dropped and drawn again, hotter, then once more from the request and the note without the code
    (Turn._redrawn); sent back again, the turn ends as before, the code not run again."""
    typed = "```python\nprint('olleh')\n```"
    kernel = ScriptedKernel([out("olleh\n")], [out("olleh\n")])
    computed = "```python\nprint('hello'[::-1])\n```"
    session = make_session(tmp_path, [typed, typed, typed, computed, "It is olleh."], kernel)
    events, status = turn(session, "Reverse the string 'hello'.")
    assert status == "ok" and kernel.executed == ["print('olleh')", "print('hello'[::-1])"]
    assert [(r["why"], r.get("redrawn")) for r in journal(tmp_path, "resample")] == [("doubted", None),
                                                                                      ("doubted", True)]
    assert "after interp's note on its output; asking it once more" in notices(events)
    calls = journal(tmp_path, "model_call")
    note = calls[1]["input_tail"]["content"]
    assert "computed nothing" in note and calls[2]["input_tail"] == calls[1]["input_tail"]
    assert calls[3]["input_tail"]["content"].startswith("Reverse the string 'hello'.")
    assert note in calls[3]["input_tail"]["content"] and "not shown here" in calls[3]["input_tail"]["content"]
    redraw = session.model.calls[3]  # type: ignore[attr-defined]
    assert not any("print('olleh')" in m["content"] for m in redraw) and redraw[-2]["role"] != "user"
    assert session.model.calls[4][-1]["content"].startswith("Output:")  # type: ignore[attr-defined]
    assert [m["content"] for m in session.history if m["kind"] == "reply"] == [typed, computed, "It is olleh."]
    kernel = ScriptedKernel([out("olleh\n")])
    events, status = turn(make_session(tmp_path / "again", [typed] * 4, kernel),
                          "Reverse the string 'hello'.")
    assert status == "ok" and kernel.executed == ["print('olleh')"] and "already ran" in notices(events)
    kernel = ScriptedKernel([out("olleh\n")])
    events, status = turn(make_session(tmp_path / "plain", [typed, typed], kernel), "Print 'olleh'.")
    assert "asking it once more" not in notices(events)  # no note, no doubt: the repeat ends the turn


def test_an_answer_that_copies_interps_note_is_drawn_again(tmp_path: Path) -> None:
    typed = "```python\nprint('olleh')\n```"
    copied = Prompts.load().rules["typed"].template.replace("it computed", "It computed")
    session = make_session(tmp_path, [typed, copied, "The reversed string is olleh."], ScriptedKernel([out("olleh\n")]))
    events, status = turn(session, "Reverse the string 'hello'.")
    assert [r["why"] for r in journal(tmp_path, "resample")] == ["copied"]
    assert "repeated interp's own words (a note, a file's preview) instead of answering" in notices(events)
    assert session.history[-1]["content"] == "The reversed string is olleh."
    assert copied not in [m["content"] for m in session.history]
    session = make_session(tmp_path / "own", [typed, "The code printed olleh, typed in; it computed nothing."],
                           ScriptedKernel([out("olleh\n")]))
    turn(session, "Reverse the string 'hello'.")
    assert not journal(tmp_path / "own", "resample")  # its own words about the note: an answer


def test_an_answer_that_copies_the_few_shot_answer_is_drawn_again(tmp_path: Path) -> None:
    """Under the small prompts the 0.5B closed turns with its example's answer ("notes.md has two lines that start
    with '#' ..."): the answer the model reads before the conversation is no answer to this request."""
    example = Prompts.load().examples[-1]["content"]
    code = "```python\nprint(3 ** 4)\n```"
    session = make_session(tmp_path, [code, example, "3 to the power of 4 is 81."], ScriptedKernel([out("81\n")]))
    events, status = turn(session, "What is 3 to the power of 4?")
    assert status == "ok" and [r["why"] for r in journal(tmp_path, "resample")] == ["example"]
    assert "copied the example answer interp's prompt shows it" in notices(events)
    assert session.history[-1]["content"] == "3 to the power of 4 is 81." and example not in [
        m["content"] for m in session.history]


def session_in(tmp_path: Path, folder: str, replies: list[str], printed: str) -> Session:
    """A session whose journal is in tmp_path/folder and whose kernel, in tmp_path, prints `printed` on its one run."""
    kernel = ScriptedKernel([out(printed)])
    kernel.cwd = str(tmp_path)
    return make_session(tmp_path / folder, replies, kernel)


def test_an_answer_that_copies_the_preview_of_a_named_file_is_drawn_again(tmp_path: Path) -> None:
    """The 0.5B answered a count of 4 with the preview interp had put in the request ("text, 9 lines, ...")."""
    (tmp_path / "todo.txt").write_text("  buy milk\n\n   \ncall Anna\n\t\nfix the bike  \n\n\nwrite report\n")
    code = "```python\nprint(sum(1 for line in open('todo.txt') if line.strip()))\n```"
    request = "How many lines of todo.txt are not blank? Print the count."

    def session_answering(folder: str, *answers: str) -> Session:
        return session_in(tmp_path, folder, [code, *answers], "4\n")

    session = session_answering("first", "4.")
    turn(session, request)
    preview = session.history[0]["content"].removesuffix(request).strip()
    assert "text, 9 lines" in preview
    session = session_answering("copied", preview, "todo.txt has 4 lines that are not blank.")
    events, status = turn(session, request)
    assert status == "ok" and [r["why"] for r in journal(tmp_path / "copied", "resample")] == ["copied"]
    assert "repeated interp's own words (a note, a file's preview)" in notices(events)
    assert session.history[-1]["content"] == "todo.txt has 4 lines that are not blank."
    turn(session_answering("own", "todo.txt has 9 lines; 4 of them are not blank."), request)
    assert not journal(tmp_path / "own", "resample")  # its own words about the file: an answer


def test_a_reply_that_pastes_the_preview_of_a_named_file_is_drawn_again_and_its_block_not_run(tmp_path: Path) -> None:
    """The 0.5B began replies with the preview interp had put in the request, its blocks with them: run, the file's
    code only defines the buggy function again, and the hint's writes '<the whole corrected file>' into the file."""
    (tmp_path / "mathutil.py").write_text("def is_even(n):\n    return n % 2 == 1\n")
    request = "mathutil.py has a bug: is_even(4) returns False. Fix the file, then print is_even(4)."
    fixed = ("```python\nopen('mathutil.py', 'w').write('def is_even(n):\\n    return n % 2 == 0\\n')\n"
             "from mathutil import is_even\nprint(is_even(4))\n```")

    def session_replying(folder: str, *replies: str) -> Session:
        return session_in(tmp_path, folder, [*replies, "is_even(4) is True now."], "True\n")

    session = session_replying("first", fixed)
    turn(session, request)
    preview = session.history[0]["content"].removesuffix(request).strip()
    assert "def is_even(n):\n    return n % 2 == 1" in preview and "```python\nwith open('mathutil.py', 'w')" in preview
    session = session_replying("pasted", preview, fixed)
    events, status = turn(session, request)
    assert status == "ok" and [r["why"] for r in journal(tmp_path / "pasted", "resample")] == ["copied"]
    assert [e["code"] for e in journal(tmp_path / "pasted", "execution")] == [code_blocks(fixed)[0].code]
    # The preview pasted with the hint's block filled in is the model's own code (the 0.5B fixed greet.py so): it runs.
    filled = preview.replace("<the whole corrected file>", "def is_even(n):\n    return n % 2 == 0\n")
    session = session_replying("filled", filled)
    turn(session, request)
    assert not journal(tmp_path / "filled", "resample")
    assert [e["code"] for e in journal(tmp_path / "filled", "execution")] == [code_blocks(filled)[-1].code]


def test_an_answer_about_a_named_file_before_any_code_ran_is_sent_back_for_code_that_reads_it(tmp_path: Path) -> None:
    """The 0.5B answered "The IP address that made the most requests in access.log is 10.0.0.1." and ran nothing."""
    (tmp_path / "access.log").write_text("10.0.0.2 GET /\n10.0.0.2 GET /a\n10.0.0.1 GET /\n")
    request = "Which IP address made the most requests in access.log? Print it."
    guess = "The IP address that made the most requests in access.log is 10.0.0.1."
    code = ("```python\nfrom collections import Counter\n"
            "print(Counter(line.split()[0] for line in open('access.log')).most_common(1)[0][0])\n```")

    def session_replying(folder: str, *replies: str) -> Session:
        return session_in(tmp_path, folder, list(replies), "10.0.0.2\n")

    session = session_replying("guessed", guess, code, "10.0.0.2 made the most requests.")
    events, status = turn(session, request)
    assert status == "ok" and len(journal(tmp_path / "guessed", "execution")) == 1
    assert "answered about access.log with no code behind it" in notices(events)
    note = session.history[2]["content"]
    assert note.startswith("Nothing has run yet, so that answer is a guess.") and "opens access.log" in note
    assert session.history[-1]["content"] == "10.0.0.2 made the most requests."
    # After code ran, an answer in words is the answer; and a request that names no file may be answered in words.
    session = session_replying("ran", code, "10.0.0.2 made the most requests.")
    turn(session, request)
    assert [m["content"] for m in session.history[-1:]] == ["10.0.0.2 made the most requests."]
    assert not [m for m in session.history if m["content"].startswith("Nothing has run yet")]
    session = session_replying("words", "A GGUF file holds a model's weights and its metadata.")
    events, status = turn(session, "What is a GGUF file?")
    assert status == "ok" and len(session.history) == 2 and not notices(events)


def test_under_the_small_prompts_an_answer_read_off_a_text_preview_is_asked_again_without_it(tmp_path: Path) -> None:
    """Told its answer was a guess, the 0.5B counted access.log's lines for its top IP (its few-shot example's
    shape): a small model's answer read off the preview of a plain text file is dropped, and the request sent again as
    typed. A CSV's or JSON file's preview stays (its layout is what the code needs), and so does one under the
    standard prompts (the test above)."""
    from dataclasses import replace

    (tmp_path / "access.log").write_text("10.0.0.2 GET /\n10.0.0.2 GET /a\n10.0.0.1 GET /\n")
    (tmp_path / "sales.csv").write_text("product,amount\nwidget,120\ngizmo,210\n")
    guess = "The IP address that made the most requests in access.log is 10.0.0.1."
    code = ("```python\nfrom collections import Counter\n"
            "print(Counter(line.split()[0] for line in open('access.log')).most_common(1)[0][0])\n```")

    def small_session(folder: str, *replies: str) -> Session:
        session = session_in(tmp_path, folder, list(replies), "10.0.0.2\n")
        session.prompts = replace(session.prompts, small=True)
        return session

    request = "Which IP address made the most requests in access.log? Print it."
    session = small_session("log", guess, code, "10.0.0.2 made the most requests.")
    events, status = turn(session, request)
    assert status == "ok" and len(journal(tmp_path / "log", "execution")) == 1
    assert "answered from the preview of access.log before any code ran" in notices(events)
    model = session.model
    assert isinstance(model, ScriptModel)
    assert model.calls[0][-1]["content"].startswith("The request names the file access.log")
    assert model.calls[1][-1] == {"role": "user", "content": request}  # as typed, the guess gone
    assert [m["content"] for m in session.history] == [request, code, "Output:\n```text\n10.0.0.2\n```",
                                                        "10.0.0.2 made the most requests."]
    assert history_from_journal(read(tmp_path / "log" / "j.jsonl")) == session.history
    session = small_session("csv", "gizmo has the highest amount.", code, "gizmo.")
    events, _ = turn(session, "Which product in sales.csv has the highest amount?")
    assert "answered about sales.csv with no code behind it" in notices(events)
    assert session.history[0]["content"].startswith("The request names the file sales.csv")
    assert session.history[2]["content"].startswith("Nothing has run yet")


def test_temperature_rises_with_each_failure_in_a_row(tmp_path: Path) -> None:
    kernel = ScriptedKernel(*[[raised("E", str(i))] for i in range(3)])
    session = make_session(tmp_path, [f"```python\nfail({i})\n```" for i in range(3)] + ["ok"], kernel,
                           max_attempts=0)
    turn(session)
    assert [round(p.temperature, 2) for p in session.model.params] == [0.2, 0.4, 0.6, 0.8]


def test_an_empty_reply_is_not_an_answer(tmp_path: Path) -> None:
    kernel = ScriptedKernel([out("42\n")])
    _, status = turn(make_session(tmp_path, ["", "```python\nprint(6 * 7)\n```", "42."], kernel))
    assert status == "ok" and kernel.executed == ["print(6 * 7)"]
    assert "empty" in journal(tmp_path, "model_call")[1]["input_tail"]["content"]


def test_code_without_fences_is_run_and_said(tmp_path: Path) -> None:
    kernel = ScriptedKernel([out("42\n")])
    events, _ = turn(make_session(tmp_path, ["Sure:\nx = 6 * 7\nprint(x)\nThat prints it.", "42."], kernel))
    assert "Taking this part of the reply as python code" in notices(events)
    assert kernel.executed == ["x = 6 * 7\nprint(x)"]


def test_a_reply_caught_in_a_loop_is_cut(tmp_path: Path) -> None:
    looping = "```python\nprint('" + "-l " * 1000 + "')\n```"
    kernel = ScriptedKernel([raised("SyntaxError", "unterminated string")], [out("fixed\n")])
    events, status = turn(make_session(tmp_path, [looping, "```python\nprint('fixed')\n```", "Fixed."], kernel))
    assert status == "ok" and "repeating itself" in notices(events)
    first = journal(tmp_path, "assistant")[0]["content"]
    assert first.startswith("```python\nprint('-l -l") and len(first) < 600
    assert journal(tmp_path, "model_call")[0]["stop_reason"] == "loop"


def test_a_reply_stops_where_its_code_ends(tmp_path: Path) -> None:
    invented = ("Here is the code:\n```python\nimport os\nprint(len(os.listdir('.')))\n```\n\nOutput:\n"
                "Number of files: 10\n")
    events, _ = turn(make_session(tmp_path, [invented, "There are 2 files."], ScriptedKernel([out("2\n")])))
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "Number of files" not in shown
    assert journal(tmp_path, "assistant")[0]["content"] == invented[:invented.index("```\n\nOutput") + 3]
    assert journal(tmp_path, "model_call")[0]["stop_reason"] == "code"


def test_a_shell_block_runs_through_the_shell_helper_and_its_failure_asks_for_a_shell_fix(tmp_path: Path) -> None:
    kernel = ScriptedKernel([out("ls: unrecognized option\n", "stderr"),
                             RunResult("error", "ShellError", "ShellError", "exit status 2")])
    turn(make_session(tmp_path, ["```bash\nls --no-such-flag\n```", "ok"], kernel))
    assert kernel.executed == ["__interp_shell('ls --no-such-flag')"]
    assert journal(tmp_path, "execution")[0]["error"] == "The command failed with exit status 2."
    assert "```bash block" in journal(tmp_path, "model_call")[1]["input_tail"]["content"]


def test_without_a_person_and_without_y_code_is_not_run(tmp_path: Path) -> None:
    kernel = ScriptedKernel()
    events, status = turn(make_session(tmp_path, [FAIL], kernel, yes=False, interactive=False))
    assert status == "skipped" and "pass -y" in notices(events) and kernel.executed == []
    assert journal(tmp_path, "execution")[0]["status"] == "skipped"


def test_a_declined_block_is_not_run_and_the_model_is_told(tmp_path: Path) -> None:
    kernel = ScriptedKernel()
    session = make_session(tmp_path, [FAIL], kernel, yes=False)
    events, status = turn(session, confirm="n")
    assert status == "declined" and kernel.executed == []
    assert any(isinstance(e, Confirm) for e in events)
    assert session.history[-1]["kind"] == "note"


def test_answering_a_runs_this_and_every_later_block(tmp_path: Path) -> None:
    kernel = ScriptedKernel([raised("E", "1")], [out("ok\n")])
    session = make_session(tmp_path, ["```python\nfail()\n```", "```python\nprint('ok')\n```", "done"], kernel,
                           yes=False)
    events, status = turn(session, confirm="a")
    assert status == "ok" and len(kernel.executed) == 2
    assert sum(isinstance(e, Confirm) for e in events) == 1 and session.state.auto_run


def test_input_is_asked_of_the_person_and_its_answer_sent(tmp_path: Path) -> None:
    kernel = ScriptedKernel([InputRequest("Name? "), out("hi Ada\n")])
    session = make_session(tmp_path, ["```python\nprint('hi', input('Name? '))\n```", "done"], kernel,
                           yes=False)
    turn(session, answer="Ada")
    assert kernel.answers == ["Ada"] and kernel.allow_stdin
    assert journal(tmp_path, "execution")[0]["output"] == "Name? hi Ada\n"


def test_a_kernel_that_dies_mid_run_is_replaced_and_the_model_told(tmp_path: Path) -> None:
    kernel = DyingKernel(dies_on=1)
    events, _ = turn(make_session(tmp_path, ["```python\nimport os; os._exit(1)\n```", "It died."], kernel))
    assert kernel.restarts == 1 and "The kernel died; a fresh one was started" in notices(events)
    execution = journal(tmp_path, "execution")[0]
    assert execution["status"] == "died" and "state was lost" in execution["error"]


def test_a_kernel_that_died_while_idle_is_replaced_before_the_run(tmp_path: Path) -> None:
    kernel = DyingKernel(dies_on=0)
    kernel.die_while_idle()
    events, status = turn(make_session(tmp_path, ["```python\nprint(1)\n```", "done"], kernel))
    assert status == "ok" and kernel.restarts == 1 and "had died since the last run" in notices(events)
    assert journal(tmp_path, "execution")[0]["output"].startswith("[The kernel had died since the last run")


def test_a_dead_kernel_that_cannot_be_restarted_fails_the_block(tmp_path: Path) -> None:
    kernel = DyingKernel(dies_on=0)
    kernel.die_while_idle()
    kernel.restart_error = "the attached kernel died"
    turn(make_session(tmp_path, ["```python\nprint(1)\n```", "done"], kernel))
    execution = journal(tmp_path, "execution")[0]
    assert kernel.executed == [] and execution["status"] == "died"
    assert "could not be restarted: the attached kernel died" in execution["error"]


@pytest.mark.parametrize("honours", [True, False])
def test_a_hanging_run_times_out_and_a_stubborn_one_costs_its_kernel(tmp_path: Path, honours: bool) -> None:
    kernel = HangingKernel(honours_interrupt=honours)
    events, _ = turn(make_session(tmp_path, ["```python\nwhile True: pass\n```", "done"], kernel, timeout=0.02))
    assert kernel.interrupts == 1 and kernel.restarts == (0 if honours else 1)
    assert journal(tmp_path, "execution")[0]["status"] == "timeout"
    assert ("did not stop its code when interrupted" in notices(events)) is not honours


def ticking(code: str):
    while True:
        yield out("tick\n")


def signalled(code: str):
    yield out("tick\n")
    raise KeyboardInterrupt  # as SIGINT does while the kernel waits for output


@pytest.mark.parametrize("handler", [ticking, signalled])
def test_ctrl_c_during_a_run_interrupts_it_and_is_journaled(tmp_path: Path, handler) -> None:
    kernel = FakeKernel(handler)
    session = make_session(tmp_path, ["```python\nwhile True: print('tick')\n```"], kernel)
    events = session.turn("spin")
    with pytest.raises(KeyboardInterrupt):
        for event in events:
            if isinstance(event, OutputChunk):
                events.throw(KeyboardInterrupt)
    assert kernel.interrupts == 1
    assert journal(tmp_path, "execution")[0]["status"] == "interrupted"
    assert journal(tmp_path, "execution")[0]["output"].startswith("tick\n")
    assert journal(tmp_path, "turn_end")[0]["status"] == "interrupted"
    assert session.history[-1]["kind"] == "note"


def test_a_flood_of_output_is_bounded_for_the_model(tmp_path: Path) -> None:
    turn(make_session(tmp_path, ["```python\nflood()\n```", "done"], FloodingKernel(100_000), max_output=1000))
    output = journal(tmp_path, "execution")[0]["output"]
    assert len(output) < 1200 and output.startswith("line 0\n") and output.rstrip().endswith("line 99999")


def test_rich_outputs_are_saved_and_bounded_per_run(tmp_path: Path) -> None:
    bundle = {"text/html": "<b>x</b>", "text/plain": "<x>"}
    kernel = FakeKernel(lambda code: [DisplayData(bundle)] * 25)
    events, _ = turn(make_session(tmp_path, ["```python\nshow()\n```", "done"], kernel))
    assert sum(isinstance(e, OutputFile) for e in events) == 20
    assert len(list((tmp_path / "outputs").iterdir())) == 20
    assert "5 more rich outputs were not saved" in notices(events)


def test_a_model_error_fails_the_turn(tmp_path: Path) -> None:
    from interp.models.base import ModelError

    session = make_session(tmp_path, [], ScriptedKernel())

    def broken(messages, params):
        raise ModelError("the server went away")
        yield  # pragma: no cover

    session.model.complete = broken
    events, status = turn(session)
    assert status == "failed" and "The model failed: the server went away" in notices(events)


def test_a_huge_traceback_is_bounded_for_the_model(tmp_path: Path) -> None:
    """Endless recursion makes a traceback of about 100 KB: the model is sent its head and its end."""
    frames = "".join('  File "<cell>", line 2, in f\n    return n * f(n - 1)\n' for _ in range(2000))
    error = f"Traceback (most recent call last):\n{frames}RecursionError: maximum recursion depth exceeded"
    kernel = ScriptedKernel([RunResult("error", error, "RecursionError", "maximum recursion depth exceeded")])
    turn(make_session(tmp_path, ["```python\nf(10)\n```", "Done."], kernel, max_output=1000))
    bounded = journal(tmp_path, "execution")[0]["error"]
    assert len(bounded) < 1200 and "characters cut" in bounded
    assert bounded.startswith("Traceback") and bounded.rstrip().endswith("maximum recursion depth exceeded")
    assert len(journal(tmp_path, "model_call")[1]["input_tail"]["content"]) < 1500


def test_a_rule_of_the_request_met_by_an_earlier_clean_step_of_the_turn_is_not_noted_again(tmp_path: Path) -> None:
    """The unmet rules (rules/notes/unmet.py) check all of the turn's clean code: the file written in the first step,
    code that writes none in the second is no reason for the note (the 0.5B then wrote the file over, with other
    words); in a turn whose code never writes it, the note comes."""
    writes = "```python\nwith open('words.txt', 'w') as f:\n    f.write('alpha beta gamma')\n```"
    counts = "```python\nprint(sum(1 for n in range(50) if n % 7 == 0))\n```"
    kernel = ScriptedKernel([out("")], [out("8\n")])
    session = make_session(tmp_path, [writes, counts, "Done."], kernel)
    _, status = turn(session, "Write 'alpha beta gamma' to words.txt.")
    feedback = [r["content"] for r in journal(tmp_path, "user") if r.get("kind") == "feedback"]
    assert status == "ok" and len(feedback) == 2 and not any("writes none" in text for text in feedback)
    kernel = ScriptedKernel([out("8\n")])
    turn(make_session(tmp_path / "never", [counts, "Done."], kernel), "Write 'alpha beta gamma' to words.txt.")
    feedback = [r["content"] for r in records(tmp_path / "never" / "j.jsonl", "user") if r.get("kind") == "feedback"]
    assert "writes none" in feedback[0]
