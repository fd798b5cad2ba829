"""A string filter that matched nothing, told how close the data came (near.py): which filters are found, the
kernel expression on real values, the note in a session, and the real kernel's answer."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_scripted
from fakes import ScriptedKernel, make_session, out, turn

from interp.near import Filter, NearMiss, filters, near_misses

SALES = [{"date": "2024-02-03", "amount": "1"}, {"date": "2024-03-01", "amount": "2"},
         {"date": "2024-03-05", "amount": "3"}]
LOG = ["2024-05-01 10:02:13 ERROR db timeout\n", "2024-05-01 10:15:40 INFO served\n"]


def test_string_filters_on_the_loop_variable_are_found() -> None:
    assert filters("march = [r for r in sales if r['date'] == '2024-03']") == [
        Filter("r['date']", "==", "2024-03", "r", "sales")]
    assert filters("n = 0\nfor line in open('server.log'):\n    if line.startswith('ERROR'):\n        n += 1") == [
        Filter("line", "startswith", "ERROR", "line", "open('server.log')")]
    assert filters("x = [r for r in data['rows'] if 'ok' == r.status]") == [
        Filter("r.status", "==", "ok", "r", "data['rows']")]


def test_filters_that_cannot_be_judged_safely_or_are_no_string_test_are_left_out() -> None:
    assert filters("x = [r for r in sales if r['n'] == 3]") == []  # not a string
    assert filters("x = [r for r in sales if r['d'] > '2024']") == []  # not ==
    assert filters("x = [r for r in get_rows() if r['d'] == 'a']") == []  # items from a call: not read again
    assert filters("x = [r for r in sales if fetch(r) == 'a']") == []  # a call that could do anything
    assert filters("x = [r for r in open('f', 'w') if r == 'a']") == []  # a file opened for writing
    assert filters("x = [r for r in sales if y == 'a']") == []  # does not test the loop's variable
    assert filters("def (") == []


def test_the_kernel_expression_counts_matches_starts_and_holds() -> None:
    [march] = filters("march = [r for r in sales if r['date'] == '2024-03']")
    assert eval(march.expression(), {"sales": SALES}) == (0, 2, 2, "2024-03-01")
    [errors] = filters("e = [line for line in lines if line.startswith('ERROR')]")
    assert eval(errors.expression(), {"lines": LOG}) == (0, 0, 1, LOG[0])
    try:
        eval(march.expression(), {"sales": iter(SALES)})  # an iterator would be used up: not read
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("an iterator was read")


def test_only_a_filter_that_matched_nothing_while_values_came_close_is_a_near_miss() -> None:
    [march] = filters("march = [r for r in sales if r['date'] == '2024-03']")
    [errors] = filters("e = [line for line in lines if line.startswith('ERROR')]")
    assert near_misses({march.expression(): "(0, 2, 2, '2024-03-01')"}, [march]) == [
        NearMiss(march, True, 2, "2024-03-01")]
    assert near_misses({errors.expression(): f"(0, 0, 1, {LOG[0]!r})"}, [errors]) == [
        NearMiss(errors, False, 1, LOG[0])]
    assert near_misses({march.expression(): "(1, 2, 2, '2024-03')"}, [march]) == []  # it matched
    assert near_misses({march.expression(): "(0, 0, 0, None)"}, [march]) == []  # nothing close either
    assert near_misses({}, [march]) == []  # the kernel did not answer


def test_the_model_is_told_once_a_turn_how_close_its_filter_came(tmp_path: Path) -> None:
    kernel = ScriptedKernel([out("0\n")], [out("0\n")], [out("2\n")])
    code = "march = [r for r in sales if r['date'] == '2024-03']\nprint(len(march))"
    [march] = filters(code)
    kernel.values[march.expression()] = "(0, 2, 2, '2024-03-01')"
    session = make_session(tmp_path, [f"```python\n{code}\n```", f"```python\n{code}\nprint(0)\n```",
                                      "```python\nprint(2)\n```", "Two rows."], kernel)
    turn(session, "How many rows of sales are from March 2024?")
    told = [call["input_tail"]["content"] for call in records(tmp_path / "j.jsonl", "model_call")]
    assert ("Note: no value of r['date'] equals '2024-03', but 2 of them start with it, such as '2024-03-01': == "
            "compares whole strings, and r['date'].startswith('2024-03') tests the start.") in told[1]
    assert "no value of" not in told[2] and "no value of" not in told[3]


def test_the_real_kernel_answers_for_a_filter_that_matched_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "sales.csv").write_text("date,amount\n2024-02-03,1\n2024-03-01,2\n2024-03-05,3\n")
    first = ("```python\nimport csv\nsales = list(csv.DictReader(open('sales.csv')))\n"
             "march = [r for r in sales if r['date'] == '2024-03']\nprint(len(march))\n```")
    fixed = "```python\nmarch = [r for r in sales if r['date'].startswith('2024-03')]\nprint(len(march))\n```"
    result, told = run_scripted(tmp_path, env, [first, fixed, "Two rows are from March."],
                                "How many rows of sales.csv are from March 2024?")
    assert result.returncode == 0, result.stderr
    assert "no value of r['date'] equals '2024-03', but 2 of them start with it, such as '2024-03-01'" in told[1]
    assert "no value of" not in told[2]
