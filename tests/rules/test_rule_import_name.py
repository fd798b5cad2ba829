"""The rule `import_name`: an import of a name its module lacks gets the names closest to it, from the kernel."""

from __future__ import annotations

import pytest

from interp.prompts import Prompts
from interp.rules import Engine, Facts
from interp.rules.registry import by_id
from interp.runtime.kernel import Kernel

RULE = Engine([by_id()["import_name"]], Prompts.load().rules)


def _said(error: str, evaluate) -> str | None:
    found = RULE.run("on_error", Facts(error=error, evaluate=evaluate))
    return found[0].text if found else None


def _answering(answer: str | None):
    return lambda expressions: {} if answer is None else {"closest": answer}


@pytest.mark.parametrize(("error", "answer", "said"), [
    ("Traceback ...\nImportError: cannot import name 'pearson' from 'scipy.stats' (/x/scipy/stats/__init__.py)",
     "['pearsonr']", "`scipy.stats` has no `pearson` in the installed version; the names closest to it that "
     "`scipy.stats` has: `pearsonr`."),
    ("ImportError: cannot import name 'sqroot' from 'math' (unknown location)", "['sqrt', 'isqrt']",
     "`math` has no `sqroot` in the installed version; the names closest to it that `math` has: `sqrt`, `isqrt`."),
    ("ImportError: cannot import name 'zzz' from 'math' (unknown location)", "[]", None),  # nothing close
    ("ImportError: cannot import name 'x' from 'gone' (unknown location)", None, None),  # the kernel could not tell
    ("ImportError: cannot import name 'x' from 'm' (unknown location)", "not a list", None),
    ("ModuleNotFoundError: No module named 'scipy'", "['scipy']", None),  # another error
    ("NameError: name 'pearson' is not defined", "['pearsonr']", None),
])
def test_the_closest_names_a_module_has(error: str, answer: str | None, said: str | None) -> None:
    assert _said(error, _answering(answer)) == said


def test_in_the_real_kernel(kernel: Kernel) -> None:
    run = kernel.execute("from statistics import stddev")
    try:
        while True:
            next(run)
    except StopIteration as stop:
        error = stop.value.error
    said = _said(error, kernel.evaluate)
    assert said is not None and said.startswith("`statistics` has no `stddev`") and "`stdev`" in said
