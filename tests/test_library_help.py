"""Help on a failed library call, read from a real kernel: good inputs get the kernel's facts, bad ones nothing."""

from __future__ import annotations

from pathlib import Path
from string import Template

import pytest

from interp import library_help
from interp.kernel import Kernel
from interp.prompts import Prompts

pytest.importorskip("pandas")
TEXT = Prompts.load().hints


def error_of(kernel: Kernel, code: str) -> str:
    run = kernel.execute(code)
    try:
        while True:
            next(run)
    except StopIteration as stop:
        assert stop.value.error, f"{code!r} did not fail"
        return stop.value.error


@pytest.fixture(scope="module")
def frame(kernel: Kernel, tmp_path_factory: pytest.TempPathFactory) -> Kernel:
    folder = tmp_path_factory.mktemp("data")
    (folder / "t.csv").write_text("Name,Country,Fare,Age\nA,Switzerland,7.25,22\nB,France,71.28,38\n")
    error_of(kernel, f"import pandas as pd\ndf = pd.read_csv({str(folder / 't.csv')!r})\nfrom sklearn.linear_model "
                     "import LinearRegression\nmodel = LinearRegression()\n1 / 0")
    return kernel


def test_an_unknown_keyword_gets_the_installed_signature_and_the_closest_parameter(frame: Kernel) -> None:
    error = error_of(frame, "pd.read_csv('t.csv', sepp=';')")
    said = library_help.call_help(error, frame.evaluate, TEXT["library_call"])
    assert said is not None and "The installed version of `pd.read_csv` takes:" in said
    assert "read_csv(filepath_or_buffer" in said and "The closest parameter to `sepp` is `sep`." in said


def test_a_missing_argument_gets_the_signature(frame: Kernel) -> None:
    error = error_of(frame, "from sklearn.metrics import mean_squared_error\nmean_squared_error([1, 2])")
    said = library_help.call_help(error, frame.evaluate, TEXT["library_call"])
    assert said is not None and "mean_squared_error(y_true, y_pred" in said


def test_an_attribute_a_library_object_lacks_gets_its_closest_names(frame: Kernel) -> None:
    error = error_of(frame, "print(df.colums)")
    said = library_help.attribute_help(error, frame.evaluate, TEXT["library_attribute"])
    assert said is not None and "`df` has no `colums`" in said and "`columns`" in said
    error = error_of(frame, "import numpy as np\nnp.float_one")
    said = library_help.attribute_help(error, frame.evaluate, TEXT["library_attribute"])
    assert said is not None and "`np` has no `float_one`" in said


def test_a_missing_column_gets_the_frame_s_columns_closest_first(frame: Kernel) -> None:
    error = error_of(frame, "print(df['fare'].mean())")
    said = library_help.frame_help(error, frame.evaluate, TEXT["library_key"], TEXT["library_dtypes"])
    assert said is not None and said.startswith("fare is not a column of `df`. Its columns, the closest first: 'Fare'")


def test_a_numeric_operation_on_text_gets_the_dtypes_and_numeric_only(frame: Kernel) -> None:
    error = error_of(frame, "print(df.corr())")
    said = library_help.frame_help(error, frame.evaluate, TEXT["library_key"], TEXT["library_dtypes"])
    assert said is not None
    assert "df: 2 rows; columns and dtypes: Name (object), Country (object), Fare (float64)" in said
    assert "`df.corr` takes `numeric_only=True`" in said
    assert "header" not in said


@pytest.mark.parametrize("code", [
    "x = {'a': 1}\nprint(x['b'])",  # a KeyError of a dict, not raised inside a library
    "def f(a):\n    return a\nf(1, 2)",  # the user's own function
    "class C:\n    pass\nC().missing",  # the user's own class
    "int('x')",  # a ValueError outside any library
    "pd.read_csv('t.csv').missing_attr",  # the object comes from a call: nothing plain to ask about
])
def test_errors_that_are_not_about_a_library_get_nothing(frame: Kernel, code: str) -> None:
    error = error_of(frame, code)
    text: dict[str, Template] = TEXT
    assert library_help.call_help(error, frame.evaluate, text["library_call"]) is None
    assert library_help.attribute_help(error, frame.evaluate, text["library_attribute"]) is None
    assert library_help.frame_help(error, frame.evaluate, text["library_key"], text["library_dtypes"]) is None


def test_an_error_inside_a_function_is_not_read_from_the_session_s_names(frame: Kernel) -> None:
    error = error_of(frame, "def g():\n    return df['fare']\ng()")
    assert library_help.frame_help(error, frame.evaluate, TEXT["library_key"], TEXT["library_dtypes"]) is None


@pytest.mark.parametrize(("code", "told"), [
    ("df = pd.read_csv('t.csv', sepp=',')", "The closest parameter to `sepp` is `sep`."),
    ("print(df.colums)", "its closest names: `columns`"),
    ("print(df['fare'].mean())", "fare is not a column of `df`. Its columns, the closest first: 'Fare'"),
    ("print(df.corr())", "`df.corr` takes `numeric_only=True`"),
])
def test_the_model_is_told_what_the_kernel_knows(tmp_path: Path, env: dict[str, str], code: str, told: str) -> None:
    from conftest import run_scripted

    (tmp_path / "t.csv").write_text("Name,Country,Fare\nA,Switzerland,7.25\nB,France,71.28\n")
    setup = "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
    result, inputs = run_scripted(tmp_path, env, [f"```python\n{setup}{code}\n```", "I cannot."], "Go.")
    assert told in inputs[1], result.stdout
    assert "csv.DictReader" not in inputs[1] and "header line" not in inputs[1]
