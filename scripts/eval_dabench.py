"""The dabench tier of scripts/eval.py: the development half of InfiAgent-DABench (Hu et al., ICML 2024), questions
about CSV files whose answers are closed-form, `@name[value]`, graded as the benchmark's own eval_closed_form.py does.

The data is not in the repository: it lies at ../shared/dabench-dev from the repository's root (questions.jsonl,
labels.jsonl, tables/; Apache-2.0, see its NOTICE), and the tier is skipped when it is absent. The other half of the
benchmark is held out, to measure what generalises: do not fetch it or tune on it.

The request is built as the benchmark's own prompt is (the question, then its constraints), with the file's name and
the answer format that the benchmark's reformatting step adds after the fact; the template is REQUEST, here rather
than in prompts/, which holds what interp tells the model: both systems get this request as a person would type it.
A score that holds for one wording only is fitted to it (an outside harness's one-line wording scored 50% where this
one scored 58%), so each question can be asked in WORDINGS: `benchmark` (REQUEST, unchanged, so older figures stay
comparable), `person` (that harness's one line) and `terse`; the file is named as the question's table is, the copy
lying in the working folder. A question asked in another wording than `benchmark` is its own task, DABench/18~person.
Each question belongs to a part of the split, tune or check (eval_dabench_split.py).

Grading: the `@name[value]` occurrences (the benchmark's pattern) are read from the outputs of the executions that
succeeded, in order, then from the final reply's prose (its code blocks left out: a block's `print(f"@mean[{m}]")` is
not an answer). As in the benchmark, where a name occurs more than once the last occurrence is the answer: a value
printed and then corrected counts as corrected, and printing several candidates does not earn the right one. A
sub-answer is right when that value equals the label's, both stripped, or both parse as floats within 1e-6; a
question is right only when all its sub-answers are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from eval_dabench_split import part_of

DATA = Path("../shared/dabench-dev")  # from the repository's root
LEVELS = ("easy", "medium", "hard")
REQUEST = "{question}\nThe data is in the file {file_name}.\nConstraints: {constraints}\nAnswer format: {format}"
WORDINGS = {  # how a request is typed; each holds the question, the file, the constraints and the answer format
    "benchmark": REQUEST,
    "person": "{question} The data is in {file_name}. {constraints} End with the answer in this format: {format}",
    "terse": "{question} File: {file_name}. {constraints} Answer as {format}",
}
ONE_LINE = ("person", "terse")  # wordings typed on one line: each field's line breaks and runs of spaces made one space
QUESTION_S = 120.0  # the default wall-clock cap per question
TOLERANCE = 1e-6  # the benchmark's, for values that parse as floats
_ANSWER = re.compile(r"@(\w+)\[(.*?)\]")  # the benchmark's own pattern
_FENCED = re.compile(r"```.*?(?:```|\Z)", re.S)


@dataclass(frozen=True)
class Question:
    id: int
    question: str
    constraints: str
    format: str
    file_name: str
    level: str
    label: tuple[tuple[str, str], ...]  # the expected (name, value) pairs
    table: Path  # the CSV file, copied into the question's scratch folder
    part: str = ""  # "tune" or "check" (eval_dabench_split.py), "" for a file the split does not list
    wording: str = "benchmark"  # which of WORDINGS the request is typed in

    @property
    def question_name(self) -> str:
        return f"DABench/{self.id}"

    @property
    def name(self) -> str:
        """The task's name: the question's, with `~wording` after it unless typed as the benchmark's."""
        return self.question_name + ("" if self.wording == "benchmark" else f"~{self.wording}")

    @property
    def request(self) -> str:
        fields = {"question": self.question, "file_name": self.file_name, "constraints": self.constraints,
                  "format": self.format}
        if self.wording in ONE_LINE:
            fields = {key: " ".join(value.split()) for key, value in fields.items()}
        return WORDINGS[self.wording].format(**fields)


def data_dir(override: Path | None = None) -> Path:
    """Where the data is: `override`, else ../shared/dabench-dev from the repository's root (not the working
    directory's: a run from anywhere finds the same data)."""
    return override if override is not None else (Path(__file__).resolve().parent.parent / DATA).resolve()


def load(folder: Path, levels: Iterable[str] = LEVELS) -> list[Question]:
    """The questions of these levels that have a label, in the file's order."""
    labels = {row["id"]: tuple((name, value) for name, value in row["common_answers"])
              for row in _jsonl(folder / "labels.jsonl")}
    wanted = set(levels)
    return [Question(q["id"], q["question"], q["constraints"], q["format"], q["file_name"], q["level"],
                     labels[q["id"]], folder / "tables" / q["file_name"], part_of(q["file_name"]))
            for q in _jsonl(folder / "questions.jsonl") if q["id"] in labels and q["level"] in wanted]


def worded(questions: Iterable[Question], wordings: Iterable[str]) -> list[Question]:
    """Each question once per wording, as tasks of their own, a question's wordings together."""
    wordings = list(wordings)
    return [replace(q, wording=wording) for q in questions for wording in wordings]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def occurrences(text: str) -> list[tuple[str, str]]:
    """Every `@name[value]` in the text, in order."""
    return _ANSWER.findall(text)


def prose(reply: str) -> str:
    """The reply without its fenced code blocks (an unclosed fence runs to the end)."""
    return _FENCED.sub("", reply)


def same(value: str, expected: str) -> bool:
    """The benchmark's equality: the same string, or floats within TOLERANCE (whitespace around either ignored)."""
    value, expected = value.strip(), expected.strip()
    if value == expected:
        return True
    try:
        return abs(float(value) - float(expected)) < TOLERANCE
    except ValueError:
        return False


@dataclass(frozen=True)
class Grade:
    given: dict[str, str | None]  # per expected name, the value read (None: never given)
    right: dict[str, bool]  # per expected name

    @property
    def passed(self) -> bool:
        return bool(self.right) and all(self.right.values())

    @property
    def subs_right(self) -> int:
        return sum(self.right.values())


def grade(question: Question, outputs: Iterable[str], reply: str = "") -> Grade:
    """The answers read from these outputs (of executions that succeeded, in order) and then the final reply's prose,
    the last occurrence of each name winning, against the question's label."""
    read: dict[str, str] = {}
    for text in [*outputs, prose(reply)]:
        read.update(occurrences(text))
    given = {name: read.get(name) for name, _ in question.label}
    right = {name: (value := read.get(name)) is not None and same(value, expected) for name, expected in question.label}
    return Grade(given, right)
