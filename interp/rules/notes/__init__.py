"""What a clean run's output does not show, said to the model after it (phase "after_run"), most notes at most once a
turn: code that only printed text typed into it; a number with more decimals than the request asks for (output.py); a
string filter that matched nothing though values start with or hold its text (near.py), a dict whose values a loop
replaced and an iterator kept in a name (held.py), each confirmed by the kernel; words of the request the code does
nothing for (unmet.py); and the known traps (traps.py), which are said after a shell command that failed too. Each is
a fact the model can weigh; nothing is changed and nothing the user sees runs.

Code that only printed typed text is told so, and the notes that weigh what code did with the request (unmet words)
are not said after it. The order is the order the notes are said in.
"""

from __future__ import annotations

from interp.rules.notes import held, near, output, traps, unmet

RULES = [*output.RULES, *near.RULES, *held.RULES, *unmet.RULES, *traps.RULES]

__all__ = ["RULES"]
