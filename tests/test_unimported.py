"""Names code uses without importing them get their import put above the code (unimported.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import records, run_interp, run_scripted, write_script

from interp.prompts import Prompts
from interp.unimported import free_names, module, needed, with_imports

TABLE = Prompts.load().imports


def test_free_names_are_those_read_and_bound_nowhere_in_the_code() -> None:
    code = (
        "def f(xs, k=2):\n"
        "    total = sum(math.ceil(x / k) for x in xs)\n"
        "    try:\n"
        "        import re\n"
        "    except ImportError as err:\n"
        "        raise err\n"
        "    return Counter(xs), total, re, helper(xs)\n"
        "def helper(ys):\n"
        "    return [y for y in ys]\n"
    )
    assert free_names(code) == ["math", "Counter"]
    assert free_names("def broken(:\n") == []


def test_only_names_of_the_table_get_an_import() -> None:
    assert needed("print(math.ceil(ceil(2.5)), np.mean([1]), frobnicate(1))", TABLE) == {
        "math": "import math", "ceil": "from math import ceil", "np": "import numpy as np"}
    assert needed("import math\nprint(math.pi)", TABLE) == {}
    assert needed("string = 'abc'\nprint(string.upper())", TABLE) == {}
    assert needed("for product in [1, 2]:\n    print(product)", TABLE) == {}


def test_imports_go_above_the_code_and_below_future_imports() -> None:
    assert with_imports("print(math.pi)", ["import math"]) == "import math\n\nprint(math.pi)"
    code = '"""Doc."""\nfrom __future__ import annotations\nprint(math.pi)'
    assert with_imports(code, ["import math"]).splitlines() == [
        '"""Doc."""', "from __future__ import annotations", "import math", "", "print(math.pi)"]
    assert with_imports("x = 1", []) == "x = 1"


def test_in_the_real_kernel_code_that_uses_math_unimported_runs_with_the_import_added(
    tmp_path: Path, env: dict[str, str]
) -> None:
    result, _ = run_scripted(tmp_path, env, ["```python\nprint(math.ceil(7 / 2), gcd(12, 18))\n```", "Done."],
                             "Print the ceiling of 7/2 and the gcd of 12 and 18.")
    assert "4 6" in result.stdout, result.stdout + result.stderr
    assert "adding above it: import math; from math import gcd" in result.stderr
    runs = records(tmp_path / "j.jsonl", "execution")
    assert runs[0]["status"] == "ok" and runs[0]["code"].startswith("import math\nfrom math import gcd\n\n")
    assert records(tmp_path / "j.jsonl", "imports_added")[0]["imports"] == ["import math", "from math import gcd"]


def test_a_name_the_kernel_holds_is_left_as_it_is(tmp_path: Path, env: dict[str, str]) -> None:
    # `string` set by an earlier turn is the user's value, not the module: nothing is imported over it.
    script = write_script(tmp_path, ["```python\nstring = 'abc'\n```", "Set.",
                                     "```python\nprint(string.upper())\n```", "Printed."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="Set string to abc.\nPrint it in capitals.\n")
    assert "ABC" in result.stdout, result.stdout + result.stderr
    assert "adding above it" not in result.stderr
    assert records(journal, "imports_added") == []


def test_the_module_of_an_import_line_is_its_top_level_package() -> None:
    assert [module(TABLE[name]) for name in ("math", "ceil", "plt", "np")] == ["math", "math", "matplotlib", "numpy"]


def test_a_short_name_gets_its_import_only_where_the_kernel_can_import_the_module(
    tmp_path: Path, env: dict[str, str]
) -> None:
    # Where pandas is not installed, `pd` is left to fail: the NameError's hint says so (hints.py, test_hints.py).
    result, _ = run_scripted(tmp_path, env, ["```python\nprint(math.pi > 3, type(pd).__name__)\n```", "Done."],
                             "Show it.")
    [added] = records(tmp_path / "j.jsonl", "imports_added")
    if importlib.util.find_spec("pandas"):
        assert added["imports"] == ["import math", "import pandas as pd"] and "True module" in result.stdout
    else:
        assert added["imports"] == ["import math"]
        assert "NameError: name 'pd' is not defined" in records(tmp_path / "j.jsonl", "execution")[0]["error"]
