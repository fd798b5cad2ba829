"""Verify mode's pure parts: which functions are untested, and asserts that say what they compared."""

from __future__ import annotations

import pytest

from interp.versions.verify import explained, failed_check, has_asserts, untested


def run(code: str) -> str | None:
    """Runs code as the kernel would and returns what the model would be told of a failed check, if one failed."""
    try:
        exec(compile(code, "<cell>", "exec"), {})
    except AssertionError as exc:
        return failed_check(f"Traceback (most recent call last):\n  ...\nAssertionError: {exc}")
    return None


@pytest.mark.parametrize(("code", "names"), [
    ("def f(x):\n    return x\n", ["f"]),
    ("def f(x):\n    return x\nprint(f(2))\n", []),
    ("def f(x):\n    return x\nassert f(2) == 2\n", []),
    ("def f(x):\n    return x\ndef g(y):\n    return f(y)\n", ["f", "g"]),  # a call inside a function is no use
    ("def f(x):\n    return x\nresult = [f(i) for i in range(3)]\n", []),
    ("def _helper():\n    pass\n", []),
    ("print(1)\n", []),
    ("def f(:\n", []),
])
def test_untested_names_functions_defined_and_never_called(code: str, names: list[str]) -> None:
    assert untested(code) == names


def test_has_asserts() -> None:
    assert has_asserts("x = 1\nassert x == 1\n")
    assert not has_asserts("def f():\n    assert False\n")
    assert not has_asserts("assert (\n")


def test_a_failing_assert_reports_both_sides() -> None:
    code = "def add(a, b):\n    return a - b\n\nassert add(2, 3) == 5\n"
    assert run(explained(code)) == "check failed: add(2, 3) == 5: the left side is -1, the right side 5"


def test_passing_asserts_pass_and_other_lines_are_kept() -> None:
    code = "def add(a, b):\n    return a + b\n\nassert add(2, 3) == 5\nassert add(0, 0) == 0\nprint('done')\n"
    assert explained(code).splitlines()[:3] == code.splitlines()[:3]
    assert run(explained(code)) is None


def test_line_numbers_survive_a_multiline_assert() -> None:
    code = "assert (1 +\n        1) == 2\nx = 1 / 0\n"
    new = explained(code)
    assert len(new.splitlines()) == len(code.splitlines())
    with pytest.raises(ZeroDivisionError) as info:
        exec(compile(new, "<cell>", "exec"), {})
    assert info.traceback[-1].lineno == 2  # 0-based: the third line, as in the model's code


@pytest.mark.parametrize("code", [
    "assert 10 % 3 == 2\n",  # a % in the source must not break the message's formatting
    "assert 'a{b}' != 'a{b}'\n",
    "assert [1, 2] == [1, 2]\n",
])
def test_odd_sources_are_reported_faithfully(code: str) -> None:
    failure = run(explained(code))
    if "!=" in code:
        assert failure == "check failed: 'a{b}' != 'a{b}': the left side is 'a{b}', the right side 'a{b}'"
    elif "%" in code:
        assert failure == "check failed: 10 % 3 == 2: the left side is 1, the right side 2"
    else:
        assert failure is None


def test_asserts_with_their_own_message_or_no_comparison_are_left_alone() -> None:
    code = "assert 1 == 2, 'mine'\nassert not True\nassert 1 < 2 < 0\n"
    assert explained(code) == code
    assert explained("assert (\n") == "assert (\n"


def test_long_values_are_cut() -> None:
    failure = run(explained("assert list(range(1000)) == []\n"))
    assert failure is not None and len(failure) < 300


def test_failed_check_ignores_other_errors() -> None:
    assert failed_check("Traceback...\nZeroDivisionError: division by zero") is None
    assert failed_check("Traceback...\nAssertionError: wrong") is None
    assert failed_check("") is None
