"""Which of the versions scored agree (choosing.py): each one's group of versions that give the same values, and the
one kept."""

from __future__ import annotations

from interp.versions.probing import Scored


def groups(scored: list[Scored], copies: list[int], everywhere: bool = False) -> list[int]:
    """For each version that passes the request's examples, how many of the versions drawn that pass them too (copies
    of one counted) give the same value as it for every assert's expression: itself alone when it raised on one, or
    fails the examples. `everywhere`: and for every varied call (having raised on it alike; alone when it ran out of
    time on one)."""
    def agree(a: Scored, b: Scored) -> bool:
        return (a.examples and b.examples and a.values == b.values and None not in a.values
                and (not everywhere or a.varied == b.varied and None not in a.varied))

    return [sum(n for other, n in zip(scored, copies, strict=True) if other is one or agree(one, other))
            for one in scored]


def weight(scores: list[tuple[bool, int]], sizes: list[int], i: int) -> int:
    """Version i's asserts passed times its group's size (`groups`): what `pick` ranks by first."""
    return scores[i][1] * sizes[i]


def pick(scores: list[tuple[bool, int]], sizes: list[int], everywhere: list[int]) -> int:
    """The version to keep: of those that pass the examples, the one whose asserts passed times its group's size
    (`groups`) is the most; of equals, the one that the most distinct versions agree with everywhere (`groups` with
    `everywhere=True`, each version once: on the varied calls too), then the first; the first version (the one the
    turn kept) when none scores more.
    CodeT's dual agreement (Chen et al. 2022): a version that passes one more assert alone does not outweigh several
    versions that agree with each other. Equals are common where the asserts are wrong, and then the first, kept as
    written, may be a wrong one while the right ones agree on the varied calls.
    There each version counts once, however often it was drawn: the same code drawn again is the model's likeliest
    answer once more, where two versions written differently that give the same values are two independent pieces of
    evidence.
    """
    def key(i: int) -> tuple[int, int]:
        return weight(scores, sizes, i), everywhere[i]

    best = 0
    for i, (examples, _passed) in enumerate(scores):
        if examples and key(i) > key(best):
            best = i
    return best
