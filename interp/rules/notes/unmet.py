"""Notes on words of the request that clean code does nothing for: a table of what a request may ask in so many
words, and what code that does it holds; each entry is a rule of its own (`unmet_KEY`, its note in
prompts/rules/unmet_KEY.md), so that each is said once a turn, several may be said after one run, and each can be
left out alone (--without).

An entry is checked against all of the turn's clean code in the run's language (Facts.clean): a file written in one
step, and not by the code that ran after it, is written; a note against the last code alone would have the model
write the file again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from interp.rules.facts import Facts
from interp.rules.notes.output import fence, only_typed
from interp.rules.rule import Finding, Rule, Scope


@dataclass(frozen=True)
class Unmet:
    """Words a request may use (`asks`, a regular expression matched in any case) and what code that does what they
    ask holds (`code`, a regular expression), for code in `languages`; `doc`: the mistake and why the note is
    right."""

    key: str
    asks: str
    code: str
    doc: str
    languages: tuple[str, ...] = ("python",)


UNMET = (
    Unmet("ignore_case", r"\bignor(?:e|ing) (?:the )?case\b|\bcase[- ]insensitive",
          r"\.lower\(|\.casefold\(|\.upper\(|re\.I\b|IGNORECASE",
          """The request says to ignore case, and the code never lowers, casefolds or uppercases the text, nor matches
          with re.I: Python compares strings character for character, so 'A' and 'a' count apart."""),
    Unmet("weekdays", r"\bweekdays?\b|\bbusiness days?\b|\bworking days?\b|\bMonday to Friday\b",
          r"weekday\(|isoweekday\(|%a|%A|busday|strftime|day_name|calendar\.",
          """The request is about weekdays (business days, Monday to Friday), and the code never looks at a date's day
          of the week: the days between two dates count the weekends too. date.weekday() is 0 for Monday to 6 for
          Sunday, which is true of Python's datetime."""),
    Unmet("words", r"\bhow many words\b|\bnumber of words\b|\bword count\b|\bcount (?:the |all )?words\b",
          r"\.split\(|re\.(?:findall|split|finditer)|\\w|\\b|\\s|word_tokenize",
          """The request counts words, and the code never splits text into words: readlines() gives lines and len() of
          a string counts its characters; str.split() gives the words."""),
    Unmet("write_file", r"\b(?:write|save|store|export)\b[^.?!\n]*?\b[\w-]+\.(?:json|csv|tsv|txt|md|html|xml|yaml|yml"
          r"|png|jpg|jpeg|svg|pdf|xlsx)\b",
          r"""open\([^)]*['"][wax]b?\+?['"]|\.write\(|\bdumps?\(|\.to_(?:csv|json|excel|html|parquet)\(|savefig\(|"""
          r"write_(?:text|bytes)\(|\.save\(|imsave\(|shutil\.|\bcopy(?:file)?\(",
          """The request asks for a file to be written (write, save, store or export NAME.EXT), and none of the turn's
          clean code writes one: no open() for writing, no write(), dump(), to_csv() or savefig(). A file the request
          wants is not there until code writes it."""),
    Unmet("subfolders", r"\bsub-?(?:folders?|directories|directory|dirs?)\b|\brecursive(?:ly)?\b",
          r"\bfind\b|\bls\s+(?:-\w*R|--recursive)|\bgrep\s+(?:-\w*[rR]|--recursive)|\bdu\b|\btree\b|\bwalk\(|rglob\(|"
          r"\*\*|recursive",
          """The request takes in the subfolders too (or asks for it recursively), and the code looks only at the top
          level of the folder: ls, os.listdir() and a plain glob do not go into subfolders; find, os.walk() and
          Path.rglob() do. For shell commands and Python.""", ("python", "shell")),
)


def _rule(entry: Unmet) -> Rule:
    """The rule of one entry: its words in the request as typed, none of its code in the turn's clean code."""

    def detect(facts: Facts) -> Finding | None:
        if (facts.failed or only_typed(facts) or not re.search(entry.asks, facts.typed, re.I)
                or re.search(entry.code, "\n".join(facts.clean))):
            return None
        return Finding({"language": fence(facts)})

    detect.__doc__ = " ".join(entry.doc.split())
    return Rule(f"unmet_{entry.key}", "after_run", detect, Scope(languages=entry.languages), once=True)


RULES = [_rule(entry) for entry in UNMET]
