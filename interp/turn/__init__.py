"""One request, run to its end: `turn` reads it (`request`), asks the model (`reply`), acts as the policy says
(`policy/`), runs the reply's blocks (`blocks`), chooses among versions of a function (`choose`), and tells the model
what happened (`feedback`, `notes`). `session_api` is what a turn uses of its session."""
