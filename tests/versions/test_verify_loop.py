"""Verify mode and error hints in the loop: a scripted model and fake kernels drive Session.turn (the real kernel's
share, asserts that report their values, is at the end)."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_interp, write_script
from fakes import ScriptedKernel, make_session, out, raised, turn

from interp.common.events import Notice
from interp.versions.verify import explained, restore

DEFINE = "```python\ndef add(a, b):\n    return a - b\n```"
CHECKS = "```python\nassert add(2, 3) == 5\nassert add(0, 0) == 0\n```"
FIXED = "```python\ndef add(a, b):\n    return a + b\n\nassert add(2, 3) == 5\n```"


def inputs(tmp_path: Path) -> list[str]:
    """What the model was shown last before each of its calls."""
    return [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]


def test_an_untested_function_is_checked_and_a_failed_check_is_repaired(tmp_path: Path) -> None:
    failure = "check failed: add(2, 3) == 5: the left side is -1, the right side 5"
    kernel = ScriptedKernel([], [raised("AssertionError", failure)], [])
    session = make_session(tmp_path, [DEFINE, CHECKS, FIXED, "add adds."], kernel, verify=True)
    _, status = turn(session, "write add(a, b)")
    assert status == "ok"
    shown = inputs(tmp_path)
    assert "Now test `add`" in shown[1]
    assert failure in shown[2] and "Traceback" not in shown[2]
    assert shown[3] == "All checks passed."
    assert len(kernel.executed) == 3


def test_functions_are_checked_once_per_turn(tmp_path: Path) -> None:
    again = "```python\ndef add(a, b):\n    return a + b\n```"
    session = make_session(tmp_path, [DEFINE, CHECKS, again, "Done."], ScriptedKernel([], [], []), verify=True)
    _, status = turn(session, "write add(a, b)")
    assert status == "ok"
    assert sum("Now test" in text for text in inputs(tmp_path)) == 1


def test_code_that_uses_its_function_is_not_asked_for_checks(tmp_path: Path) -> None:
    reply = "```python\ndef add(a, b):\n    return a + b\nprint(add(2, 3))\n```"
    session = make_session(tmp_path, [reply, "It is 5."], ScriptedKernel([out("5\n")]), verify=True)
    turn(session, "add 2 and 3 with a function")
    assert not any("Now test" in text for text in inputs(tmp_path))


def test_by_default_nothing_is_asked(tmp_path: Path) -> None:
    session = make_session(tmp_path, [DEFINE, "Defined."], ScriptedKernel([]))
    _, status = turn(session, "write add(a, b)")
    assert status == "ok" and len(inputs(tmp_path)) == 2
    assert "Now test" not in inputs(tmp_path)[1]


def test_a_name_error_is_told_the_names_the_session_defined(tmp_path: Path) -> None:
    replies = ["```python\ntotal = 5\nrows = [1]\n```", "Set.", "```python\nprint(totl)\n```",
               "```python\nprint(total)\n```", "It is 5."]
    kernel = ScriptedKernel([], [raised("NameError", "name 'totl' is not defined")], [out("5\n")])
    session = make_session(tmp_path, replies, kernel)
    turn(session, "set total")
    turn(session, "print it")
    assert ("Nothing named totl is defined. Did you mean total? Names defined in the session: rows, total."
            in inputs(tmp_path)[3])


def test_a_missing_file_is_told_the_files_that_exist(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sales.csv").write_text("a\n1\n")
    replies = ["```python\nopen('sale.csv').read()\n```", "```python\nprint(open('sales.csv').read())\n```", "Done."]
    kernel = ScriptedKernel([raised("FileNotFoundError", "[Errno 2] No such file or directory: 'sale.csv'")],
                            [out("a\n1\n")])
    turn(make_session(tmp_path, replies, kernel), "show sales")
    assert "There is no sale.csv. Did you mean sales.csv?" in inputs(tmp_path)[1]


def test_a_value_that_is_not_a_number_is_told_what_in_it_is_not(tmp_path: Path) -> None:
    replies = ["```python\nprint(float('$1,200.00'))\n```", "```python\nprint(1200.0)\n```", "Done."]
    kernel = ScriptedKernel([raised("ValueError", "could not convert string to float: '$1,200.00'")], [out("1200.0\n")])
    turn(make_session(tmp_path, replies, kernel), "total it")
    assert "float() cannot read '$1,200.00': it holds '$' and ',' besides the digits." in inputs(tmp_path)[1]


def test_in_a_real_kernel_a_failed_check_reports_its_values_and_the_file_hint_sees_the_folder(
        tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "sales.csv").write_text("a\n1\n")
    script = write_script(tmp_path, [
        DEFINE, CHECKS, FIXED, "add adds.",
        "```python\nprint(open('sale.csv').read())\n```", "```python\nprint(open('sales.csv').read())\n```", "Done.",
    ])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--verify", "--model", f"script:{script}", "--transcript", str(journal)],
                        env=env, cwd=tmp_path, stdin="write add(a, b)\nshow sales.csv\n")
    assert result.returncode == 0, result.stderr
    assert [e["status"] for e in records(journal, "execution")] == ["ok", "error", "ok", "error", "ok"]
    assert records(journal, "execution")[1]["code"] == CHECKS.split("\n", 1)[1].rsplit("\n", 1)[0]
    shown = [call["input_tail"]["content"] for call in records(journal, "model_call")]
    assert "check failed: add(2, 3) == 5: the left side is -1, the right side 5" in shown[2]
    assert "_interp_left" not in shown[2]
    assert shown[3] == "All checks passed."
    assert "There is no sale.csv. Did you mean sales.csv? Files in the working directory:" in shown[5]


def test_a_fix_without_checks_is_tested_against_the_checks_that_failed(tmp_path: Path) -> None:
    failure = "check failed: add(2, 3) == 5: the left side is -1, the right side 5"
    still_wrong = "```python\ndef add(a, b):\n    return b - a\n```"
    right = "```python\ndef add(a, b):\n    return a + b\n```"
    kernel = ScriptedKernel([], [raised("AssertionError", failure)], [],
                            [raised("AssertionError", failure.replace("-1", "1"))], [], [])
    session = make_session(tmp_path, [DEFINE, CHECKS, still_wrong, right, "add adds."], kernel, max_attempts=5,
                           verify=True)
    events, status = turn(session, "write add(a, b)")
    assert status == "ok"
    checks = explained(CHECKS.split("\n", 1)[1].rsplit("\n", 1)[0])  # what the kernel runs
    assert [code == checks for code in kernel.executed] == [False, True, False, True, False, True]
    assert "Running the checks that failed before" in "\n".join(e.text for e in events if isinstance(e, Notice))
    shown = inputs(tmp_path)
    assert "the left side is 1, the right side 5" in shown[3]
    assert shown[4].endswith("All checks passed.")


def test_new_checks_replace_the_old_ones(tmp_path: Path) -> None:
    failure = "check failed: add(2, 3) == 5: the left side is -1, the right side 5"
    kernel = ScriptedKernel([], [raised("AssertionError", failure)], [])
    session = make_session(tmp_path, [DEFINE, CHECKS, FIXED, "add adds."], kernel, verify=True)
    turn(session, "write add(a, b)")
    assert len(kernel.executed) == 3  # FIXED brought its own checks: the failed ones are not run again


def test_a_traceback_quotes_the_assert_as_written() -> None:
    code = "assert f(1) == 2\n"
    rewritten = explained(code).splitlines()[0]
    error = f"Traceback (most recent call last):\n----> 1 {rewritten}\n      2 \nIndexError: list index out of range"
    assert restore(error, code) == ("Traceback (most recent call last):\n----> 1 assert f(1) == 2\n      2 \n"
                                    "IndexError: list index out of range")
