"""Replies drawn together (models/together.py): which calls get a kept reply, where a reply ends, and on the real
model several replies decoded side by side: the first streams, the others go whole to the next calls with the same
prompt and sampling, the cache holds the prompt alone afterwards, the deadline gives up the unseen ones, and a prompt
longer than a sequence's share of the context fits (one cache for all of them)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from conftest import SMOLLM2

from interp.common.extract import whole
from interp.common.returning import Returning
from interp.models.base import Ahead, GenParams, StopReply, complete_text, stop_early
from interp.models.together import KEEP, WHOLE_EVERY, Drawn, Kept, writers

PROMPT = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
OTHER = [{"role": "user", "content": "Write a Python function that reverses a string."}]


def test_kept_replies_go_only_to_calls_with_the_same_key_and_the_newest_are_kept() -> None:
    kept = Kept()
    kept.put([(("a",), Drawn("x", 1, "stop", 9.0)), (("c",), Drawn("w", 1, "stop", 9.0)),
              (("a",), Drawn("y", 2, "code", 9.0))])
    assert kept.take(("b",)) is None and not kept.waiting(("b",))
    assert kept.waiting(("a",))
    first, second = kept.take(("a",)), kept.take(("a",))
    assert first is not None and second is not None and [first.text, second.text] == ["x", "y"]
    assert kept.take(("a",)) is None and not kept.waiting(("a",))
    other = kept.take(("c",))
    assert other is not None and other.text == "w"
    kept.put([(("a",), Drawn("x", 1, "stop", 9.0))])
    kept.put([(("b",), Drawn("z", 1, "stop", 9.0))])
    assert kept.waiting(("a",)) and kept.waiting(("b",))  # a draw for another prompt keeps them (choosing's asserts)
    kept.put([(("d",), Drawn(str(i), 1, "stop", 9.0)) for i in range(KEEP - 1)])
    assert not kept.waiting(("a",)) and kept.waiting(("b",))  # beyond KEEP, the oldest go
    assert len(kept.replies) == KEEP


def test_a_reply_decoded_unseen_ends_where_it_is_whole_or_at_its_budget() -> None:
    code = writers([0.8], 3)[0]
    pieces = [b"```python\n", b"x = 1\n", b"```", b"\n", b"Output: 1\n"]
    for piece in pieces[:3]:
        code.add(piece, "", whole, 100)
        assert not code.ended
    code.add(pieces[3], "", whole, 100)  # the fence closed and the next line begun: no made-up output after it
    assert code.ended == "code" and code.drawn(1.0).text == "```python\nx = 1\n```\n"
    opened = writers([0.8], 3)[0]
    opened.add(b"    return a + b\n", "```python\ndef add(a, b):\n", whole, 100)
    assert not opened.ended
    opened.add(b"```\n", "```python\ndef add(a, b):\n", whole, 100)  # the opening is part of the reply
    assert opened.ended == "code"
    short = writers([0.8], None)[0]
    for _ in range(3):
        short.add(b"a", "", whole, 3)
    assert short.ended == "length" and short.tokens == 3
    long = writers([0.8], None)[0]
    for _ in range(WHOLE_EVERY):  # one line with no end: asked at every WHOLE_EVERY-th token too
        long.add(b"x", "", lambda text: "long" if len(text) > 10 else None, 100)
    assert long.ended == "long" and long.tokens == WHOLE_EVERY
    again, other = writers([0.8, 0.2], 7)
    assert writers([0.8], 7)[0].rng.random() == again.rng.random() != other.rng.random()
    assert (again.sampling.temperature, other.sampling.temperature) == (0.8, 0.2)


@pytest.fixture(scope="module")
def smollm2():  # noqa: ANN201 - a LlamaModel, imported lazily like the code under test does
    from interp.models.llama import LlamaModel

    model = LlamaModel(SMOLLM2, n_ctx=2048)
    yield model
    model.close()


def _sampled(**extra: object) -> GenParams:
    return replace(GenParams(max_tokens=40, temperature=0.9, seed=5), **extra)


@pytest.mark.model
def test_replies_drawn_together_stream_the_first_and_give_the_others_whole_to_the_next_calls(smollm2) -> None:  # noqa: ANN001
    run = Returning(smollm2.complete(PROMPT, _sampled(), Ahead(together=3)))
    pieces = list(run)
    first = run.value
    assert len(pieces) > 1 and first.together == 3 and not first.kept and first.completion_tokens > 0
    assert first.decode_tps > 0
    texts = ["".join(pieces)]
    assert smollm2.waiting(PROMPT, _sampled()) and not smollm2.waiting(OTHER, _sampled())
    assert not smollm2.waiting(PROMPT, _sampled(temperature=0.5))
    for count in (3, 1):  # a call for one reply takes a kept one too
        text, stats = complete_text(smollm2, PROMPT, _sampled(), Ahead(together=count))
        assert stats.kept and stats.completion_tokens > 0 and stats.cached_tokens == stats.prompt_tokens
        assert stats.decode_tps == pytest.approx(first.decode_tps)
        texts.append(text)
    assert all(texts) and len(set(texts)) == 3  # each sampled with a generator of its own
    assert not smollm2.waiting(PROMPT, _sampled())
    _, fourth = complete_text(smollm2, PROMPT, _sampled(), Ahead(together=3))
    assert not fourth.kept and fourth.together == 3  # the kept ones used up: drawn anew
    _, other = complete_text(smollm2, OTHER, _sampled(), Ahead(together=3))
    assert not other.kept  # another prompt: none of the kept ones
    assert smollm2.waiting(PROMPT, _sampled())  # and its draw keeps those of the fourth call
    _, cooler = complete_text(smollm2, OTHER, _sampled(temperature=0.5), Ahead(together=3))
    assert not cooler.kept  # another temperature


@pytest.mark.model
def test_a_reply_beside_the_streamed_one_at_its_own_temperature_goes_to_the_next_call_at_that_one(smollm2) -> None:  # noqa: ANN001
    asking = [{"role": "user", "content": "Write three asserts for a Python function that squares a number."}]
    _, first = complete_text(smollm2, asking, _sampled(temperature=0.2), Ahead(beside=(0.8,)))
    assert first.together == 2 and not first.kept
    _, same = complete_text(smollm2, asking, _sampled(temperature=0.2))
    assert not same.kept  # the one beside was drawn at 0.8, not for another call at 0.2
    complete_text(smollm2, asking, _sampled(temperature=0.2), Ahead(beside=(0.8,)))
    for _ in range(2):  # the ones beside both calls at 0.2
        text, hotter = complete_text(smollm2, asking, _sampled(temperature=0.8))
        assert hotter.kept and text and hotter.cached_tokens == hotter.prompt_tokens
    _, again = complete_text(smollm2, asking, _sampled(temperature=0.8))
    assert not again.kept  # used up


@pytest.mark.model
def test_after_replies_drawn_together_the_cache_holds_the_prompt_as_a_reply_alone_leaves_it(smollm2) -> None:  # noqa: ANN001
    greedy = GenParams(max_tokens=40, temperature=0.0)
    prompt = [{"role": "user", "content": "Write a Python function that subtracts two numbers."}]  # none kept for it
    smollm2.llm.reset()
    complete_text(smollm2, prompt, GenParams(max_tokens=40, temperature=0.9, seed=1))
    alone, stats = complete_text(smollm2, prompt, greedy)
    assert stats.cached_tokens == stats.prompt_tokens - 1
    smollm2.llm.reset()
    complete_text(smollm2, prompt, _sampled(), Ahead(together=4))
    after, stats = complete_text(smollm2, prompt, greedy)  # before, it sampled from the last batch's logits
    assert stats.cached_tokens == stats.prompt_tokens - 1 and after == alone


@pytest.mark.model
def test_replies_beside_the_shown_one_are_given_up_past_the_deadline_or_when_it_is_cut(smollm2) -> None:  # noqa: ANN001
    late = [{"role": "user", "content": "Write a Python function that multiplies two numbers."}]
    complete_text(smollm2, late, _sampled(), Ahead(together=3, deadline=time.monotonic() - 1))
    _, stats = complete_text(smollm2, late, _sampled(), Ahead(together=3, deadline=time.monotonic() - 1))
    assert not stats.kept
    cut = [{"role": "user", "content": "Write a Python function that divides two numbers."}]
    run = smollm2.complete(cut, _sampled(), Ahead(together=3))
    next(run)
    with pytest.raises(StopIteration):
        run.throw(StopReply)  # cut before it was whole (its time was up): all of them end
    _, stats = complete_text(smollm2, cut, _sampled(), Ahead(together=3))
    assert not stats.kept


@pytest.mark.model
def test_a_prompt_longer_than_a_sequence_s_share_of_the_context_is_drawn_together(smollm2) -> None:  # noqa: ANN001
    long = [{"role": "user", "content": "Numbers: " + " ".join(str(n) for n in range(400)) + ". Sum them in Python."}]
    assert smollm2.count_tokens(long) > smollm2.n_ctx // 4
    text, stats = complete_text(smollm2, long, _sampled(), Ahead(together=4))
    assert text and stats.together == 4
    _, kept = complete_text(smollm2, long, _sampled(), Ahead(together=4))
    assert kept.kept
    room = smollm2.n_ctx - smollm2.count_tokens(long)
    for most, decoded in ((room // 2, 2), (room // 2 + 1, 0)):
        run = smollm2.complete(long, _sampled(max_tokens=most), Ahead(together=4))
        next(run)
        # Two replies of room // 2 + 1 tokens would not fit the cache the prompt leaves: decoded alone.
        assert stop_early(run, "enough").together == decoded
