"""A data request as a new user makes it, through README's own command: the kernel has pandas, offline, and the
default model uses it."""

from __future__ import annotations

import csv
import os
import random
import statistics
import subprocess
from pathlib import Path

import pytest
from conftest import records, run_scripted

RUN = Path(__file__).resolve().parents[2] / "scripts" / "run"


def titanic(folder: Path) -> float:
    """A 715-row CSV shaped like the Titanic passenger list (blanks in Age, commas in names); its mean Fare."""
    rng = random.Random(3)
    fares = []
    with open(folder / "titanic.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["PassengerId", "Survived", "Pclass", "Name", "Sex", "Age", "Fare", "Embarked"])
        for i in range(1, 716):
            fares.append(round(rng.uniform(5, 250), 4))
            out.writerow([i, rng.randint(0, 1), rng.randint(1, 3), f"Person, Mr. {i}", rng.choice(["male", "female"]),
                          rng.choice(["", str(rng.randint(1, 80))]), fares[-1], rng.choice("SCQ")])
    return statistics.mean(fares)


@pytest.mark.model
def test_the_mean_of_a_column_through_scripts_run(tmp_path: Path, env: dict[str, str]) -> None:
    mean = titanic(tmp_path)
    env = {**env, "INTERP_MODEL": "qwen2.5-coder-1.5b", "HOME": str(tmp_path)}
    result = subprocess.run([str(RUN), "-y", "--temperature", "0", "--seed", "1", "--threads", "2",
                             "What is the mean of the Fare column in titanic.csv?"], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=900, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    [journal] = (Path(env["XDG_DATA_HOME"]) / "interp" / "sessions").glob("*.jsonl")
    worked = [e for e in records(journal, "execution") if e["status"] == "ok"]
    assert worked and "pandas" in worked[-1]["code"], [e["code"] for e in records(journal, "execution")]
    assert f"{mean:.2f}" in f"{float(worked[-1]['output'].split()[-1]):.2f}", worked[-1]["output"]
    assert records(journal, "session")[0]["sandbox"].endswith("no network")
    assert os.path.exists(tmp_path / "titanic.csv")


@pytest.mark.model
def test_an_answer_begun_in_the_form_asked_gives_the_value_the_output_showed() -> None:
    """The default model, its answer begun with the first part the request asks for (the form_opening rule), writes
    the value its code printed, where it had answered in prose twice."""
    from interp.models import model_path
    from interp.models.base import GenParams, complete_text
    from interp.models.llama import LlamaModel
    from interp.prompts import Prompts

    note = Prompts.load().rules["form_opening.note"].safe_substitute(forms="@bmi_skew[...] @bmi_distribution[...]")
    request = ("Check whether the bmi column of insurance.csv follows a normal distribution: normal if the absolute "
               "skewness is under 0.5.\nAnswer format: @bmi_skew[skewness] @bmi_distribution[status], where skewness "
               "is rounded to two decimals and status is \"normal\" or \"not_normal\".")
    code = ("```python\nimport pandas as pd\ns = pd.read_csv('insurance.csv')['bmi'].skew()\nprint(round(s, 2))\n"
            "print('normal' if abs(s) < 0.5 else 'not_normal')\n```")
    messages = [{"role": "user", "content": request}, {"role": "assistant", "content": code},
                {"role": "user", "content": "Output:\n```text\n0.28\nnormal\n```"},
                {"role": "assistant", "content": "The bmi values follow a normal distribution."},
                {"role": "user", "content": note}]
    model = LlamaModel(model_path("qwen2.5-coder-1.5b")[0], n_ctx=1024)
    try:
        reply, _ = complete_text(model, messages, GenParams(max_tokens=24, temperature=0.0, opening="@bmi_skew["))
    finally:
        model.close()
    assert reply.startswith("@bmi_skew[0.28]"), reply
    assert "@bmi_distribution[normal]" in reply, reply


def test_a_pandas_error_is_shown_to_the_model_as_the_user_s_line_and_the_exception(tmp_path: Path,
                                                                                  env: dict[str, str]) -> None:
    """A real kernel's pandas tracebacks, as the model reads them to repair its code: a missing column without the
    index's own KeyError chained before it, and an exception quoting a whole column cut to its head and tail."""
    pytest.importorskip("pandas")
    (tmp_path / "t.csv").write_text("region,charges\n" + "northwest,1.5\n" * 3000)
    replies = ["```python\nimport pandas as pd\ndf = pd.read_csv('t.csv')\nprint(df['year'].mean())\n```",
               "```python\nprint(df['region'].mean())\n```", "I cannot."]
    result, inputs = run_scripted(tmp_path, env, replies, "The mean year.")
    key, text = inputs[1], inputs[2]
    assert "----> 3 print(df['year'].mean())" in key and "KeyError: 'year'" in key, result.stdout
    assert "direct cause" not in key and "pandas/_libs" not in key and "Could not get source" not in key
    assert "TypeError: Could not convert string 'northwestnorthwest" in text and "characters ...]" in text
    assert len(text) < 3000, text


def students(folder: Path) -> str:
    """A 145-row students CSV shaped like the one a new user brought (grades, sex, study hours, last GPA); the numeric
    column most correlated with GRADE, as pandas computes it."""
    import pandas as pd

    rng = random.Random(11)
    rows = []
    for i in range(145):
        sex = rng.randint(1, 2)
        gpa = rng.randint(1, 5)
        rows.append({"STUDENT ID": f"STUDENT{i}", "Sex": sex, "Weekly study hours": rng.randint(1, 5),
                     "Cumulative GPA in the last semester": gpa, "Age": rng.randint(1, 3),
                     "GRADE": min(7, max(0, 2 * sex + gpa // 2 + rng.randint(-1, 2)))})
    frame = pd.DataFrame(rows)
    frame.to_csv(folder / "students.csv", index=False)
    return str(frame.corr(numeric_only=True)["GRADE"].drop("GRADE").abs().idxmax())


@pytest.mark.model
def test_a_question_about_a_frame_is_answered_by_code(tmp_path: Path, env: dict[str, str]) -> None:
    """The newcomer's session: the frame loaded in one request, then asked which numeric column is most correlated
    with GRADE. The default model answered at once, a column name with no code run (and wrong); asked about data the
    session holds, an answer must have code behind it, code that reads the frame. (Whether that code compares every
    column is the model's doing: at temperature 0 this one computes the correlation of the column it first thought
    of, not that of `students()`'s best, Sex.)"""
    students(tmp_path)
    env = {**env, "INTERP_MODEL": "qwen2.5-coder-1.5b", "HOME": str(tmp_path)}
    journal = tmp_path / "j.jsonl"
    result = subprocess.run([str(RUN), "-y", "--temperature", "0", "--seed", "1", "--threads", "2", "--transcript",
                             str(journal)], input="Load students.csv into a frame called df.\n"
                            "which numeric column is most correlated with GRADE?\n", capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=900)
    assert result.returncode == 0, result.stderr
    turns = [r for r in records(journal) if r["type"] in ("turn_end", "execution")]
    second = turns[turns.index(next(r for r in turns if r["type"] == "turn_end")) + 1:]
    ran = [r for r in second if r["type"] == "execution" and r["status"] == "ok"]
    assert ran, "the second request was answered with no code run"
    assert any("df" in r["code"] and "GRADE" in r["code"] for r in ran), [r["code"] for r in ran]
    assert [r["rule"] for r in records(journal, "rule_fired")].count("unran") <= 1
