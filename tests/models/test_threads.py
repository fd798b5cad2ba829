"""The thread chooser, fed token times from a simulated machine: quiet, one core busy, the load changing."""

from __future__ import annotations

from collections import Counter

from interp.models.threads import ThreadChooser, candidate_counts

QUIET = {2: 0.032, 1: 0.045}  # seconds per token of a 1.5B model on 2 cores
BUSY = {2: 0.500, 1: 0.050}  # spinning threads collapse while another process holds a core


def decode(chooser: ThreadChooser, machine: dict[int, float], tokens: int) -> Counter[int]:
    used: Counter[int] = Counter()
    for _ in range(tokens):
        count = chooser.current
        used[count] += 1
        chooser.record(machine[count])
    return used


def test_on_a_quiet_machine_nearly_every_token_uses_all_cores() -> None:
    chooser = ThreadChooser(candidate_counts(2))
    used = decode(chooser, QUIET, 2000)
    assert chooser.current == 2
    assert used[1] / 2000 < 0.08


def test_probing_costs_a_short_reply_little_on_a_quiet_machine() -> None:
    chooser = ThreadChooser(candidate_counts(2))
    used = decode(chooser, QUIET, 300)  # a short reply in a fresh process: probes are most frequent then
    seconds = used[2] * QUIET[2] + used[1] * QUIET[1]
    assert seconds < 1.015 * 300 * QUIET[2], used


def test_a_slow_first_window_does_not_leave_a_quiet_machine_on_fewer_threads() -> None:
    # The first tokens after a prompt decode slower (caches, pages of the KV buffer touched for the first time); a
    # probe of one thread then looks faster than two, and the displaced count must be measured again soon.
    chooser = ThreadChooser(candidate_counts(2))
    seconds = 0.0
    for i in range(300):
        took = QUIET[chooser.current] * (1.5 if i < 8 else 1.0)
        seconds += took
        chooser.record(took)
    assert chooser.current == 2
    assert seconds < 1.06 * (300 * QUIET[2] + 8 * 0.5 * QUIET[2])


def test_with_a_core_busy_it_moves_to_fewer_threads_and_probes_rarely() -> None:
    chooser = ThreadChooser(candidate_counts(2))
    used = decode(chooser, BUSY, 2000)
    assert chooser.current == 1
    seconds = used[2] * BUSY[2] + used[1] * BUSY[1]
    assert seconds < 1.25 * 2000 * BUSY[1], used


def test_it_follows_the_load_as_it_changes() -> None:
    chooser = ThreadChooser(candidate_counts(2))
    decode(chooser, QUIET, 300)
    assert chooser.current == 2
    decode(chooser, BUSY, 100)
    assert chooser.current == 1
    decode(chooser, QUIET, 600)
    assert chooser.current == 2


def test_a_count_given_by_the_user_is_kept() -> None:
    chooser = ThreadChooser([2])
    assert decode(chooser, BUSY, 100) == Counter({2: 100})


def test_candidates() -> None:
    assert candidate_counts(1) == [1]
    assert candidate_counts(2) == [2, 1]
    assert candidate_counts(8) == [8, 7, 4]
