"""What the session holds, told to the model with each request, read from the kernel (state_view.py): frames with
their columns, fitted models, functions, by their names, so that a later request can say "the model" or "that frame"."""

from __future__ import annotations

from pathlib import Path
from string import Template

import pytest
from conftest import error_of, records, run_interp, write_script

from interp.reading import state_view
from interp.runtime.kernel import Kernel

TEMPLATE = Template("HOLDS:\n$names")


def test_an_empty_session_says_nothing(kernel: Kernel) -> None:
    error_of(kernel, "get_ipython().reset(new_session=False)\n1 / 0")
    assert state_view.held(kernel.evaluate) == [] and state_view.note(TEMPLATE, []) == ""


def test_the_kernel_tells_what_each_name_holds(kernel: Kernel) -> None:
    pytest.importorskip("sklearn")
    error_of(kernel, """
import pandas as pd, numpy as np
from sklearn.linear_model import LinearRegression
houses = pd.DataFrame({'price': [1.0, 2.0, None], 'rooms': [1, 2, 3], 'city': ['a', 'b', 'c']})
prices = houses['price']
grid = np.zeros((3, 4))
model = LinearRegression().fit(houses[['rooms']], [1, 2, 3])
unfitted = LinearRegression()
def clean(text, lower=True):
    return text
class Mean:
    pass
class Hostile:
    def __repr__(self):
        raise RuntimeError('no')
    def __len__(self):
        raise RuntimeError('no')
odd = Hostile()
threshold = 0.5
words = ['a', 'b']
_private = 1
1 / 0""")
    said = {name: (kind, detail) for name, kind, detail in state_view.held(kernel.evaluate)}
    assert said["houses"] == ("DataFrame", "3 rows x 3 columns: price (float64), rooms (int64), city (object)")
    assert said["prices"] == ("Series", "3 values, dtype float64, named 'price'")
    assert said["grid"] == ("ndarray", "shape (3, 4), dtype float64")
    assert said["model"] == ("LinearRegression", "fitted") and said["unfitted"] == ("LinearRegression", "not fitted")
    assert said["clean"] == ("function", "clean(text, lower=True)") and said["Mean"] == ("class", "Mean")
    assert said["odd"] == ("Hostile", "") and said["threshold"] == ("float", "0.5")
    assert said["words"] == ("list", "2 items")
    assert "_private" not in said and "pd" not in said and "np" not in said


def test_a_later_request_is_told_what_earlier_ones_built(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [
        "```python\nimport pandas as pd\nhouses = pd.DataFrame({'price': [1.0, 2.0], 'rooms': [1, 2]})\n```", "Made.",
        "```python\nprint(houses['price'].mean())\n```", "1.5."])
    journal = tmp_path / "j.jsonl"
    run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
               stdin="make a frame of houses\nwhat is the mean price of that frame?\n")
    first, second = [r["content"] for r in records(journal, "user") if r.get("kind") == "request"]
    assert first == "make a frame of houses"
    assert second.startswith("The session holds these") and "- houses: DataFrame, 2 rows x 2 columns: price (float64)"
    assert second.endswith("what is the mean price of that frame?")
    off = tmp_path / "off.jsonl"
    run_interp(["-y", "--no-session-state", "--model", f"script:{script}", "--transcript", str(off)], env=env,
               cwd=tmp_path, stdin="make a frame of houses\nwhat is the mean price of that frame?\n")
    assert [r["content"] for r in records(off, "user") if r.get("kind") == "request"][1] == \
        "what is the mean price of that frame?"


def test_a_guess_about_what_the_session_holds_is_dropped_and_code_asked_for(tmp_path: Path,
                                                                              env: dict[str, str]) -> None:
    """About a frame the session holds, a reply with no code is a guess: it is dropped from the conversation (asked
    for code with its guess in view, a model confirms the guess) and the model is asked for code."""
    from interp.stores.conversations import history_from_journal

    script = write_script(tmp_path, [
        "```python\nimport pandas as pd\nhouses = pd.DataFrame({'price': [1.0, 2.0], 'rooms': [1, 2]})\n```", "Made.",
        "The rooms column.", "```python\nprint(houses.corr()['price'].drop('price').abs().idxmax())\n```",
        "It is rooms."])
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="make a frame of houses\nwhich column of houses is most correlated with price?\n")
    assert result.returncode == 0, result.stderr
    assert [r["why"] for r in records(journal, "resample")] == ["unran"]
    assert "The model answered about `houses` with no code behind it" in result.stderr
    history = [m["content"] for m in history_from_journal(records(journal))]
    assert "The rooms column." not in history and "It is rooms." in history
    assert records(journal, "execution")[-1]["output"].strip() == "rooms"
