"""The loop: a request goes to the model, its code runs, and what happened goes back until the code works.

`session` holds what outlives a turn; `turn` runs one request (its blocks in `turn_blocks`, its versions in
`turn_choose`); `conversation` stores the history, the journal and the memory; `policy` decides what follows each reply
(with `attempts`, `drawing`, `checking` and the typed `actions`); `feedback` and `notes` compose what the model is told,
through the rules (interp/rules/); the rest are the loop's own steps (previews, imports added, files kept safe)."""
