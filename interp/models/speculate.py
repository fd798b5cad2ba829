"""Speculative decoding by prompt lookup: drafts copied from earlier text, checked by the model in one batch.

A repair re-types the block it fixes, a file edit repeats the file: long spans of a reply already stand in the prompt
or earlier in the reply. `Lookup` finds where the last few tokens occurred before and proposes what followed them
there. The model evaluates the last token and the draft in one batch (a CPU does that several times faster than one
token at a time) and `verify` keeps the longest prefix of the draft that decoding agrees with, plus the model's own
next token.

Only sampled decoding speculates. A batch's logits differ from one-token logits in their last bits (llama.cpp uses
other kernels for several tokens; docs/models.md), and so do the cache entries it
writes, so greedy text could change at a near tie with speculation on; at temperature 0 interp decodes one token at
a time and its greedy text is the same with `speculative` on or off. (interp's retries, the turns that speculate,
always sample: each failure raises the temperature.)

Sampled decoding keeps the distribution: a drafted token d is accepted with probability p(d) and, when
rejected, the token is drawn from p without d, renormalized (speculative sampling with a draft that is certain of
its token; Leviathan et al. 2023, Chen et al. 2023). p is llama.cpp's own chain as interp configures it: top-k,
top-p, min-p, then temperature.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MIN_NGRAM, MAX_NGRAM = 3, 5  # lengths of the suffix searched for, longest first (2 matched too much by chance)
MIN_DRAFT, MAX_DRAFT = 2, 16
MAX_PAUSE = 64  # tokens decoded without drafts after refusals in a row, at most


@dataclass
class Lookup:
    """The prompt and the reply so far, indexed by n-grams: where each last occurred (the index after it)."""

    tokens: list[int] = field(default_factory=list)
    _last_end: dict[tuple[int, ...], int] = field(default_factory=dict)

    def extend(self, tokens: list[int]) -> None:
        for token in tokens:
            # The n-grams that end at the current end are indexed before the token that follows them arrives, so
            # a lookup of the suffix always finds an earlier occurrence, never itself.
            end = len(self.tokens)
            for n in range(MIN_NGRAM, min(MAX_NGRAM, end) + 1):
                self._last_end[tuple(self.tokens[end - n:end])] = end
            self.tokens.append(token)

    def propose(self, most: int) -> list[int]:
        """What followed the latest earlier occurrence of the longest suffix found, at most `most` tokens."""
        end = len(self.tokens)
        for n in range(min(MAX_NGRAM, end), MIN_NGRAM - 1, -1):
            start = self._last_end.get(tuple(self.tokens[end - n:]))
            if start is not None:
                return self.tokens[start:start + most]
        return []


@dataclass
class Sampling:
    """llama.cpp's sampler chain as interp sets it, at a temperature above 0."""

    temperature: float
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05

    def probabilities(self, logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The tokens that can be drawn and their probabilities, in llama.cpp's order of filters."""
        k = min(self.top_k, logits.size)
        ids = np.argpartition(logits, -k)[-k:]
        ids = ids[np.argsort(-logits[ids], kind="stable")]
        top = logits[ids].astype(np.float64)
        p = np.exp(top - top[0])
        p /= p.sum()
        keep = int(np.searchsorted(np.cumsum(p), self.top_p) + 1)  # the token that reaches top_p is kept
        keep = max(1, min(keep, k))
        ids, top = ids[:keep], top[:keep]
        kept = top >= top[0] + np.log(self.min_p)
        ids, top = ids[kept], top[kept]
        p = np.exp((top - top[0]) / self.temperature)
        return ids, p / p.sum()


@dataclass
class Verdict:
    """What a batch decided: drafted tokens accepted, and the model's own next token."""

    accepted: list[int]
    next_token: int


def verify(rows: list[np.ndarray], draft: list[int], sampling: Sampling, rng: np.random.Generator) -> Verdict:
    """`rows[j]` holds the logits after the batch's j-th token (the last accepted token, then the draft)."""
    accepted: list[int] = []
    for j, logits in enumerate(rows):
        ids, p = sampling.probabilities(logits)
        if j == len(draft):
            return Verdict(accepted, int(rng.choice(ids, p=p)))
        proposed = draft[j]
        share = p[ids == proposed]
        if not (share.size and rng.random() < share[0]):
            rest = np.where(ids == proposed, 0.0, p)
            return Verdict(accepted, int(rng.choice(ids, p=rest / rest.sum())))
        accepted.append(proposed)
    raise AssertionError("the batch's last row always decides the next token")


def sample(logits: np.ndarray, sampling: Sampling, rng: np.random.Generator) -> int:
    """One token drawn from one-token logits."""
    ids, p = sampling.probabilities(logits)
    return int(rng.choice(ids, p=p))


@dataclass
class DraftLength:
    """How many tokens to draft next: more after drafts taken whole, fewer after partial ones; after a draft that
    was refused outright, a pause of a few tokens that doubles while refusals go on. Fresh text, where lookups
    rarely hold, so pays for few batches; a repair, where they hold for lines on end, drafts 16 at a time."""

    current: int = 4
    _pause: int = 0
    _backoff: int = 1

    def allowed(self) -> int:
        """The longest draft to try at this step (0: decode one token without a draft)."""
        if self._pause:
            self._pause -= 1
            return 0
        return self.current

    def update(self, drafted: int, accepted: int) -> None:
        if not drafted:
            return
        if accepted == 0:
            self._pause, self._backoff = self._backoff, min(self._backoff * 2, MAX_PAUSE)
            self.current = MIN_DRAFT
            return
        self._backoff = 1
        self.current = min(self.current * 2, MAX_DRAFT) if accepted == drafted else max(accepted + 1, MIN_DRAFT)
