"""A request's example tables run as checks (tables.py): which requests give them, the check they become, what it
compares in the real kernel, and the loop that draws a function that failed one again."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import records, run, run_scripted

from interp.runtime.kernel import Kernel
from interp.versions.examples import checks, parse
from interp.versions.tables import pairs, signature

CUSTOMERS = """Write a function `def find_customers(customers: pd.DataFrame, orders: pd.DataFrame) -> pd.DataFrame`.

`customers` has the columns:
- id: int
- name: str

The function should return all customers who never order anything, in any order.

Example input:
```
customers:
+----+-------+
| id | name  |
+----+-------+
| 1  | Joe   |
| 2  | Henry |
| 3  | Sam   |
| 4  | Max   |
+----+-------+
orders:
+----+------------+
| id | customerId |
+----+------------+
| 1  | 3          |
| 2  | 1          |
+----+------------+
```

Example output:
```
+-----------+
| Customers |
+-----------+
| Henry     |
| Max       |
+-----------+
```"""
RIGHT = ("```python\nimport pandas as pd\n\ndef find_customers(customers, orders):\n"
         "    left = customers[~customers['id'].isin(orders['customerId'])]\n"
         "    return left[['name']].rename(columns={'name': 'Customers'})\n```")
WRONG = ("```python\nimport pandas as pd\n\ndef find_customers(customers, orders):\n"
         "    return customers[~customers['id'].isin(orders['customerId'])]\n```")
MARKDOWN = """Write `def top(scores)` returning each player's best score, ordered by player.

Input:

scores

| player | score |
|--------|-------|
| ann    | 3.50  |
| bob    | 2     |
| ann    | 4     |

Output:

| player | best |
| --- | --- |
| ann | 4.00 |
| bob | 2.0 |
"""


def test_a_request_s_example_tables_become_one_check_of_its_function() -> None:
    examples = parse(CUSTOMERS)
    assert [(e.source, e.calls) for e in examples] == [("find_customers(customers, orders)",
                                                        frozenset({"find_customers"}))]
    code = checks(examples, {"find_customers"})
    assert code is not None and code.count("\nassert ") == 1
    assert "'customerId': [3, 1]" in code and "['Customers']" in code
    assert checks(examples, {"other"}) is None


@pytest.mark.parametrize("request_text", [
    CUSTOMERS.replace("`def find_customers(customers: pd.DataFrame, orders: pd.DataFrame) -> pd.DataFrame`", "it"),
    CUSTOMERS.replace("Example output:", "Afterwards:"),  # no output table
    CUSTOMERS.replace("orders:\n+", "\n+").replace("customers:\n+", "\n+"),  # two tables, neither named
    CUSTOMERS.replace("| 2  | 1          |", "| 2  | 1          | 5 |"),  # a row longer than its header
    CUSTOMERS + "\nAlso write `def other(x)`.",  # two functions: which one the tables are for is not said
    "Here is a table:\n| a | b |\n|---|---|\n| 1 | 2 |\nWrite `def f(t)`.",  # a table, not an example
])
def test_requests_whose_tables_are_no_example_of_one_function_give_no_check(request_text: str) -> None:
    assert parse(request_text) == []


def test_markdown_tables_and_one_unnamed_input_table_for_one_parameter() -> None:
    assert signature(MARKDOWN, None) == ("top", ["scores"], False)
    [(inputs, output)] = pairs(MARKDOWN)
    assert [t.header for t in inputs] == [["player", "score"]] and output.rows == [["ann", "4.00"], ["bob", "2.0"]]
    assert len(parse(MARKDOWN)) == 1


def test_a_function_that_changes_its_table_in_place_is_checked_by_the_table_after_the_call() -> None:
    request = CUSTOMERS.replace("-> pd.DataFrame`", "-> None`").replace(", orders: pd.DataFrame", "")
    output = "```\n\nExample output:\n```\n+----+\n| id |\n+----+\n| 1  |\n+----+\n```"
    request = request[:request.index("orders:")] + output
    assert signature(request, None) == ("find_customers", ["customers"], True)
    code = checks(parse(request), {"find_customers"})
    assert code is not None and "(_interp_in := _interp_pd.DataFrame(" in code and "left its table as" in code


def _checked(kernel: Kernel, request: str, function: str) -> str:
    """The error of the request's checks after `function` was defined in the kernel ("" when they pass)."""
    code = checks(parse(request), {"find_customers", "top"})
    assert code is not None
    _, result = run(kernel, function + "\n" + code)
    return result.error or ""


def test_in_the_real_kernel_the_check_passes_a_right_function_and_tells_a_wrong_one_both_tables(
        kernel: Kernel) -> None:
    assert _checked(kernel, CUSTOMERS, RIGHT.strip("`").removeprefix("python\n")) == ""
    error = _checked(kernel, CUSTOMERS, WRONG.strip("`").removeprefix("python\n"))
    assert ("check failed: find_customers(customers, orders) on the example input in my request returned columns "
            "['id', 'name'], 2 rows: [('2', 'Henry'), ('4', 'Max')]; the example output has columns ['Customers'], "
            "2 rows: [('Henry',), ('Max',)]") in error
    series = _checked(kernel, CUSTOMERS, "def find_customers(customers, orders):\n    return customers['name']")
    assert "returned a Series, not a DataFrame: ['Joe', 'Henry', 'Sam', 'Max']" in series


def test_in_the_real_kernel_numbers_are_compared_as_values_and_columns_and_rows_in_any_order(kernel: Kernel) -> None:
    right = ("import pandas as pd\ndef top(scores):\n"
             "    return scores.groupby('player', as_index=False)['score'].max().rename(columns={'score': 'best'})"
             "[['best', 'player']].iloc[::-1]")
    assert _checked(kernel, MARKDOWN, right) == ""
    unrounded = "def top(scores):\n    return pd.DataFrame({'player': ['ann', 'bob'], 'best': [4.001, 2]})"
    assert "4.001" in _checked(kernel, MARKDOWN, unrounded)


def test_in_the_real_kernel_dates_declared_or_written_as_dates_are_datetimes(kernel: Kernel) -> None:
    request = """Write `def days(log: pd.DataFrame) -> pd.DataFrame`.
- day: date

Example input:
log:
| day | n |
|---|---|
| 2020-05-30 | 1 |
| null | 2 |

Example output:
| day | n |
|---|---|
| 2020-05-30 | 1 |
"""
    function = "def days(log):\n    return log[log['day'].dt.year == 2020]"
    code = checks(parse(request), {"days"})
    assert code is not None
    _, result = run(kernel, function + "\n" + code)
    assert result.error is None


def test_a_function_that_fails_the_example_tables_is_drawn_again_and_the_right_one_ends_the_turn(
        tmp_path: Path, env: dict[str, str]) -> None:
    result, shown = run_scripted(tmp_path, env, [WRONG, RIGHT, "Done."], CUSTOMERS)
    assert result.returncode == 0, result.stderr
    assert [e["status"] for e in records(tmp_path / "j.jsonl", "execution")] == ["ok", "error", "ok", "ok"]
    [fresh] = records(tmp_path / "j.jsonl", "fresh")
    assert fresh["failures"] == ["check failed: find_customers(customers, orders) on the example input in my request "
                                 "returned columns ['id', 'name'], 2 rows: [('2', 'Henry'), ('4', 'Max')]; the example "
                                 "output has columns ['Customers'], 2 rows: [('Henry',), ('Max',)]"]
    assert shown[1] == CUSTOMERS  # drawn again from the request alone (fresh.py)
    assert "Running the examples in your request as checks." in result.stderr
