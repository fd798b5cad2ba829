"""Speculative decoding by prompt lookup: the lookup, the sampled verification, and on the real model the same greedy
text with it on and off (greedy decoding does not speculate) and a sampled repair mostly drafted."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SMOLLM2

from interp.models.base import GenParams, complete_text
from interp.models.speculate import DraftLength, Lookup, Sampling, sample, verify

REPAIR_CODE = "\n".join(f"    total_{i} = values[{i}] * {i + 1} + offset  # step {i}" for i in range(40))
REPAIR = [
    {"role": "system", "content": "You are a helpful coder. Reply with one python code block."},
    {"role": "user", "content": "Write a function compute(values, offset)."},
    {"role": "assistant",
     "content": f"```python\ndef compute(values, offset):\n{REPAIR_CODE}\n    return total_39\n```"},
    {"role": "user", "content": "Change step 17 to use offset * 2 instead of offset. Reply with the whole corrected "
                                "function."},
]


def test_the_lookup_proposes_what_followed_the_longest_earlier_match() -> None:
    lookup = Lookup()
    lookup.extend([1, 2, 3, 4, 5, 9, 7, 2, 3, 4, 8, 1, 2, 3, 4])
    assert lookup.propose(3) == [5, 9, 7]  # [2, 3, 4] last occurred before 8, but [1, 2, 3, 4] (before 5) is longer
    lookup.extend([5])
    assert lookup.propose(10) == [9, 7, 2, 3, 4, 8, 1, 2, 3, 4]
    assert Lookup(tokens=[]).propose(5) == []
    fresh = Lookup()
    fresh.extend([1, 2, 3, 4, 9, 5, 3, 4])
    assert fresh.propose(4) == []  # only [3, 4] occurred before: too short to draft from


def test_the_draft_grows_when_taken_shrinks_when_not_and_pauses_after_refusals() -> None:
    length = DraftLength()
    for drafted in (4, 8, 16):
        assert length.allowed() == drafted
        length.update(drafted, drafted)
    assert length.allowed() == 16
    length.update(16, 3)
    assert length.allowed() == 4
    pauses = []
    for _ in range(4):
        length.update(length.allowed(), 0)
        pauses.append(0)
        while length.allowed() == 0:
            pauses[-1] += 1
    assert pauses == [1, 2, 4, 8]
    length.update(2, 1)
    length.update(2, 0)
    assert [length.allowed(), length.allowed()] == [0, 2]  # an accepted token resets the pause


def _logits(favourite: int, margin: float, size: int = 60) -> np.ndarray:
    row = np.linspace(0.0, -6.0, size).astype(np.float32)
    row[favourite] = row.max() + margin
    return row


def test_verification_keeps_a_certain_draft_and_adds_the_model_s_own_token() -> None:
    rng = np.random.default_rng(0)
    sampling = Sampling(0.4)
    rows = [_logits(5, 30), _logits(6, 30), _logits(9, 30), _logits(1, 30)]  # each row all but certain
    verdict = verify(rows, [5, 6, 7], sampling, rng)
    assert (verdict.accepted, verdict.next_token) == ([5, 6], 9)
    verdict = verify(rows[:3], [5, 6], sampling, rng)
    assert (verdict.accepted, verdict.next_token) == ([5, 6], 9)


@pytest.mark.parametrize("draft", [3, 0, 59])  # the favourite, a likely token, one top-k drops
def test_sampled_verification_keeps_the_model_s_distribution(draft: int) -> None:
    rng = np.random.default_rng(1)
    sampling = Sampling(0.8, top_k=40, top_p=0.95, min_p=0.01)
    row = _logits(3, 0.5)
    ids, p = sampling.probabilities(row)
    expected = dict(zip(ids.tolist(), p.tolist(), strict=True))
    n = 20000
    counts: dict[int, int] = {}
    for _ in range(n):
        verdict = verify([row, _logits(7, 1)], [draft], sampling, rng)
        first = verdict.accepted[0] if verdict.accepted else verdict.next_token
        counts[first] = counts.get(first, 0) + 1
    assert set(counts) <= set(expected)
    for token, share in expected.items():
        sigma = (share * (1 - share) / n) ** 0.5
        assert abs(counts.get(token, 0) / n - share) < 5 * sigma + 1e-3, token


def test_the_filters_follow_llama_cpp_s_order() -> None:
    logits = np.array([5.0, 4.9, 4.0, 1.0, -3.0, -9.0], dtype=np.float32)
    ids, p = Sampling(1.0, top_k=5, top_p=0.9, min_p=0.05).probabilities(logits)
    assert ids.tolist() == [0, 1, 2]  # top-p keeps the token that reaches 0.9; min-p then drops none of these
    assert p.sum() == pytest.approx(1.0)
    ids, _ = Sampling(1.0, top_k=5, top_p=1.0, min_p=0.05).probabilities(logits)
    assert ids.tolist() == [0, 1, 2]  # min-p: e^(1 - 5) < 0.05 of the best
    assert sample(logits, Sampling(0.01), np.random.default_rng(0)) == 0


@pytest.fixture(scope="module")
def smollm2():  # noqa: ANN201 - a LlamaModel, imported lazily like the code under test does
    from interp.models.llama import LlamaModel

    model = LlamaModel(SMOLLM2, n_ctx=2048)
    yield model
    model.close()


def _fresh(model, messages: list[dict[str, str]], params: GenParams) -> tuple[str, object]:  # noqa: ANN001
    # Both modes start from an empty cache: the prompt's last token evaluated in a batch or alone gives logits
    # that differ in their last bits, which is not what is compared here.
    model.llm.reset()
    return complete_text(model, messages, params)


FRESH_REQUESTS = [
    "Write a Python function that checks whether a number is prime.",
    "Read numbers.txt, one integer per line, and print their mean and median.",
    "Rename every .txt file in the current folder to .md.",
]


@pytest.mark.model
@pytest.mark.parametrize("messages", [REPAIR, *([{"role": "user", "content": r}] for r in FRESH_REQUESTS)])
def test_greedy_text_is_the_same_with_speculation_on_and_off(smollm2, messages: list[dict[str, str]]) -> None:  # noqa: ANN001
    off, _ = _fresh(smollm2, messages, GenParams(max_tokens=200, temperature=0.0, speculative=False))
    on, stats = _fresh(smollm2, messages, GenParams(max_tokens=200, temperature=0.0, speculative=True))
    assert on == off
    assert stats.draft_tokens == 0  # a batch's logits differ from one token's in their last bits: no drafts


@pytest.mark.model
def test_a_sampled_repair_takes_much_of_its_text_from_drafts(smollm2) -> None:  # noqa: ANN001
    # SmolLM2 copies loosely when sampled (about half its tokens came from drafts here); the 1.5B took 91-93%.
    _, stats = _fresh(smollm2, REPAIR, GenParams(max_tokens=300, temperature=0.4, speculative=True, seed=3))
    assert stats.accepted_tokens > 0.3 * stats.completion_tokens


@pytest.mark.model
def test_sampled_speculation_repeats_with_a_seed_and_matches_llama_cpp_s_sampler(smollm2) -> None:  # noqa: ANN001
    params = GenParams(max_tokens=120, temperature=0.7, speculative=True, seed=11)
    first, _ = _fresh(smollm2, REPAIR, params)
    again, _ = _fresh(smollm2, REPAIR, params)
    assert first == again
    # The distribution speculation samples from is the one llama.cpp's sampler draws from.
    llm = smollm2.llm
    llm.reset()
    llm.eval(smollm2.tokens(REPAIR))
    row = smollm2._row(-1).copy()
    ids, p = Sampling(0.7).probabilities(row)
    chain = llm._init_sampler(temp=0.7, top_k=40, top_p=0.95, min_p=0.05)
    n = 3000
    drawn = [chain.sample(llm._ctx, -1) for _ in range(n)]
    assert set(drawn) <= set(ids.tolist())
    for token, share in zip(ids.tolist(), p.tolist(), strict=True):
        sigma = (share * (1 - share) / n) ** 0.5
        assert abs(drawn.count(token) / n - share) < 5 * sigma + 2e-3
