"""A turn's policy: the retry and stop rules of one turn, a pure object fed with the model's replies and the results
of the executions (turn_policy.py), and its parts, each owning what it decides: the turn's budget (attempts.py), the
schedule for drawing new versions of a function (drawing.py), what the on_reply rules asked of the turn
(screening.py), the checks its code is run against (checking.py), and the typed actions it answers with
(actions.py). No model, no kernel, no I/O."""

from interp.turn.policy.turn_policy import (
    DRAW_GRACE,
    FRESH_TEMPERATURE,
    RESAMPLE_TEMPERATURE,
    RESAMPLES,
    STUCK_REPEATS,
    Asked,
    End,
    Nudge,
    Resample,
    Run,
    StepEnd,
    TurnPolicy,
    answers_read,
    opened,
    retry_params,
)

__all__ = ["DRAW_GRACE", "FRESH_TEMPERATURE", "RESAMPLES", "RESAMPLE_TEMPERATURE", "STUCK_REPEATS", "Asked", "End",
           "Nudge", "Resample", "Run", "StepEnd", "TurnPolicy", "answers_read", "opened", "retry_params"]
