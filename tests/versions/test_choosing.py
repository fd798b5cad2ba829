"""Choosing among versions of a written function by the model's asserts (choosing.py): the asserts of a reply, the
pick, the scoring code in a real kernel, and the loop that asks for asserts and versions once a stub's examples pass,
on the scripted model with a scripted kernel, and through `interp -y` with the real kernel."""

from __future__ import annotations

import io
import itertools
import json
import time
from collections.abc import Generator
from pathlib import Path

import pytest
from conftest import finish, records, run, run_interp, spawn, write_script
from fakes import BatchingModel, KeepingModel, ScriptedKernel, TickingModel, make_session, out, turn
from rich.console import Console

from interp.common.events import Event, Notice, Thinking
from interp.common.extract import whole
from interp.models.base import Message
from interp.models.script import ScriptModel
from interp.runtime.kernel import Kernel
from interp.turn.policy import DRAW_GRACE, FRESH_TEMPERATURE
from interp.ui.render import RichView
from interp.versions.agreement import groups, pick
from interp.versions.choosing import (
    LONG_LINE,
    MOST_ASSERTS,
    Asking,
    asserts,
    choose,
    runaway,
    unshown,
    whole_lines,
)
from interp.versions.choosing import whole as choosing_whole
from interp.versions.examples import opening
from interp.versions.probing import MARK, RAISED, SCORE_SECONDS, VARIED, Scored, probes, score, scoring, varied

REQUEST = '''Complete this function:

```python
def last(items: list) -> int:
    """ The last of the items, or 0 when there are none.
    >>> last([1, 2, 3])
    3
    """
```'''
WRONG = "def last(items):\n    return items[-1]"  # passes the example, fails on []
RIGHT = "def last(items):\n    return items[-1] if items else 0"
OTHER = "def last(items):\n    return max(items) if items else 0"  # passes the example and []: wrong elsewhere
AGAIN = "def last(items):\n    return items[len(items) - 1] if items else 0"  # RIGHT, written otherwise
TESTS = "```python\nassert last([]) == 0\nassert last([5]) == 5\nassert last([3, 1]) == 1\n```"


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


UNIQUE = itertools.count()


def scored(found: bool, passed: int, values: tuple[str | None, ...] | None = None,
           varied: tuple[str | None, ...] = ()) -> list:
    """What the scoring code prints; by default, values no other version gives."""
    return [out(f"{MARK}{json.dumps([found, passed, (f'v{next(UNIQUE)}',) if values is None else values, varied])}\n")]


def test_the_asserts_of_a_reply_are_its_python_blocks_top_level_asserts() -> None:
    reply = ("Here:\n```python\nassert f(1) == 2\nx = 3\nassert f(\n    [],\n) == []\n```\n"
             "```sh\nassert nothing\n```\n```python\nassert (broken\n```")
    assert asserts(reply) == ["assert f(1) == 2", "assert f(\n    [],\n) == []"]
    assert asserts("no code at all") == []


def test_the_asserts_of_a_block_stopped_mid_line_are_those_of_its_whole_first_lines() -> None:
    stopped = "```python\nassert f(1) == 2\nassert f(2) == 3\nassert f([1, 1, 1"
    assert asserts(stopped) == ["assert f(1) == 2", "assert f(2) == 3"]
    assert asserts("```python\nassert f(\n    [],\n) == []\nassert (\n") == ["assert f(\n    [],\n) == []"]
    assert whole_lines("assert f(1) == 2\nassert f(2) == 1") == "assert f(1) == 2\n"  # not f(2) == 1: maybe 10
    assert whole_lines("assert f(") == ""


def test_a_reply_for_asserts_runs_away_at_a_thirteenth_assert_or_an_overlong_line() -> None:
    six = "```python\n" + "".join(f"assert f({i}) == {i}\n" for i in range(6)) + "```"
    assert not runaway(six)
    many = "```python\n" + "".join(f"assert f({i}) == {i}\n" for i in range(MOST_ASSERTS))
    assert not runaway(many) and runaway(many + "assert")
    assert not runaway('```python\nassert f("' + "a" * (LONG_LINE - 20))
    assert runaway('```python\nassert f("' + "a" * LONG_LINE)
    assert not runaway('```python\nassert f("' + "a" * (LONG_LINE - 20) + '") == 1\nassert f(2) == 2')
    # Decoded unseen beside another (models/together.py), such a reply ends there, as one whose block has ended.
    assert choosing_whole(many + "assert") == "runaway" and choosing_whole(six + "\n") == "code"
    assert choosing_whole(many) is None


def test_a_runaway_reply_for_asserts_is_stopped_and_its_whole_asserts_kept(tmp_path: Path) -> None:
    growing = "".join(f"assert last({list(range(n))}) == {n - 1}\n" for n in range(2, 40))
    kernel = ScriptedKernel([], [], scored(True, MOST_ASSERTS), scored(True, MOST_ASSERTS + 1))
    replies = [fenced(WRONG), f"```python\nassert last([]) == 0\n{growing}```", TESTS, fenced(RIGHT)]
    session = make_session(tmp_path, replies, kernel, choose=3)
    turn(session, REQUEST)
    first, second = records(tmp_path / "j.jsonl", "aside")[:2]
    assert first["runaway"] and "runaway" not in second
    assert first["reply"].count("assert") == MOST_ASSERTS + 1  # stopped as the 13th began, not at the 39th
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["asserts"][:MOST_ASSERTS] == ["assert last([]) == 0", *growing.splitlines()[:MOST_ASSERTS - 1]]
    assert len(chosen["asserts"]) == MOST_ASSERTS + 2  # and two of the second reply's three (one repeats the first's)
    assert chosen["kept"] == 1


def test_a_reply_aside_stops_where_its_code_block_ends_and_a_looping_version_is_no_version(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 3), scored(True, 4))
    imagined = "\n\nOutput:\n```text\nTrue\n```\nThis works for every list."
    looping = "```python\ndef last(items):\n    return items[-1]  " + "-l " * 200 + "\n```"
    replies = [fenced(WRONG), TESTS + imagined, "```python\nassert last([7]) == 7\n```", looping,
               fenced(RIGHT) + imagined]
    session = make_session(tmp_path, replies, kernel, choose=3)
    _, status = turn(session, REQUEST)
    assert status == "ok"
    asides = records(tmp_path / "j.jsonl", "aside")
    assert [a["reply"] for a in asides[:2]] == [TESTS, "```python\nassert last([7]) == 7\n```"]
    assert asides[2]["loop"] and len(asides[2]["reply"]) < len(looping) and "runaway" not in asides[2]
    assert asides[3]["reply"] == fenced(RIGHT) and "loop" not in asides[3]
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["drawn"] == 2 and chosen["versions"] == [WRONG, RIGHT]  # the looping one counted, not scored
    assert len(kernel.executed) == 5 and kernel.executed[-1] == RIGHT


def test_the_pick_is_the_version_passing_the_examples_and_most_asserts_the_first_of_equals() -> None:
    assert pick([(True, 2), (True, 3), (True, 3)], [1, 1, 1], [1, 1, 1]) == 1
    assert pick([(True, 2), (True, 2)], [1, 1], [1, 1]) == 0  # the version the turn wrote, of equals
    assert pick([(True, 1), (False, 5), (True, 0)], [1, 1, 1], [1, 1, 1]) == 0  # one failing the examples is out
    assert pick([(True, 0)], [1], [1]) == 0


def test_the_pick_weighs_asserts_passed_by_the_versions_that_agree() -> None:
    # One more assert passed alone does not outweigh versions that agree with each other (HumanEval/125, seed 8)...
    assert pick([(True, 5), (True, 6), (True, 5), (True, 5)], [4, 1, 4, 4], [1, 1, 1, 1]) == 0
    assert pick([(True, 6), (True, 5), (True, 5)], [1, 2, 2], [1, 2, 2]) == 1
    # ...two more do, against a pair: 8 x 1 against 3 x 2.
    assert pick([(True, 3), (True, 8)], [2, 1], [2, 1]) == 1
    assert pick([(True, 3), (True, 0)], [1, 9], [1, 9]) == 0  # agreeing on values no assert holds right is nothing


def test_of_equals_the_pick_is_the_version_most_others_agree_with_on_the_varied_calls_too() -> None:
    # HumanEval/20 (seed 7): all six versions failed all four asserts and gave the same values; on the varied calls,
    # the first two disagreed with everyone and four right ones agreed.
    assert pick([(True, 0)] * 6, [6] * 6, [1, 1, 4, 4, 4, 4]) == 2
    assert pick([(True, 2)] * 3, [2, 2, 1], [1, 2, 1]) == 1
    assert pick([(True, 3), (True, 1)], [1, 2], [1, 2]) == 0  # only among equals: 3 x 1 against 1 x 2
    assert pick([(True, 1), (True, 1)], [1, 1], [1, 1]) == 0  # still the one written, of equals everywhere
    assert pick([(True, 0), (False, 0)], [1, 1], [1, 3]) == 0  # one failing the examples is out


def test_a_version_s_group_is_the_draws_that_pass_the_examples_and_give_its_values() -> None:
    same, other = ("a", "b"), ("a", "c")
    versions = [Scored(True, 3, same), Scored(True, 2, same), Scored(True, 4, other), Scored(False, 0, same),
                Scored(True, 3, ("a", None)), Scored(True, 3, ("a", None))]
    assert groups(versions, [2, 1, 1, 1, 1, 1]) == [3, 3, 1, 1, 1, 1]
    # the copies of each count; one that fails the examples is in no other's group; one that raised is alone


def test_everywhere_a_version_s_group_gives_its_values_for_the_varied_calls_too() -> None:
    same = ("a", "b")
    versions = [Scored(True, 0, same, ("x", RAISED)), Scored(True, 0, same, ("x", RAISED)),
                Scored(True, 0, same, ("x", "y")), Scored(True, 0, same, ("x", None)),
                Scored(True, 0, same, ("x", None)), Scored(False, 0, same, ("x", RAISED))]
    assert groups(versions, [1, 2, 1, 1, 1, 1]) == [6] * 5 + [1]
    assert groups(versions, [1, 2, 1, 1, 1, 1], everywhere=True) == [3, 3, 1, 1, 1, 1]
    # raising on a call is a value two versions share; running out of time on one leaves a version alone


def test_what_the_scoring_code_printed_is_read_from_its_own_line() -> None:
    assert score(f'noise\n{MARK}[true, 4, ["ab", null], ["cd", "raised", null]]\n') == Scored(
        True, 4, ("ab", None), ("cd", "raised", None))
    assert score(f"{MARK}[false, 0, [], []]") == Scored(False, 0, ())
    assert score("nothing of ours") is None
    assert score(f"{MARK}not json") is None
    assert score(f"{MARK}[true, 4]") is None
    assert score(f"{MARK}[true, 4, []]") is None


def test_the_probes_are_the_expressions_the_asserts_check() -> None:
    checks = ["assert f(3) == 5", "assert not f(0)", "assert f(3) == 5, 'again'", "assert abs(f(1) - 2) < 1e-6",
              "assert f(\n    [1,  2],\n) == [2]"]
    assert probes(checks) == ["f(3)", "not f(0)", "abs(f(1) - 2)", "f([1, 2])"]
    assert probes(["assert f(", "assert f(4) == 1", ""]) == ["f(4)"]


def test_a_call_is_varied_one_literal_argument_at_a_time_each_by_its_type() -> None:
    found = varied(["f([1, 2], 'ab')"])
    assert {"f([2, 1], 'ab')", "f([2], 'ab')", "f([1], 'ab')", "f([], 'ab')", "f([1, 2, 1], 'ab')",
            "f([2, 2], 'ab')", "f([1, 3], 'ab')", "f([1, 2], 'ba')", "f([1, 2], 'AB')", "f([1, 2], '')"} <= set(found)
    assert "f([1, 2], 'ab')" not in found and len(found) == len(set(found)) <= VARIED
    assert varied(["f([1, 2], 'ab')"]) == found  # the same for every version scored
    assert set(varied(["not f(True)", "abs(f(2.5) - 1)"])) == {
        "not f(False)", "abs(f(3.5) - 1)", "abs(f(1.5) - 1)", "abs(f(-2.5) - 1)", "abs(f(0.0) - 1)", "abs(f(5.0) - 1)"}
    assert set(varied(["f({'a': 1, 'b': 2})"])) == {"f({'b': 2})", "f({'a': 1})", "f({})"}
    # Only literal arguments of functions not built in: len and sorted stay, as do a name and a call.
    assert varied(["len(f(x))", "sorted([3, 1])"]) == []
    assert set(varied(["f(g(1))"])) == {"f(g(2))", "f(g(0))", "f(g(-1))"}
    assert len(varied([f"f({n})" for n in range(100)])) == VARIED


def scored_in(kernel: Kernel, version: str, given: str, checks: list[str]) -> Scored | None:
    printed, result = run(kernel, scoring(version, given, checks))
    assert result.status == "ok", result.error
    return score(printed)


class Turn:
    """The turn choosing runs in (choosing.Aside), its replies given in advance and its scores fixed by version."""

    def __init__(self, replies: list[str | None], points: dict[str, int]) -> None:
        self.replies, self.points = iter(replies), points
        self.asked: list[tuple[str, tuple[float, ...], str]] = []

    def ask_asserts(self, messages: list[Message],
                    temperatures: tuple[float, ...]) -> Generator[Event, None, str | None]:
        self.asked.append((messages[0]["content"], temperatures, "asserts"))
        return next(self.replies)
        yield

    def draw_version(self, messages: list[Message], left: int) -> Generator[Event, None, str | None]:
        self.asked.append((messages[0]["content"], (FRESH_TEMPERATURE,) * left, "version"))
        return next(self.replies)
        yield

    def score(self, version: str, tests: list[str]) -> Scored:
        return Scored(True, self.points[version], (version,))


def test_choose_asks_for_asserts_then_draws_until_time_is_up_and_keeps_the_best() -> None:
    """The order of the calls alone, the model's calls and the scoring given by a turn of plain answers."""
    turn = Turn([TESTS, "no code", fenced(WRONG), fenced(OTHER), None, fenced(RIGHT)], {WRONG: 0, OTHER: 2})
    steps = choose(Asking([{"role": "user", "content": "asserts?"}], [{"role": "user", "content": "the request"}],
                          WRONG, 5), turn)
    with pytest.raises(StopIteration) as stopped:
        next(steps)
    choice = stopped.value.value
    assert turn.asked == [("asserts?", (0.2, 0.8), "asserts"), ("asserts?", (0.8,), "asserts"),
                     *[("the request", (0.8,) * left, "version") for left in (5, 4, 3)]]
    assert choice.asserts == asserts(TESTS) and choice.versions == [WRONG, OTHER]
    assert choice.scores == [(True, 0), (True, 2)] and choice.copies == [2, 1] and choice.groups == [2, 1]
    assert choice.kept == 1 and choice.drawn == 2  # the copy of WRONG drawn, not scored; time up at the third


def test_in_the_real_kernel_versions_are_scored_in_a_copy_of_the_namespace(kernel: Kernel) -> None:
    checks = asserts(TESTS)
    run(kernel, WRONG + "\nseen = 'kept'")
    given = "assert last([1, 2, 3]) == 3"
    wrong, right, other = (scored_in(kernel, v, given, checks) for v in (WRONG, RIGHT, OTHER))
    assert wrong and right and other
    assert (wrong.examples, wrong.passed) == (True, 2)  # last([]) raises
    assert (right.examples, right.passed) == (True, 3)
    assert (other.examples, other.passed) == (True, 2)
    # The value each assert checks: none where it raised; the same where two versions agree.
    assert wrong.values[0] is None and wrong.values[1:] == right.values[1:] and None not in right.values
    assert other.values[:2] == right.values[:2] and other.values[2] != right.values[2]
    assert scored_in(kernel, "def last(items):\n    return items[len(items) - 1] if items else 0", given,
                     checks) == right
    # The calls with an argument changed: the same values where versions agree everywhere, RAISED where one raised.
    calls = varied(probes(checks) + probes([given]))
    assert len(right.varied) == len(calls) and None not in right.varied and RAISED not in right.varied
    assert wrong.varied[calls.index("last([])")] == RAISED and wrong.varied != right.varied
    assert other.varied != right.varied
    three = scored_in(kernel, "def last(items):\n    return 3", given, checks)
    assert three and (three.examples, three.passed) == (True, 0)
    failing = Scored(False, 0, (None, None, None), (None,) * len(calls))  # nothing is checked of one failing them
    assert scored_in(kernel, "def last(items):\n    return 0", given, checks) == failing
    assert scored_in(kernel, "import not_a_module_anywhere\ndef last(items):\n    return 3", given, checks) == failing
    # The session's own names are as they were: its function, its variables, and no helper of the scoring's.
    printed, _ = run(kernel, "print(last.__code__.co_code == (lambda items: items[-1]).__code__.co_code, seen, "
                             "'_interp_score' in globals())")
    assert printed == "True kept False\n"


def test_in_the_real_kernel_a_version_that_hangs_or_prints_is_bounded_and_silent(kernel: Kernel) -> None:
    looping = "def last(items):\n    while not items:\n        pass\n    print('x' * 10**6)\n    return items[-1]"
    started = time.monotonic()
    printed, result = run(kernel, scoring(looping, "assert last([1, 2, 3]) == 3", asserts(TESTS)))
    assert result.status == "ok"
    found = score(printed)
    assert found and (found.examples, found.passed) == (True, 2)  # last([]) never ends: cut after a second, failed
    assert found.values[0] is None and None not in found.values[1:]  # and its value is none
    assert found.varied and None in found.varied  # the same call with an argument changed: out of time, none
    assert "x" * 100 not in printed  # its million x's are swallowed
    assert time.monotonic() - started < SCORE_SECONDS + 5
    printed, _ = run(kernel, "import signal\nprint(signal.getsignal(signal.SIGALRM))")
    assert "late" not in printed  # the alarm's handler is the kernel's again


def test_in_the_real_kernel_an_alarm_the_session_had_pending_still_goes_off(kernel: Kernel) -> None:
    run(kernel, "import signal\nrang = []\nsignal.signal(signal.SIGALRM, lambda *_: rang.append(1))\n"
                "signal.setitimer(signal.ITIMER_REAL, 2.5)")
    printed, _ = run(kernel, scoring(RIGHT, "assert last([1, 2, 3]) == 3", asserts(TESTS)))
    found = score(printed)
    assert found and (found.examples, found.passed) == (True, 3)
    printed, _ = run(kernel, "left = signal.getitimer(signal.ITIMER_REAL)[0]\nprint(0 < left < 2.5, rang)")
    assert printed == "True []\n"  # pending still, less the time scoring took
    printed, _ = run(kernel, "import time\ntime.sleep(3)\nprint(rang)")
    assert printed == "[1]\n"


def session_replies(*draws: str) -> list[str]:
    return [fenced(WRONG), TESTS, "```python\nassert last([7]) == 7\nassert last([]) == 0\n```",
            *(fenced(d) for d in draws)]


def test_once_the_examples_pass_the_version_passing_the_most_asserts_is_defined(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 3), scored(True, 3), scored(True, 4))
    session = make_session(tmp_path, [], kernel, choose=3)
    session.model = model = BatchingModel(session_replies(OTHER, RIGHT))
    events, status = turn(session, REQUEST)
    assert status == "ok"
    # Two calls for asserts, the request with the asserts prompt after it, under the function prompt...
    for call in model.calls[1:3]:
        assert call[0]["content"] == session.prompts.function
        assert call[-1]["content"] == f"{REQUEST}\n\n{session.prompts.choose}"
    assert [p.temperature for p in model.params[1:3]] == [0.2, 0.8]
    # ...then versions drawn from the request alone, until one passes every assert (4 distinct ones).
    assert [call[1:] for call in model.calls[3:]] == [[{"role": "user", "content": REQUEST}]] * 2
    assert [p.temperature for p in model.params[3:]] == [FRESH_TEMPERATURE] * 2
    # A version opens with the stub, as the first reply did; the asserts are not a function's code.
    assert [p.opening for p in model.params] == [opening(REQUEST), "", "", opening(REQUEST), opening(REQUEST)]
    assert [p.speculative for p in model.params[1:]] == [True, True, False, False]
    # Versions are decoded together, as many as may still be drawn (models/together.py); the reply for asserts at
    # 0.8 beside the one at 0.2, both stopped where a reply for asserts is whole.
    assert [b.together for b in model.batches] == [1, 1, 1, 3, 2]
    assert [b.beside for b in model.batches] == [(), (0.8,), (), (), ()]
    assert [b.whole for b in model.batches[1:]] == [choosing_whole, None, whole, whole]
    assert kernel.executed[-1] == RIGHT
    assert "assert last([]) == 0" in kernel.executed[2] and "assert last([7]) == 7" in kernel.executed[2]
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert texts[-2] == ("Another version of the function passes your examples and 4 of the 4 asserts the model wrote "
                         "for other inputs, the one written 3: defining it instead.")
    assert texts[-1] == "Every example in your request gives the value it shows: last is written."
    assert "defined now" in session.history[-1]["content"] and RIGHT in session.history[-1]["content"]
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["kept"] == 2 and chosen["drawn"] == 2 and chosen["scores"] == [[True, 3], [True, 3], [True, 4]]
    assert [r["purpose"] for r in records(tmp_path / "j.jsonl", "aside")] == ["asserts"] * 2 + ["version"] * 2


def test_a_version_passing_one_more_assert_alone_loses_to_versions_that_agree(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 2, ("w",)), scored(True, 3, ("o",)), scored(True, 2, ("r",)),
                            scored(True, 2, ("r",)))
    session = make_session(tmp_path, session_replies(OTHER, RIGHT, AGAIN), kernel, choose=3)
    events, status = turn(session, REQUEST)
    assert status == "ok"
    assert kernel.executed[-1] == RIGHT  # 2 asserts x 2 agreeing versions, against OTHER's 3 alone
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["groups"] == [1, 1, 2, 2] and chosen["copies"] == [1, 1, 1, 1] and chosen["kept"] == 2
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert texts[-2] == ("Another version of the function passes your examples and 2 of the 4 asserts the model wrote "
                         "for other inputs, the one written 2, and 1 other draw gives the same values: defining it "
                         "instead.")


def test_of_versions_doing_as_well_on_the_asserts_the_one_most_agree_with_on_varied_calls_is_defined(
        tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 0, ("s",), ("w",)), scored(True, 0, ("s",), ("r",)),
                            scored(True, 0, ("s",), ("r",)))
    session = make_session(tmp_path, session_replies(RIGHT, AGAIN, RIGHT), kernel, choose=3)
    events, status = turn(session, REQUEST)
    assert status == "ok"
    assert kernel.executed[-1] == RIGHT  # all fail every assert alike; on the varied calls, three draws agree
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["groups"] == [4, 4, 4] and chosen["everywhere"] == [1, 2, 2] and chosen["kept"] == 1
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert texts[-2] == ("Another version of the function does as well as the one written on the 4 asserts the model "
                         "wrote for other inputs (0 passed, and 3 other draws give the same values), and 1 other "
                         "version gives its values for the same calls with an argument changed, against 0 for the one "
                         "written: defining it instead.")


def test_on_the_varied_calls_two_different_versions_agreeing_outweigh_one_version_drawn_twice(tmp_path: Path) -> None:
    # HumanEval/74 (seed 9): the written version, drawn again, against two different ones that agree with each other.
    kernel = ScriptedKernel([], [], scored(True, 1, ("s",), ("w",)), scored(True, 1, ("s",), ("r",)),
                            scored(True, 1, ("s",), ("r",)))
    session = make_session(tmp_path, session_replies(WRONG, RIGHT, AGAIN), kernel, choose=3)
    events, status = turn(session, REQUEST)
    assert status == "ok"
    assert kernel.executed[-1] == RIGHT
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["copies"] == [2, 1, 1] and chosen["groups"] == [4, 4, 4]
    assert chosen["everywhere"] == [1, 2, 2] and chosen["kept"] == 1  # counting copies, 2 against 2: WRONG, written


def test_a_stub_with_no_example_is_chosen_by_the_model_s_asserts_alone(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], scored(True, 3), scored(True, 4))
    session = make_session(tmp_path, session_replies(RIGHT), kernel, choose=3)
    events, status = turn(session, REQUEST.replace("    >>> last([1, 2, 3])\n    3\n", ""))
    assert status == "ok"
    tests = [*asserts(TESTS), "assert last([7]) == 7"]
    assert kernel.executed[1:] == [scoring(WRONG, "", tests), scoring(RIGHT, "", tests), RIGHT]  # no examples run
    assert kernel.executed[-1] == RIGHT
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert texts[-3].startswith("Nothing in your request tests it. Asking the model for asserts on other inputs")
    assert texts[-2] == ("Another version of the function passes 4 of the 4 asserts the model wrote for other inputs, "
                         "the one written 3: defining it instead.")
    assert texts[-1] == "last is written and runs without an error; no example in your request calls it."


def test_the_written_version_stays_when_no_other_passes_more(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 3), scored(True, 3), scored(False, 0))
    session = make_session(tmp_path, session_replies(OTHER, "def last(items):\n    return 0", WRONG), kernel,
                           choose=3)
    events, status = turn(session, REQUEST)
    assert status == "ok"
    assert len(kernel.executed) == 5  # the function, its examples, three scorings (the copy of WRONG is not scored)
    assert any(isinstance(e, Notice) and "none of 3 other versions drawn passes more, counted with the versions that "
               "agree with it" in e.text for e in events)
    assert records(tmp_path / "j.jsonl", "choose")[0]["kept"] == 0


def test_a_version_passing_every_assert_stops_the_drawing(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 4))
    session = make_session(tmp_path, session_replies(RIGHT), kernel, choose=3)
    turn(session, REQUEST)
    model = session.model
    assert isinstance(model, ScriptModel) and len(model.calls) == 3  # the function and the asserts: no version
    assert records(tmp_path / "j.jsonl", "choose")[0]["drawn"] == 0


@pytest.mark.parametrize("how", [{"choose": 0}, {"yes": False}, {"draw_seconds": 1e-9}])
def test_off_asked_before_each_block_or_out_of_time_nothing_more_is_asked(tmp_path: Path, how: dict) -> None:
    kernel = ScriptedKernel([], [])
    session = make_session(tmp_path, session_replies(RIGHT), kernel, **({"choose": 3} | how))
    events, status = turn(session, REQUEST)
    assert status == "ok"
    model = session.model
    assert isinstance(model, ScriptModel) and len(model.calls) == 1
    assert not records(tmp_path / "j.jsonl", "choose")


def test_in_the_real_kernel_the_right_version_is_the_one_defined(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, session_replies(OTHER, RIGHT))
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--choose", "3", "--model", f"script:{script}", "--transcript", str(journal), REQUEST],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert records(journal, "execution")[-1]["code"] == RIGHT
    [chosen] = records(journal, "choose")
    assert chosen["scores"] == [[True, 3], [True, 3], [True, 4]] and chosen["kept"] == 2
    assert "Another version of the function passes your examples and 4 of the 4 asserts" in result.stderr


def test_in_the_real_kernel_of_versions_failing_the_asserts_alike_the_one_most_agree_with_elsewhere_is_defined(
        tmp_path: Path, env: dict[str, str]) -> None:
    wrong_assert = "```python\nassert last([4, 4]) == 0\n```"  # every version gives 4
    replies = [fenced(WRONG), wrong_assert, wrong_assert, *(fenced(d) for d in (RIGHT, OTHER, AGAIN))]
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--choose", "3", "--model", f"script:{write_script(tmp_path, replies)}", "--transcript",
                         str(journal), REQUEST], env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert records(journal, "execution")[-1]["code"] == RIGHT  # WRONG raises on last([]), OTHER differs on [5, 4]
    [chosen] = records(journal, "choose")
    assert chosen["scores"] == [[True, 0]] * 4 and chosen["groups"] == [4] * 4
    assert chosen["everywhere"] == [1, 2, 1, 2] and chosen["kept"] == 1
    assert "Another version of the function does as well as the one written on the 1 assert the" in result.stderr


def test_in_the_real_kernel_a_version_using_a_module_it_never_imports_is_scored_and_defined_with_the_import(
        tmp_path: Path, env: dict[str, str]) -> None:
    right = "def last(items):\n    return math.prod(items[-1:]) if items else 0"
    script = write_script(tmp_path, session_replies(OTHER, right))
    journal = tmp_path / "j.jsonl"
    result = run_interp(["-y", "--choose", "3", "--model", f"script:{script}", "--transcript", str(journal), REQUEST],
                        env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    [chosen] = records(journal, "choose")
    assert chosen["kept"] == 2 and chosen["scores"][2] == [True, 4]
    assert records(journal, "execution")[-1]["code"] == f"import math\n\n{right}"


def test_a_version_still_being_written_after_draw_seconds_is_cut_and_not_scored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    kernel = ScriptedKernel([], [], scored(True, 3))
    endless = "def last(items):\n" + "".join(f"    if len(items) == {i}:\n        return items[{i - 1}]\n"
                                             for i in range(1, 60))
    session = make_session(tmp_path, [], kernel, choose=3, draw_seconds=30)
    session.model = TickingModel(session_replies(endless, RIGHT), now, seconds=0.5)
    events, status = turn(session, REQUEST)
    assert status == "ok" and now[0] == 30 + DRAW_GRACE
    asides = records(tmp_path / "j.jsonl", "aside")
    assert [(a["purpose"], a.get("cut", False)) for a in asides] == [("asserts", False)] * 2 + [("version", True)]
    assert len(kernel.executed) == 3  # the function, its examples and its scoring: the cut version is not scored
    assert records(tmp_path / "j.jsonl", "choose")[0]["kept"] == 0


def test_versions_decoded_beside_one_drawn_are_scored_after_draw_seconds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    kernel = ScriptedKernel([], [], scored(True, 3), scored(True, 3), scored(True, 3), scored(True, 4))
    longer = "def last(items):\n" + "    x = 0\n" * 10 + "    return items[-1]"
    session = make_session(tmp_path, [], kernel, choose=3, draw_seconds=32)
    replies = session_replies(longer, OTHER, RIGHT)
    replies[3] += "\n"  # its last piece ends the block
    session.model = model = KeepingModel(replies, now, seconds=0.5)
    _, status = turn(session, REQUEST)
    # The function and the asserts are written by 15.5 s; three versions are decoded together, the one streamed
    # written by 33.5 s, past draw_seconds: the two decoded beside it are taken whole and scored too, and the last is
    # kept.
    assert status == "ok" and now[0] == 33.5
    versions = [a for a in records(tmp_path / "j.jsonl", "aside") if a["purpose"] == "version"]
    assert len(versions) == 3 and len(model.calls) == 6
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["drawn"] == 3 and chosen["kept"] == 3
    assert kernel.executed[-1] == RIGHT


def test_an_assert_restating_an_example_is_found_however_spaced_or_quoted() -> None:
    assert unshown(["assert last([1,2,3])==3", "assert last([]) == 0", "assert last([1, 2, 3]) == 4"],
                   "assert last([1, 2, 3]) == 3\n") == ["assert last([]) == 0", "assert last([1, 2, 3]) == 4"]
    assert unshown(["assert f('a') == 'b'"], 'assert f("a") == "b"\n') == []


@pytest.mark.parametrize(("asked", "notice"), [
    (["It works.", "```python\nprint(last([]))\n```"], "The model wrote no asserts; keeping the function."),
    (["```python\nassert last([1,2,3]) == 3\n```"] * 4,
     "The model's asserts only repeat your examples; keeping the function."),
])
def test_without_asserts_but_the_examples_again_the_function_is_kept_and_nothing_drawn(
        tmp_path: Path, asked: list[str], notice: str) -> None:
    kernel = ScriptedKernel([], [])
    session = make_session(tmp_path, [fenced(WRONG), *asked, fenced(RIGHT)], kernel, choose=3)
    events, status = turn(session, REQUEST)
    assert status == "ok"
    model = session.model
    assert isinstance(model, ScriptModel) and len(model.calls) == 1 + len(asked)  # the function, calls for asserts
    assert len(kernel.executed) == 2  # the function and its examples: nothing scored
    assert any(isinstance(e, Notice) and e.text == notice for e in events)
    assert not records(tmp_path / "j.jsonl", "choose")


def test_asserts_that_only_repeat_the_examples_are_asked_for_again_told_so(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 0), scored(True, 1))
    repeated = "```python\nassert last([1,2,3]) == 3\n```"
    replies = [fenced(WRONG), repeated, repeated, "```python\nassert last([]) == 0\n```", "It works.",
               fenced(RIGHT)]
    session = make_session(tmp_path, replies, kernel, choose=3)
    events, status = turn(session, REQUEST)
    assert status == "ok"
    model = session.model
    assert isinstance(model, ScriptModel) and len(model.calls) == 6  # the function, 4 for asserts, a version
    given = "assert last([1, 2, 3]) == 3"
    for call in model.calls[3:5]:  # after the asserts it wrote, the examples it repeated shown as passing
        assert call[-3]["content"] == f"{REQUEST}\n\n{session.prompts.choose}"
        assert call[-2] == {"role": "assistant", "content": "```python\nassert last([1,2,3]) == 3\n```"}
        assert call[-1] == {"role": "user", "content": session.prompts.choose_other.substitute(given=given)}
        assert given in call[-1]["content"]
    assert [p.temperature for p in model.params[3:5]] == [0.2, 0.8]
    assert "The model's asserts only repeat your examples; asking again for asserts on other inputs." in [
        e.text for e in events if isinstance(e, Notice)]
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["asserts"] == ["assert last([]) == 0"] and chosen["kept"] == 1
    assert kernel.executed[-1] == RIGHT


def test_scored_asserts_leave_out_those_restating_the_examples(tmp_path: Path) -> None:
    kernel = ScriptedKernel([], [], scored(True, 1), scored(True, 2))
    replies = [fenced(WRONG), "```python\nassert last([1, 2, 3]) == 3\nassert last([]) == 0\n```",
               "```python\nassert last([3, 1]) == 1\n```", fenced(RIGHT)]
    session = make_session(tmp_path, replies, kernel, choose=3)
    events, status = turn(session, REQUEST)
    assert status == "ok"
    tests = ["assert last([]) == 0", "assert last([3, 1]) == 1"]
    given = "assert last([1, 2, 3]) == 3\n"
    assert kernel.executed[2:] == [scoring(WRONG, given, tests), scoring(RIGHT, given, tests), RIGHT]
    [chosen] = records(tmp_path / "j.jsonl", "choose")
    assert chosen["asserts"] == tests and chosen["kept"] == 1
    texts = [e.text for e in events if isinstance(e, Notice)]
    assert texts[-2] == ("Another version of the function passes your examples and 2 of the 2 asserts the model wrote "
                         "for other inputs, the one written 1: defining it instead.")


def test_a_spinner_per_call_aside_and_none_left_running() -> None:
    console = Console(file=io.StringIO(), force_terminal=True)
    view = RichView(console)
    view.show(Thinking())  # the two calls for asserts, one after the other with nothing shown between
    view.show(Thinking())
    view.show(Notice("done"))
    assert console._live_stack == []  # rich's own record of the live displays still drawing


def test_in_a_terminal_the_choice_is_told_and_the_prompt_comes_back(tmp_path: Path, env: dict[str, str]) -> None:
    script = write_script(tmp_path, [*session_replies(OTHER, RIGHT), "It returns 0 for an empty list."])
    child = spawn(["-y", "--choose", "3", "--model", f"script:{script}"], env, tmp_path)
    child.expect(">")
    for line in REQUEST.splitlines()[3:-1]:  # the stub alone, as a person would paste it
        child.send(line)
        child.send("\x1b\r")  # Esc-Enter: the next line of the same input
    child.send("\r")
    child.expect("Your examples pass. Asking the model for asserts")
    child.expect("Another version of the function passes your examples and 4 of the 4 asserts")
    child.expect("last is written")
    child.expect(">")
    child.sendline("What does it give for an empty list?")
    child.expect("It returns 0 for an empty list.")
    child.expect(">")
    finish(child)
