"""The turn's retry and stop rules as a pure object: no model, no kernel."""

from __future__ import annotations

from dataclasses import replace
from string import Template
from typing import Any

import pytest

from interp.common.events import ExecutionDone
from interp.common.extract import CodeBlock, code_blocks
from interp.models.base import GenParams
from interp.rules import Engine, Finding
from interp.rules.answer_form import Part
from interp.rules.replies.reply_facts import ReplyFacts, reply_rule
from interp.rules.rule import Act
from interp.turn.policy import (
    RESAMPLE_TEMPERATURE,
    RESAMPLES,
    Asked,
    End,
    Nudge,
    Resample,
    Run,
    TurnPolicy,
    retry_params,
)
from interp.turn.policy.screening import Screening

WORKS = CodeBlock("python", "print('works')")
FAILS = CodeBlock("python", "raise ValueError('always')")


def redraws_spent(**settings: Any) -> TurnPolicy:
    """A turn's policy whose replies may no longer be drawn again: code sent again runs as it is."""
    return TurnPolicy(**settings, screening=Screening(resamples=RESAMPLES))


def done(block: CodeBlock, status: str = "ok", error: str | None = None) -> ExecutionDone:
    return ExecutionDone(block.language, block.code, status, "", error, 0.0)


def failed_step(policy: TurnPolicy, block: CodeBlock = FAILS, error: str = "ValueError: always"):
    assert policy.on_reply("...", [block]) == Run([block])
    assert policy.on_execution(block, done(block, "error", f"Traceback\n{error}")) is False
    return policy.end_step()


def test_an_empty_reply_is_nudged_once_then_ends_the_turn() -> None:
    policy = TurnPolicy()
    assert policy.on_reply("  \n", []) == Nudge()
    assert policy.on_reply("code", []) == End("ok")


def test_a_reply_without_code_ends_the_turn_with_the_latest_executions_status() -> None:
    policy = TurnPolicy()
    failed_step(policy)
    assert policy.on_reply("I give up.", []) == End("failed")


def test_identical_blocks_run_once_and_a_repeat_of_working_code_ends_the_turn() -> None:
    policy = TurnPolicy()
    assert policy.on_reply("code", [WORKS, WORKS]) == Run([WORKS])
    assert policy.on_execution(WORKS, done(WORKS)) is True
    assert not policy.end_step().failed
    end = policy.on_reply("again", code_blocks("```python\nprint('works')\n```"))
    assert isinstance(end, End) and end.status == "ok" and "already ran" in end.notice.text


def test_a_failure_stops_the_replys_other_blocks_and_declined_or_skipped_end_the_turn() -> None:
    policy = TurnPolicy()
    assert policy.on_execution(FAILS, done(FAILS, "error", "E")) is False
    assert policy.on_execution(WORKS, done(WORKS, "declined")) == End("declined")
    assert policy.on_execution(WORKS, done(WORKS, "skipped")) == End("skipped")


def test_the_same_failure_three_times_is_stuck_with_a_hint_in_between() -> None:
    policy = redraws_spent(max_attempts=9)  # the failing code re-sent: run again, from now on
    first, second, third = (failed_step(policy) for _ in range(3))
    assert (first.stuck_hint, second.stuck_hint, third.stuck_hint) == (False, True, False)
    assert first.stop is None and second.stop is None
    assert third.stop.status == "stuck" and "3 times" in third.stop.notice.text


def test_failing_code_sent_again_unchanged_is_drawn_again_hotter_before_it_runs_again() -> None:
    policy = TurnPolicy(max_attempts=9)
    base = GenParams(max_tokens=100, temperature=0.2)
    failed_step(policy)
    for unseen in (False, True):  # the second draw without the code in view (Turn._redrawn)
        assert policy.on_reply("same", [FAILS]) == Resample("failed", unseen)
        assert policy.params(base).temperature == RESAMPLE_TEMPERATURE
    assert policy.on_reply("same", [FAILS]) == Run([FAILS])  # the resamples are spent: it runs, stuck rules apply
    assert policy.params(base).temperature == retry_params(base, 1).temperature
    other = CodeBlock("python", "print('other')")
    assert TurnPolicy().on_reply("first", [FAILS]) == Run([FAILS])  # no failure yet: nothing to compare with
    policy = TurnPolicy()
    failed_step(policy)
    assert policy.on_reply("changed", [other]) == Run([other])
    policy = TurnPolicy()
    failed_step(policy)
    assert policy.on_reply("with more", [FAILS, other]) == Run([FAILS, other])  # not only the failing code


def test_working_code_sent_again_after_a_doubting_note_is_drawn_again_twice_the_second_time_unseen() -> None:
    policy = TurnPolicy()
    base = GenParams(max_tokens=100, temperature=0.2)
    assert policy.on_reply("code", [WORKS]) == Run([WORKS])
    policy.on_execution(WORKS, done(WORKS))
    policy.noted(["Note: the output shows one number; the request asks for one per extension."])
    policy.end_step()
    assert policy.on_reply("same", [WORKS]) == Resample("doubted")
    assert policy.params(base).temperature == RESAMPLE_TEMPERATURE
    assert policy.on_reply("same", [WORKS]) == Resample("doubted", unseen=True)  # without the code (turn.py)
    end = policy.on_reply("same", [WORKS])
    assert isinstance(end, End) and end.status == "ok"  # the draws spent: the model stands by its code
    policy = TurnPolicy()
    policy.on_reply("code", [WORKS])
    policy.on_execution(WORKS, done(WORKS))
    policy.noted([])
    policy.end_step()
    assert isinstance(policy.on_reply("same", [WORKS]), End)


def test_an_answer_copying_a_note_is_drawn_again() -> None:
    note = "Note: 153 is 152.7 rounded up; whole minutes count only the complete ones (int() or // drop the rest)."
    policy = TurnPolicy()
    policy.noted([note])
    assert policy.on_reply("153 is 152.7 rounded up; whole minutes count only the complete ones (int() or // drop "
                           "the rest).", []) == Resample("copied")
    assert policy.on_reply("152 whole minutes passed.", []) == End("ok")


def test_an_answer_copying_a_few_shot_answer_is_drawn_again() -> None:
    example = ("2 to the power of 10 is 1024.", "What is 2 to the power of 10?\n```python\nprint(2 ** 10)\n```")
    policy = TurnPolicy(asked=Asked(shown="What is 2 + 3?", examples_read=[example]))
    block = CodeBlock("python", "print(2 + 3)")
    assert policy.on_reply("code", [block]) == Run([block])
    policy.on_execution(block, ExecutionDone("python", block.code, "ok", "5\n", None, 0.0))
    policy.end_step()
    assert policy.on_reply("2 to the power of 10 is 5.", []) == Resample("example")
    assert policy.on_reply("2 + 3 is 5.", []) == End("ok")


def test_different_failures_in_a_row_hit_the_attempts_bound() -> None:
    policy = redraws_spent(max_attempts=2)
    assert failed_step(policy, error="E1").stop is None
    stop = failed_step(policy, error="E2").stop
    assert stop.status == "attempts" and "--max-attempts 2" in stop.notice.text


def test_no_attempts_bound_when_it_is_zero() -> None:
    policy = redraws_spent(max_attempts=0, max_steps=0)
    assert all(failed_step(policy, error=f"E{i}").stop is None for i in range(20))


def test_a_success_resets_the_failures_in_a_row() -> None:
    policy = redraws_spent(max_attempts=2)
    failed_step(policy, error="E1")
    policy.on_reply("code", [WORKS])
    policy.on_execution(WORKS, done(WORKS))
    policy.end_step()
    assert policy.attempts.failures == 0
    assert failed_step(policy, error="E2").stop is None


def test_the_steps_bound_ends_the_turn_with_the_latest_status() -> None:
    policy = TurnPolicy(max_steps=2)
    for i in range(2):
        block = CodeBlock("python", f"print({i})")
        policy.on_reply("code", [block])
        policy.on_execution(block, done(block))
        step = policy.end_step()
    assert step.stop.status == "ok" and step.stop.notice.level == "warning"


def test_reflection_from_the_second_failure_in_a_row_but_not_on_the_last_allowed_attempt() -> None:
    policy = redraws_spent(max_attempts=3, reflect=True)
    assert [failed_step(policy, error=f"E{i}").reflect for i in range(3)] == [False, True, False]
    assert not any(failed_step(redraws_spent(reflect=False), error=f"E{i}").reflect for i in range(3))


def test_temperature_rises_with_each_failure_in_a_row() -> None:
    base = GenParams(max_tokens=100, temperature=0.2)
    assert [round(retry_params(base, n).temperature, 2) for n in range(6)] == [0.2, 0.4, 0.6, 0.8, 1.0, 1.0]
    policy = redraws_spent(max_attempts=0)
    failed_step(policy)
    assert round(policy.params(base).temperature, 2) == 0.4


def test_only_retries_decode_speculatively() -> None:
    base = GenParams(max_tokens=100, temperature=0.2, speculative=True)
    assert [retry_params(base, n).speculative for n in range(3)] == [False, True, True]
    off = GenParams(max_tokens=100, temperature=0.2, speculative=False)
    assert [retry_params(off, n).speculative for n in range(3)] == [False, False, False]


def test_a_repeat_of_working_code_after_a_failure_is_a_failed_attempt_told_the_standing_error() -> None:
    """The 1.5B often re-sends a function unchanged after one of its checks failed: that is no answer, so the turn
    goes on (the error stated again), bounded by the attempts and stuck rules, and ends failed if the model stops."""
    policy = TurnPolicy(max_attempts=3)
    policy.on_reply("code", [WORKS])
    policy.on_execution(WORKS, done(WORKS))
    policy.end_step()
    failed_step(policy)
    assert policy.on_reply("again", [WORKS]) == Run([], unchanged="ValueError: always")
    step = policy.end_step()
    assert step.failed and step.stuck_hint and step.stop is None and policy.attempts.failures == 2
    assert policy.on_reply("again", [WORKS]) == Run([], unchanged="ValueError: always")
    assert policy.end_step().stop is not None  # the third time the same failure stands: stuck
    assert policy.on_reply("I give up.", []) == End("failed")




def test_an_unfenced_print_of_what_a_clean_run_printed_is_the_answer_not_code() -> None:
    ran = CodeBlock("python", "print('hello world'.upper())")
    policy = TurnPolicy()
    assert policy.on_reply("code", [ran]) == Run([ran])
    assert policy.on_execution(ran, ExecutionDone("python", ran.code, "ok", "HELLO WORLD\n", None, 0.0)) is True
    policy.end_step()
    assert policy.on_reply("print('HELLO WORLD')", code_blocks("print('HELLO WORLD')")) == End("ok")
    other = code_blocks("print('Hello world')")  # text no run printed: code, run as before
    assert other[0].inferred and policy.on_reply("print('Hello world')", other) == Run(other)
    fenced = code_blocks("```python\nprint('HELLO WORLD')\n```")  # fenced: the model meant it to run
    assert policy.on_reply("...", fenced) == Run(fenced)


def test_before_any_clean_run_an_unfenced_print_of_a_constant_runs() -> None:
    blocks = code_blocks("print('HELLO WORLD')")
    assert TurnPolicy().on_reply("print('HELLO WORLD')", blocks) == Run(blocks)


def ran(policy: TurnPolicy, block: CodeBlock = WORKS, output: str = "") -> None:
    assert policy.on_reply("...", [block]) == Run([block])
    assert policy.on_execution(block, replace(done(block), output=output)) is True
    policy.end_step()


def test_a_final_answer_without_every_part_of_the_form_is_asked_for_once_its_reply_begun_in_the_form() -> None:
    policy = TurnPolicy(asked=Asked(answer_parts=[Part("mean_fare"), Part("median_age")]))
    ran(policy, output="32.2\n28\n")
    base = GenParams(max_tokens=64, temperature=0.2, speculative=True)
    assert policy.on_reply("The mean fare is 32.2 and @median_age[28].", []) == Nudge("form_opening", ["mean_fare"])
    assert policy.params(base) == GenParams(max_tokens=64, temperature=0.2, opening="@mean_fare[", speculative=False)
    assert policy.on_reply("@mean_fare[32.2] and 28.", []) == End("ok")  # once: the turn ends as it is
    assert policy.params(base).opening == ""


def test_an_answer_after_code_that_printed_nothing_is_asked_for_code_then_begun_in_the_form() -> None:
    policy = TurnPolicy(asked=Asked(answer_parts=[Part("mean_fare"), Part("median_age")]))
    ran(policy, CodeBlock("python", "x = 1"))
    base = GenParams(max_tokens=64, temperature=0.2, speculative=True)
    assert policy.on_reply("The mean fare is 32.2.", []) == Nudge("unformed", ["mean_fare", "median_age"])
    assert policy.params(base).opening == ""  # the model may answer with code that prints the values
    assert policy.on_reply("The mean fare is 32.2, the median age 28.", []) == Nudge(
        "form_opening", ["mean_fare", "median_age"])
    assert policy.params(base) == GenParams(max_tokens=64, temperature=0.2, opening="@mean_fare[", speculative=False)


def test_a_part_given_a_value_the_request_rules_out_is_asked_for_once_and_the_reply_may_still_be_an_empty_one() -> None:
    policy = TurnPolicy(asked=Asked(answer_parts=[Part("kind", "kind", ("normal", "not normal"))]))
    ran(policy)
    assert policy.on_reply("@kind[0.0012]", []) == Nudge("unfilled", variant="option")
    assert policy.on_reply("", []) == Nudge("empty")  # the other nudges still stand
    assert policy.on_reply("@kind[0.0012]", []) == End("ok")  # once a turn: the turn ends as it is


@pytest.mark.parametrize(("names", "reply", "code_ran"), [
    (["mean_fare"], "@mean_fare[32.20]", True),  # every part given
    ([], "The mean fare is 32.2.", True),  # the request asks for no form
    (["mean_fare"], "The mean fare is 32.2.", False),  # no code ran yet: the answer-before-code rules apply
])
def test_an_answer_in_the_form_or_without_one_asked_for_ends_the_turn(names: list[str], reply: str,
                                                                        code_ran: bool) -> None:
    policy = TurnPolicy(asked=Asked(answer_parts=[Part(name) for name in names]))
    if code_ran:
        ran(policy)
    assert policy.on_reply(reply, []) == End("ok")


def test_parts_the_turn_s_output_already_gives_in_form_are_not_asked_for() -> None:
    policy = TurnPolicy(asked=Asked(answer_parts=[Part("mean_fare")]))
    assert policy.on_reply("...", [WORKS]) == Run([WORKS])
    assert policy.on_execution(WORKS, ExecutionDone("python", WORKS.code, "ok", "@mean_fare[32.20]\n", None, 0.0))
    policy.end_step()
    assert policy.on_reply("The mean fare is 32.20.", []) == End("ok")


def printed(policy: TurnPolicy, output: str, notes: tuple[str, ...] = ()) -> End | None:
    """A step whose code printed `output`, and interp's notes on it: how the step ends the turn, if it does."""
    block = CodeBlock("python", f"print({output!r})")
    assert policy.on_reply("...", [block]) == Run([block])
    assert policy.on_execution(block, ExecutionDone("python", block.code, "ok", output, None, 0.0)) is True
    policy.noted(list(notes))
    return policy.end_step().stop


@pytest.mark.parametrize(("parts", "outputs", "notes", "ends"), [
    ([Part("mean_fare")], ["@mean_fare[32.20]\n"], (), True),
    ([Part("a"), Part("b")], ["@a[1]\n", "@b[2]\n"], (), True),  # the parts printed by two runs: ends at the second
    ([Part("a"), Part("b")], ["@a[1] b is 2\n"], (), False),  # a part not in the form
    ([Part("n", number=True)], ["@n[nan]\n"], (), False),  # no number where the request asks for one
    ([Part("a")], ["@a[{mean:.2f}]\n"], (), False),  # a string without the f prefix, printed as written
    ([Part("k", "k", ("normal", "not normal"))], ["@k[0.012]\n"], (), False),  # a value the request rules out
    ([Part("a")], ["@a[0]\n"], ("The output is all zeros.",), False),  # a note doubted the run
    ([], ["@a[1]\n"], (), False),  # the request asks for no form
])
def test_a_clean_run_that_prints_every_part_of_the_form_ends_the_turn(parts: list[Part], outputs: list[str],
                                                                      notes: tuple[str, ...], ends: bool) -> None:
    policy = TurnPolicy(asked=Asked(answer_parts=parts))
    stops = [printed(policy, output, notes) for output in outputs]
    assert stops[:-1] == [None] * (len(outputs) - 1)
    if ends:
        assert stops[-1] is not None and stops[-1].status == "ok" and "every part" in stops[-1].notice.text
    else:
        assert stops[-1] is None


def _shouted(facts: ReplyFacts) -> Finding | None:
    """A reply written all in capitals."""
    return Finding() if facts.reply.strip() and facts.reply == facts.reply.upper() else None


@pytest.mark.parametrize(("act", "expected"), [
    (Act("nudge", marks="nudged"), Nudge("shouted", variant="note")),
    (Act("answer"), End("ok")),
    (Act("redraw"), Resample("shouted", False)),
])
def test_a_new_reply_rule_is_acted_on_from_its_act_alone(act: Act, expected: object) -> None:
    """Adding a reply rule touches interp/rules/ and prompts/rules/ only: the policy reads what its Act asks, never
    its id (this rule and its template exist only here)."""
    shouted = reply_rule("shouted", _shouted, act)
    policy = TurnPolicy(rules=Engine([shouted], {"shouted": Template("Please do not shout.")}))
    assert policy.on_reply("THE ANSWER IS 42.", []) == expected
    assert policy.on_reply("The answer is 42.", []) == End("ok")
