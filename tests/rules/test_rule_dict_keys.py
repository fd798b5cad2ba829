"""dict_keys, with a real kernel: a KeyError on a dict gets the keys the dict holds, read from the frame that raised,
wherever the code read it; other KeyErrors get nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import error_of, records, run_scripted

from interp.prompts import Prompts
from interp.rules import Engine, Facts
from interp.rules.registry import by_id
from interp.runtime.kernel import Kernel

PROMPTS = Prompts.load()
PRICES = "item;price\nbread;2.49\nmilk;1.09\n"


def said(kernel: Kernel, code: str) -> str | None:
    found = Engine([by_id()["dict_keys"]], PROMPTS.rules).run("on_error", Facts(error=error_of(kernel, code),
                                                                                  evaluate=kernel.evaluate))
    return found[0].text if found else None


@pytest.fixture(scope="module")
def prices(kernel: Kernel, tmp_path_factory: pytest.TempPathFactory) -> Kernel:
    folder = tmp_path_factory.mktemp("prices")
    (folder / "prices.csv").write_text(PRICES)
    error_of(kernel, f"import csv, os\nos.chdir({str(folder)!r})\n1 / 0")
    return kernel


@pytest.mark.parametrize(("code", "says"), [
    # a csv row read with the wrong delimiter, inside a generator expression: its one key shows the header as read
    ("reader = csv.DictReader(open('prices.csv'))\ntotal = sum(float(row['price']) for row in reader)",
     "`row` is a dict without the key 'price'. Its 1 keys, the closest first: 'item;price'."),
    # inside a function, the key written otherwise: the closest key first
    ("def speed(r):\n    return r['Wind_Speed'] * 2\nspeed({'date': 1, 'wind speed': 3, 'temp': 9})",
     "`r` is a dict without the key 'Wind_Speed'. Its 3 keys, the closest first: 'wind speed', "),
    # a global table read inside a comprehension: the frame that binds it is the cell's
    ("factor = {'h': 3600, 'min': 60}\n[factor[u] for u in ['h', 'm']]",
     "`factor` is a dict without the key 'm'. Its 2 keys, the closest first:"),
    # a key that is no string
    ("{1: 'a', 2: 'b'}.copy()\ncounts = {1: 'a', 2: 'b'}\ncounts[3]", "`counts` is a dict without the key 3."),
    ("seen = {}\nprint(seen['x'])", "`seen` is an empty dict: it holds no key yet, so not 'x'."),
])
def test_a_key_error_on_a_dict_gets_its_keys(prices: Kernel, code: str, says: str) -> None:
    text = said(prices, code)
    assert text is not None and says in text, text


def test_a_big_dict_shows_the_closest_keys_and_a_count_of_the_rest(prices: Kernel) -> None:
    text = said(prices, "big = {f'col_{i}': i for i in range(500)}\nbig['col_3999']")
    assert text is not None and "Its 500 keys, the closest first: 'col_399', " in text, text
    assert text.endswith("... 460 more. Use a key it holds, exactly as written.")


@pytest.mark.parametrize("code", [
    "raise KeyError('x')",  # no dict on the line
    "import os\nos.environ['NO_SUCH_VARIABLE_HERE']",  # a mapping that is not a dict: its keys are not listed
    "from collections import OrderedDict\no = OrderedDict(a=1)\no['b']",  # a dict subclass may run code to list keys
    "d = {'a': 1}\nd.pop('b')",  # no subscript of d on the line
    "d = {'a': 1}\nint('x')",  # not a KeyError
])
def test_other_errors_get_nothing(prices: Kernel, code: str) -> None:
    assert said(prices, code) is None


def test_a_key_error_raised_inside_pandas_is_not_a_dict_s(prices: Kernel) -> None:
    pytest.importorskip("pandas")
    assert said(prices, "import pandas as pd\ndf = pd.read_csv('prices.csv', sep=';')\ndf['Price']") is None


def test_in_a_real_session_the_model_is_told_the_keys(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "prices.csv").write_text(PRICES)
    failing = ("```python\nimport csv\nwith open('prices.csv') as f:\n"
               "    print(sum(float(row['price']) for row in csv.DictReader(f)))\n```")
    fixed = ("```python\nwith open('prices.csv') as f:\n"
             "    print(sum(float(row['price']) for row in csv.DictReader(f, delimiter=';')))\n```")
    result, told = run_scripted(tmp_path, env, [failing, fixed, "3.58"], "the total price in prices.csv")
    assert "`row` is a dict without the key 'price'. Its 1 keys, the closest first: 'item;price'." in told[1], \
        result.stdout
    assert [r["rule"] for r in records(tmp_path / "j.jsonl", "rule_fired")][:1] == ["dict_keys"]
    assert "3.58" in result.stdout
