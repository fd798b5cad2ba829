"""What a clean run's output does not show, said to the model after it, each note at most once a turn.

Code that only printed text typed into it; output of nothing but zeros and empty values; a number with more decimals
than the request asks for, and then that number rounded up where whole units are asked for; a date printed without
its time where the request asks for a timestamp; one number where the request counts by a group; a date or an amount
with a unit the request gives that the code does not use, a function the session defined that the request names and
the code does not call, or words of the request it does nothing for (prompts/unmet.json); a dict of units of time
that disagrees with the clock, unless the code computed nothing (values.py); a string filter that matched nothing
though values start with or hold its text, a dict whose values a loop replaced, and an iterator kept in a name, all
confirmed by the kernel (near.py, pitfalls.py), and the known traps (pitfalls.py). Each is a fact the model can
weigh; nothing is changed and nothing the user sees runs.

A note of what a filter's condition tested (its subject's values for the first items, read from the kernel) was
tried and taken out: shown the values, a model tends to describe them back instead of fixing the condition. The near
miss says the diagnosis instead of the values.
"""

from __future__ import annotations

from collections.abc import Callable
from string import Template

from interp import near, pitfalls, values
from interp.events import ExecutionDone
from interp.prompts import Prompts


class Notes:
    """The notes of one session; `evaluate` is the kernel's user_expressions (Session._evaluate)."""

    def __init__(self, prompts: Prompts, evaluate: Callable[[dict[str, str]], dict[str, str]]) -> None:
        self.prompts = prompts
        self._evaluate = evaluate
        self._typed = self._sent = ""
        self._said: set[str] = set()  # the notes said in this turn
        self._unrounded: values.Unrounded | None = None  # the number this turn was told was not rounded as asked
        self._functions: set[str] = set()  # the functions the session's clean runs defined
        self._clean: dict[str, list[str]] = {}  # the code of this turn's clean runs, by language

    def start(self, typed: str, sent: str) -> None:
        """A new turn: its request as typed and as sent (with the previews of the files it names)."""
        self._typed, self._sent, self._said = typed, sent, set()
        self._unrounded, self._clean = None, {}

    def after(self, done: ExecutionDone) -> list[str]:
        """The notes for a run: a clean one, or a shell command that failed, whose traps are said too (a grep that
        matched nothing ends with exit status 1)."""
        if done.status != "ok":
            return self._traps(done) if done.status == "error" and done.language == "shell" else []
        notes = []
        python = done.language == "python"
        fence = "bash" if done.language == "shell" else done.language
        typed = python and values.typed(done.code, done.output, self._sent)
        if typed:
            notes.append(self.prompts.typed)
        elif values.nothing_found(done.output) and self._once("nothing"):
            notes.append(self.prompts.nothing.safe_substitute(language=fence))
        if (number := values.unrounded(self._sent, done.output)) and self._once("unrounded"):
            self._unrounded = number
            notes.append(self.prompts.unrounded["places" if number.places else "whole"].safe_substitute(
                asked=number.asked, number=number.number, places=number.places, language=fence))
        elif (self._unrounded and (up := values.rounded_up(self._unrounded, done.output))
              and self._once("rounded_up")):
            notes.append(self.prompts.unrounded["up"].safe_substitute(
                number=up, previous=self._unrounded.number, asked=self._unrounded.asked, language=fence))
        if (date := values.date_alone(self._typed, done.output)) and self._once("date_alone"):
            notes.append(self.prompts.date_alone.safe_substitute(date=date, language=fence))
        if (group := values.one_for_groups(self._typed, done.output)) and self._once("one_for_groups"):
            notes.append(self.prompts.one_for_groups.safe_substitute(group=group, language=fence))
        if python:
            notes += self._of_code(done.code, typed)
            self._functions |= values.functions(done.code)
        ran = self._clean.setdefault(done.language, [])
        ran.append(done.code)
        if not typed:
            # Against all of the turn's clean code: a file written in one step and not by the code that ran after it
            # is done; a note against the last code alone would have the model write the file again.
            notes += [Template(self.prompts.unmet[key]["note"]).safe_substitute(language=fence)
                      for key in values.unmet(self._typed, "\n".join(ran), self.prompts.unmet, done.language)
                      if self._once(key)]
        return notes + self._traps(done)

    def _of_code(self, code: str, typed: bool) -> list[str]:
        """The notes on what clean Python code left out of the request or got wrong, beyond its output."""
        notes = []
        if not typed and (dates := values.unused_dates(self._typed, code)) and self._once("dates"):
            notes.append(self.prompts.unused_dates.safe_substitute(dates=" and ".join(dates)))
        if not typed and (amounts := values.unused_quantities(self._typed, code)) and self._once("quantities"):
            notes.append(self.prompts.unused_quantities.safe_substitute(quantities=" and ".join(amounts)))
        if (unused := values.unused_functions(self._typed, code, self._functions)) and self._once("functions"):
            notes.append(self.prompts.unused_functions.safe_substitute(name=unused[0]))
        if (factors := values.unit_factors(code)) and self._once("unit_factors"):
            notes.append(self.prompts.unit_factors.safe_substitute(
                name=factors.name, big=repr(factors.big), small=repr(factors.small), says=factors.says,
                real=factors.real))
        if (conversion := values.divided_conversion(self._typed, code)) and self._once("divided_conversion"):
            notes.append(self.prompts.divided_conversion.safe_substitute(
                one=conversion.one, factor=conversion.factor, other=conversion.other))
        # Asked only until said: the checks are round trips to the kernel.
        if "near_miss" not in self._said and (note := self._near_miss(code)):
            self._once("near_miss")
            notes.append(note)
        if "overwritten" not in self._said and (note := self._overwritten(code)):
            self._once("overwritten")
            notes.append(note)
        if "one_shot" not in self._said and (note := self._one_shot(code)):
            self._once("one_shot")
            notes.append(note)
        return notes

    def _traps(self, done: ExecutionDone) -> list[str]:
        return [self.prompts.pitfalls[key] for key in pitfalls.found(done.language, done.code) if self._once(key)]

    def _once(self, key: str) -> bool:
        """Whether this note is yet to be said in this turn; it counts as said from now on."""
        new = key not in self._said
        self._said.add(key)
        return new

    def _near_miss(self, code: str) -> str | None:
        """A string filter of the code matched nothing, and values start with or hold its text (near.py)."""
        found = near.filters(code)
        if not found:
            return None
        misses = near.near_misses(self._evaluate({f.expression(): f.expression() for f in found}), found)
        if not misses:
            return None
        miss = misses[0]
        tested = {"==": "equals", "startswith": "starts with", "endswith": "ends with"}[miss.filter.test]
        return self.prompts.near_miss["starts" if miss.starts else "holds"].safe_substitute(
            subject=miss.filter.subject, text=repr(miss.filter.text), count=miss.count, example=repr(miss.example),
            tested=tested)

    def _one_shot(self, code: str) -> str | None:
        """A name the code assigned and did not read holds an iterator, which the next request would find used up
        (pitfalls.one_shot)."""
        names = values.assigned(code)
        expressions = pitfalls.one_shot(code, names, self._typed) if names else {}
        kinds = self._evaluate(expressions) if expressions else {}
        for name in names:
            if kinds.get(name):
                return self.prompts.one_shot.safe_substitute(name=name, type=kinds[name])
        return None

    def _overwritten(self, code: str) -> str | None:
        """A dict the code filled one item at a time holds fewer keys than there were items (pitfalls.overwrites)."""
        for candidate in pitfalls.overwrites(code):
            counts = pitfalls.replaced(self._evaluate(candidate.expressions()))
            if counts:
                return self.prompts.overwritten.safe_substitute(name=candidate.name, key=candidate.key,
                                                                source=candidate.items, keys=counts[0],
                                                                items=counts[1])
        return None
