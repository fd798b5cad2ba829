"""What the failing line's parts held when it failed (probe.py): which line, which parts are safe to evaluate, how
they are described, and the real kernel's answer in a session."""

from __future__ import annotations

from pathlib import Path

from conftest import records, run_interp, write_script

from interp.probe import MAX_CHARS, described, expressions, failing_line, parts

TOP_LEVEL = """Traceback (most recent call last):
Cell In[1], line 6
      4 for line in lines:
      5     if 'ERROR' in line:
----> 6         hour = int(line[11:13])
      7 print(hour)

ValueError: invalid literal for int() with base 10: ''"""
IN_FUNCTION = """Traceback (most recent call last):
Cell In[2], line 4
----> 4 average(values)

Cell In[2], line 2, in average(xs)
----> 2     return sum(xs) / len(xs)

ZeroDivisionError: division by zero"""
IN_LIBRARY = """Traceback (most recent call last):
Cell In[3], line 2
----> 2 when = datetime.strptime(stamp, '%Y-%m-%d')

File /usr/lib/python3.11/_strptime.py:568, in _strptime_datetime(cls, data_string, format)
--> 568 tt, fraction, gmtoff_fraction = _strptime(data_string, format)

ValueError: unconverted data remains:  10:02"""


def test_the_line_is_the_top_level_of_a_cell_and_never_a_function_body_or_a_file() -> None:
    assert failing_line(TOP_LEVEL) == "        hour = int(line[11:13])"
    assert failing_line(IN_LIBRARY) == "when = datetime.strptime(stamp, '%Y-%m-%d')"
    assert failing_line(IN_FUNCTION) is None  # xs is the function's: the session's xs, if any, is another
    assert failing_line("Traceback (most recent call last):\nFile /tmp/report.py:2\n----> 2 x = y\nNameError") is None
    assert failing_line("  File \"<string>\", line 1\nSyntaxError: invalid syntax") is None


def test_the_parts_are_the_values_on_the_line_innermost_first() -> None:
    assert parts("        hour = int(re.search(r'\\d{2}', line).group(0)[11:13])") == [
        "re", "line", "re.search(r'\\d{2}', line)", "re.search(r'\\d{2}', line).group(0)",
        "re.search(r'\\d{2}', line).group(0)[11:13]", "int(re.search(r'\\d{2}', line).group(0)[11:13])"]
    assert parts("total += float(row['amount'])") == ["row", "row['amount']", "float(row['amount'])", "total"]
    assert parts("elif a[i] > b:") == ["a", "i", "a[i]", "b"]  # a block's header is read with an empty body
    assert parts("for key in data['items'].keys():") == ["data", "data['items']", "data['items'].keys()"]
    assert parts("x = (") == [] and parts("print('done')") == []


def test_nothing_that_could_change_anything_or_run_long_is_evaluated() -> None:
    assert parts("x = stack.pop() + int(s)") == ["stack", "s", "int(s)"]  # stack.pop() would change stack
    assert parts("n = len(open(path).read())") == ["path"]
    assert parts("y = 'a' * n + str(m ** k)") == ["n", "m", "k"]  # 'a' * 10**9 would fill the memory
    assert parts("total = sum(float(r['x']) for r in rows)") == ["rows"]  # r is the generator's, not the session's
    assert parts("f = sorted(d, key=lambda k: d[k])") == ["d"]
    assert parts("print(next(it))") == ["it"]


def test_each_part_is_described_on_a_line_of_bounded_length() -> None:
    assert described({"line": "'10:02'", "gone": "x"}, ["line", "line[11:13]"]) == "line = '10:02'"
    assert described({"w": "<_csv.writer object at 0x7f82>", "n": "3"}, ["w", "n"]) == "n = 3"  # a default repr
    long = described({"s": "'" + "a" * 500 + "'"}, ["s"])
    assert len(long) == MAX_CHARS and long.endswith(" ...")


def test_the_kernel_expression_leaves_out_functions_and_modules_and_bounds_containers() -> None:
    [expression] = expressions(["v"]).values()
    assert eval(expression, {"v": ""}) == "''"
    assert eval(expression, {"v": 2.5}) == "2.5"
    assert eval(expression, {"v": {"a": "1"}}) == "dict of 1 items: {'a': '1'}"
    assert len(eval(expression, {"v": list(range(100_000))})) < 100
    for unwanted in (len, Path, __import__("re")):
        try:
            eval(expression, {"v": unwanted})
        except ZeroDivisionError:
            continue
        raise AssertionError(f"{unwanted} was described")


def test_in_a_real_session_the_model_is_shown_what_the_failing_line_held(tmp_path: Path, env: dict[str, str]) -> None:
    failing = ("```python\nstack = [1, 2]\nfor line in ['2024-05-01 10:02:33 ERROR x']:\n"
               "    hour = stack.pop() + int(line[30:32])\n```")
    script = write_script(tmp_path, [failing, "```python\nprint(stack)\n```", "Done."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "the hour"],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    calls = records(journal, "model_call")
    told = calls[1]["input_tail"]["content"]
    assert "When it failed, the parts of the failing line held:" in told
    assert "line = '2024-05-01 10:02:33 ERROR x'" in told
    assert "line[30:32] = ''" in told and "stack = list of 1 items: [1]" in told and "stack.pop() =" not in told
    assert "[1]" in calls[2]["input_tail"]["content"]  # the probe popped nothing: the code's own pop() did


def test_indexing_a_defaultdict_is_not_evaluated_for_it_would_add_the_key() -> None:
    from collections import defaultdict

    guarded = expressions(["counts[word]", "plain[word]", "word"])
    counts: defaultdict[str, int] = defaultdict(int)
    scope = {"counts": counts, "plain": {"cat": 2}, "word": "cat"}
    try:
        eval(guarded["counts[word]"], scope)
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("a defaultdict was indexed")
    assert dict(counts) == {}  # the guard ran before the index: no key added
    assert eval(guarded["plain[word]"], scope) == "2" and eval(guarded["word"], scope) == "'cat'"
