"""Every rule over facts nobody chose: no rule raises, whatever the code, output, error, reply or kernel answers
(hypothesis), and whatever frame a real kernel holds (empty, without columns, numbered columns, odd names and dtypes,
NaN and huge values). A rule that raised ended a session (REPORT.md of the third round, item 10); the engine now skips
a rule that raises, and these tests find the rules that would."""

from __future__ import annotations

import json
from pathlib import Path
from string import Template

import pytest
from conftest import error_of, records, run_interp, write_script
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interp.prompts import Prompts
from interp.rules import Engine, Facts, Finding
from interp.rules.registry import RULES
from interp.rules.rule import Rule
from interp.runtime.kernel import Kernel

PROMPTS = Prompts.load()
ENGINE = Engine(RULES, PROMPTS.rules)

_WORDS = st.sampled_from(["data", "df", "x", "Yr", "Mo", "Dy", "0", "None", "nan", " a ", "é", "", "[]", "{}", "'",
                          "\\", "\n", "KeyError", "Traceback", "Cell In[1], line 1", "----> 1", "csv", "pd",
                          "read_csv", "inputs/data.csv", "@mean[value]", "1e308", "-inf"])
_TEXT = st.one_of(st.text(max_size=60), st.lists(_WORDS, max_size=12).map(" ".join))
_ERRORS = st.one_of(_TEXT, st.sampled_from([
    "KeyError: 'x'", "KeyError: 0", "KeyError: \"None of [Index(['Yr', 'Mo', 'Dy'], dtype='object')] are in the "
    "[columns]\"", "KeyError: \"['a'] not in index\"", "KeyError", "ValueError", "ValueError: could not convert "
    "string to float: ''", "TypeError: unsupported operand type(s) for +: 'int' and 'str'", "NameError: name 'x' is "
    "not defined", "AttributeError: 'DataFrame' object has no attribute 'colums'", "IndexError: list index out of "
    "range", "FileNotFoundError: [Errno 2] No such file or directory: 'wind.data'", "ModuleNotFoundError: No module "
    "named 'x'", "SyntaxError: invalid syntax", "ZeroDivisionError: division by zero", "The command failed with "
    "exit status 1."]).flatmap(lambda line: st.sampled_from(
        [line, f"Traceback (most recent call last):\nCell In[3], line 1\n----> 1 data[['Yr']]\n\n{line}"])))
_REPRS = st.one_of(st.text(max_size=30), st.sampled_from(["[]", "{}", "()", "None", "nan", "[0, 1, 2]", "['', ' ']",
                                                          "[nan]", "{'a': []}", "(0, 0, [], [])", "1e308", "'x'",
                                                          "[('a', 'object', 0)]", "'DataFrame'", "True", "-1"]),
                   st.lists(st.one_of(st.integers(), st.text(max_size=8), st.floats()), max_size=4).map(repr))


@st.composite
def facts(draw: st.DrawFn) -> Facts:
    answers = draw(st.dictionaries(st.text(max_size=8), _REPRS, max_size=3))
    default = draw(st.one_of(st.none(), _REPRS))

    def evaluate(expressions: dict[str, str]) -> dict[str, str]:
        return {key: answers.get(key, default) for key in expressions if answers.get(key, default) is not None}

    return Facts(code=draw(_TEXT), language=draw(st.sampled_from(["python", "shell"])), output=draw(_TEXT),
                 error=draw(_ERRORS), failed=draw(st.booleans()), reply=draw(_TEXT), typed=draw(_TEXT),
                 sent=draw(_TEXT), files=draw(st.lists(st.tuples(_TEXT, st.sampled_from(["csv", "text", "json"])),
                                                       max_size=2)),
                 reads=draw(st.lists(_TEXT, max_size=2)), writes=draw(st.lists(_TEXT, max_size=2)),
                 defined=lambda: ["data", "x"], clean=tuple(draw(st.lists(_TEXT, max_size=2))),
                 shown=tuple(draw(st.lists(_TEXT, max_size=2))), evaluate=evaluate,
                 where=lambda: Path("/nonexistent/work"), importable=lambda module: True)


def _every_rule(made: Facts) -> None:
    """Each rule's detect, then its text, run directly: a rule that raises fails the test (the engine would hide it)."""
    for rule in RULES:
        finding = rule.detect(made)
        if finding is not None:
            assert isinstance(finding, Finding)
            ENGINE.render(rule.id, finding)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(facts())
def test_no_rule_raises_on_any_facts(made: Facts) -> None:
    _every_rule(made)


FRAMES = {
    "empty": "pd.DataFrame()",
    "no columns": "pd.DataFrame(index=range(3))",
    "numbered": "pd.read_csv(io.StringIO('61 1 1 15.04 14.96\\n61 1 2 14.71 16.88\\n'), sep=r'\\s+', header=None)",
    "no number columns": "pd.read_csv(io.StringIO('a b\\nx y\\n'), sep=r'\\s+', header=None).select_dtypes('number')",
    "odd names": "pd.DataFrame({' a ': [1], '': [2], 'é x': [3], 0: [4], None: [5]})",
    "nan and huge": "pd.DataFrame({'a': [float('nan'), 1e308, -float('inf')], 'b': ['1,200', None, '']})",
    "duplicated": "pd.DataFrame([[1, 2]], columns=['a', 'a'])",
    "multiindex": "pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([('a', 'x'), ('a', 'y')]))",
    "dtypes": "pd.DataFrame({'d': pd.to_datetime(['2020-01-01']), 'c': pd.Categorical(['u']), 'o': [object()]})",
    "series": "pd.Series([], dtype=float)",
}
STATEMENTS = [
    "data[['Yr', 'Mo', 'Dy']]", "data['Yr']", "data.Yr", "data.loc[:, 'a ']", "data.groupby('k').mean()",
    "data.corr().iloc[0, 1] + 'x'", "data['a'] + 'b'", "data.iloc[10]", "float(data)", "data.colums",
    "data.select_dtypes('number')[['Yr']]", "pd.read_csv('wind.data')", "data.mean(numeric_only=True).idxmax()",
]


@pytest.fixture(scope="module")
def frames(kernel: Kernel) -> Kernel:
    pytest.importorskip("pandas")
    error_of(kernel, "import io\nimport pandas as pd\n1 / 0")
    return kernel


@pytest.mark.parametrize("frame", list(FRAMES))
def test_no_rule_raises_on_what_a_kernel_holds(frames: Kernel, frame: str) -> None:
    """Real errors of real statements over odd frames, read by every rule with the kernel that ran them."""
    error_of(frames, f"data = {FRAMES[frame]}\n1 / 0")
    for statement in STATEMENTS:
        run = frames.execute(statement)
        try:
            while True:
                next(run)
        except StopIteration as stop:
            done = stop.value
        for phase_facts in (
                Facts(code=statement, error=done.error or "", output="", evaluate=frames.evaluate,
                      defined=lambda: ["data", "pd", "io"], importable=lambda module: True),
                Facts(code=f"print({statement})", output=str(done.error or "")[:200], evaluate=frames.evaluate,
                      typed="Which columns of data are numbers?", importable=lambda module: True)):
            _every_rule(phase_facts)


def test_a_rule_that_raises_is_skipped_and_journaled_and_the_others_go_on() -> None:
    def broken(facts: Facts) -> Finding | None:
        raise IndexError("list index out of range")

    def works(facts: Facts) -> Finding | None:
        return Finding({"name": "x"})

    engine = Engine([Rule("broken", "on_error", broken), Rule("works", "on_error", works)],
                    {"works": Template("fine $name")})
    fired = engine.run("on_error", Facts(error="KeyError: 'x'"))
    assert [f.rule for f in fired] == ["works"]
    assert [(item.kind, item.record()) for item in engine.drain()] == [
        ("rule_failed", {"rule": "broken", "phase": "on_error", "error": "IndexError: list index out of range"}),
        ("rule_fired", {"rule": "works", "phase": "on_error", "variant": "", "finding": {"name": "x"}})]


def test_a_newcomers_wind_session_reads_every_request(tmp_path: Path, env: dict[str, str]) -> None:
    """As a new user met it: a whitespace-separated file read without a header, its number columns taken (none of
    them named), then three columns by name. The help crashed on the frame without those columns and interp exited
    after the first turn; every request must be read, and every turn end."""
    (tmp_path / "wind.data").write_text("Yr Mo Dy RPT VAL\n61 1 1 15.04 14.96\n61 1 2 14.71 16.88\n")
    replies = ["```python\nimport pandas as pd\ndata = pd.read_csv('wind.data', header=None)\nprint(data.shape)\n```",
               "Loaded.", "```python\ndata = data.select_dtypes('number')\nprint(data.shape)\n```", "Kept.",
               "```python\nprint(data[['Yr', 'Mo', 'Dy']])\n```", "```python\nprint(data[['Yr', 'Mo', 'Dy']])\n```",
               "```python\nprint(data[['Yr', 'Mo', 'Dy']])\n```", "It failed.", "Fine."]
    script = write_script(tmp_path, replies)
    journal = tmp_path / "j.jsonl"
    requests = ["Load wind.data into data.", "Keep only the number columns of data.", "Show Yr, Mo and Dy of data.",
                "Say something."]
    result = run_interp(["-y", "--model", f"script:{script}", "--transcript", str(journal)], env=env, cwd=tmp_path,
                        stdin="\n".join(requests) + "\n")
    assert "Traceback" not in result.stderr, result.stderr
    assert [r.get("typed", r["content"]) for r in records(journal, "user") if r.get("kind") == "request"] == requests
    assert len(records(journal, "turn_end")) == 4
    assert records(journal, "rule_failed") == []  # the help that crashed now works on such a frame
    assert json.dumps(records(journal, "help_failed")) == "[]"


@pytest.mark.parametrize("broken", ["expand", "examples.stubs", "answer_form.parts", "examples.parse"])
def test_help_that_raises_is_journaled_and_the_turn_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            broken: str) -> None:
    """Previews, a request's stubs, examples and answer parts: a piece of help that raises only fails to help."""
    from fakes import make_session, turn

    from interp.turn import request as request_module
    from interp.turn import turn as turn_module

    def raises(*args: object, **kwargs: object) -> None:
        raise IndexError("list index out of range")

    owner, _, name = broken.rpartition(".")
    monkeypatch.setattr(getattr(turn_module, owner) if owner else request_module, name, raises)
    session = make_session(tmp_path, ["```python\nprint(6 * 7)\n```", "It is 42."])
    seen, status = turn(session, "What is six times seven, from @nothing.csv? Answer as @answer[value].")
    assert status == "ok"
    failed = records(tmp_path / "j.jsonl", "help_failed")
    assert [(r["help"], r["error"]) for r in failed][:1] == [
        ({"expand": "previews", "examples.stubs": "stubs", "answer_form.parts": "answer_parts",
          "examples.parse": "examples"}[broken], "IndexError: list index out of range")]
