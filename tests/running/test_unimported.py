"""Names code uses without importing them get their import put before the code (unimported.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import records, run_interp, run_scripted, write_script

from interp.common.textclean import arrow_lines
from interp.prompts import Prompts
from interp.running.unimported import bound_at_top, free_names, lacking, module, needed, with_imports

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


def test_the_names_code_binds_at_top_are_not_those_it_binds_inside_functions_classes_or_comprehensions() -> None:
    code = (
        "import numpy as np, os.path\n"
        "from math import factorial as fact\n"
        "total = 0\n"
        "for i, x in enumerate([1]):\n"
        "    with open('f') as handle:\n"
        "        pass\n"
        "try:\n"
        "    import re\n"
        "except ImportError as err:\n"
        "    pass\n"
        "squares = [k * k for k in range(3)]\n"
        "def f(a):\n"
        "    from math import gcd\n"
        "    inner = a\n"
        "    return gcd(inner, 2)\n"
        "class C:\n"
        "    attr = 1\n"
        "g = lambda b: b\n"
    )
    assert bound_at_top(code) == {"np", "os", "fact", "total", "i", "x", "handle", "re", "err", "squares", "f",
                                  "C", "g"}
    assert bound_at_top("def broken(:\n") == set()


def test_a_name_held_as_the_very_object_its_import_gives_needs_the_import_unless_a_clean_run_bound_it() -> None:
    import math

    line = "from math import factorial"

    def asked(namespace: dict[str, object], clean: bool = False) -> bool:
        return bool(eval(lacking("factorial", line, clean), namespace))

    assert asked({})  # not held
    assert asked({"factorial": math.factorial})  # held from a failed run
    assert not asked({"factorial": math.factorial}, clean=True)  # a clean run imported it
    assert not asked({"factorial": lambda n: n})  # the user's own
    assert not eval(lacking("nx", "import networkx_not_installed as nx", False), {})


def test_only_names_of_the_table_get_an_import() -> None:
    assert needed("print(math.ceil(ceil(2.5)), np.mean([1]), frobnicate(1))", TABLE) == {
        "math": "import math", "ceil": "from math import ceil", "np": "import numpy as np"}
    assert needed("import math\nprint(math.pi)", TABLE) == {}
    assert needed("string = 'abc'\nprint(string.upper())", TABLE) == {}
    assert needed("for product in [1, 2]:\n    print(product)", TABLE) == {}


def test_imports_go_on_the_codes_first_line_below_future_imports_and_above_a_compound_statement() -> None:
    """On the line the code starts, a traceback's numbers are the code's as written; a `def` cannot follow a `;`."""
    imports = ["import math", "from math import gcd"]
    assert with_imports("print(math.pi)", imports) == "import math; from math import gcd; print(math.pi)"
    assert with_imports("# the area\nprint(math.pi)", ["import math"]) == "import math; # the area\nprint(math.pi)"
    code = '"""Doc."""\nfrom __future__ import annotations\nprint(math.pi)'
    assert with_imports(code, ["import math"]).splitlines() == [
        '"""Doc."""', "from __future__ import annotations", "import math; print(math.pi)"]
    assert with_imports("\nrows = [\n    1]", ["import math"]) == "import math\nrows = [\n    1]"
    for compound in ("def area(r):\n    return math.pi", "@cache\ndef f():\n    pass", "for x in y:\n    pass"):
        assert with_imports(compound, imports) == f"import math\nfrom math import gcd\n\n{compound}"
    assert with_imports("x = 1", []) == "x = 1"


def test_in_the_real_kernel_code_that_uses_math_unimported_runs_with_the_import_added(
    tmp_path: Path, env: dict[str, str]
) -> None:
    result, _ = run_scripted(tmp_path, env, ["```python\nprint(math.ceil(7 / 2), gcd(12, 18))\n```", "Done."],
                             "Print the ceiling of 7/2 and the gcd of 12 and 18.")
    assert "4 6" in result.stdout, result.stdout + result.stderr
    assert "adding before it: import math; from math import gcd" in result.stderr
    runs = records(tmp_path / "j.jsonl", "execution")
    assert runs[0]["status"] == "ok" and runs[0]["code"].startswith("import math; from math import gcd; print(")
    assert records(tmp_path / "j.jsonl", "imports_added")[0]["imports"] == ["import math", "from math import gcd"]


@pytest.mark.parametrize(("first", "second", "printed"), [
    ("string = 'abc'", "print(string.upper())", "ABC"),  # the user's value, not the module: nothing imported over it
    ("from math import factorial", "print(factorial(4))", "24"),  # a clean run's import is not added again
])
def test_a_name_a_clean_run_bound_is_left_as_it_is(
    tmp_path: Path, env: dict[str, str], first: str, second: str, printed: str
) -> None:
    script = write_script(tmp_path, [f"```python\n{first}\n```", "Set.", f"```python\n{second}\n```", "Printed."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="Set it.\nPrint it.\n")
    assert printed in result.stdout, result.stdout + result.stderr
    assert "adding before it" not in result.stderr
    assert records(journal, "imports_added") == []


COMPREHENSION = "rows = [['a', 'b', 'c', 'd', 'e', 'x']]\nvals = [float(r[5]) for r in rows]\nprint(math.fsum(vals))"
IN_A_FUNCTION = ("def column(rows):\n    return [float(r[5]) for r in rows]\n\n"
                 "print(math.fsum(column([['a', 'b', 'c', 'd', 'e', 'x']])))")


@pytest.mark.parametrize(("code", "failed"), [
    (COMPREHENSION, "----> 2 vals = [float(r[5]) for r in rows]"),  # the import on its first line: numbered as written
    (IN_A_FUNCTION, "----> 4     return [float(r[5]) for r in rows]"),  # the import above a def: two lines down
])
def test_a_comprehensions_frame_shows_the_line_that_failed_not_the_import_added(
    tmp_path: Path, env: dict[str, str], code: str, failed: str
) -> None:
    """IPython 9 on Python 3.11 showed the frame of the comprehension that raised with the cell's first line (or its
    function's), `----> 2 import math`: the user and the model read the line that failed."""
    journal = tmp_path / "j.jsonl"
    script = write_script(tmp_path, [f"```python\n{code}\n```", "Stopped."])
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal), "--max-attempts", "1",
                         "Sum the sixth column of the rows."], env=env, cwd=tmp_path)
    assert "adding before it: import math" in result.stderr, result.stderr
    [run] = records(journal, "execution")
    error = run["error"]
    assert failed in error and "ValueError: could not convert string to float: 'x'" in error
    assert all("float(r[5])" in line for line in arrow_lines(error) if "print(" not in line), error
    assert not any("import" in line for line in arrow_lines(error))
    told = next(r["content"] for r in records(journal, "user") if r["kind"] == "feedback")
    assert failed in told and not any("import" in line for line in arrow_lines(told))


def test_each_import_of_the_table_binds_the_name_it_is_listed_for() -> None:
    assert {name: bound_at_top(line) for name, line in TABLE.items()} == {name: {name} for name in TABLE}


def test_the_module_of_an_import_line_is_its_top_level_package() -> None:
    assert [module(TABLE[name]) for name in ("math", "ceil", "plt", "np")] == ["math", "math", "matplotlib", "numpy"]


def test_a_short_name_gets_its_import_only_where_the_kernel_can_import_the_module(
    tmp_path: Path, env: dict[str, str]
) -> None:
    # Where pandas is not installed, `pd` is left to fail: the NameError's hint says so (rule module_alias).
    result, _ = run_scripted(tmp_path, env, ["```python\nprint(math.pi > 3, type(pd).__name__)\n```", "Done."],
                             "Show it.")
    [added] = records(tmp_path / "j.jsonl", "imports_added")
    if importlib.util.find_spec("pandas"):
        assert added["imports"] == ["import math", "import pandas as pd"] and "True module" in result.stdout
    else:
        assert added["imports"] == ["import math"]
        assert "NameError: name 'pd' is not defined" in records(tmp_path / "j.jsonl", "execution")[0]["error"]


def test_an_import_only_a_failed_run_made_is_added_so_the_clean_runs_make_a_script_that_runs(
    tmp_path: Path, env: dict[str, str]
) -> None:
    # A first version imported factorial and failed its check; the next uses it unimported: in the kernel it runs as
    # it is, but the exported script (the clean runs) would stop on a NameError without the import added.
    failed = "```python\nfrom math import factorial\n\ndef f(n):\n    return factorial(n)\n\nassert f(3) == 7\n```"
    fixed = "```python\ndef f(n):\n    return factorial(n) + 1\n\nprint(f(3))\n```"
    result, _ = run_scripted(tmp_path, env, [failed, fixed, "Done."], "Write f.")
    assert "7" in result.stdout, result.stdout + result.stderr
    journal = tmp_path / "j.jsonl"
    assert [r["status"] for r in records(journal, "execution")] == ["error", "ok"]
    assert records(journal, "imports_added")[0]["imports"] == ["from math import factorial"]
    script = tmp_path / "out.py"
    assert run_interp(["--export", str(journal), str(script)], env=env, cwd=tmp_path).returncode == 0
    rerun = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert rerun.returncode == 0 and rerun.stdout.strip() == "7", rerun.stderr
