"""Text replies that are no answer: a copy of interp's own words (a note, a file's preview), and a copy of a few-shot
example's answer."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from interp.common.extract import prose
from interp.models.base import Message
from interp.rules.replies.reply_facts import ReplyFacts, reply_rule
from interp.rules.rule import Act, Finding

COPIED = 0.8  # how alike a reply's text and a note are when the reply copied it (difflib's ratio)
EXAMPLE_RUN = 4  # words in a row of a few-shot answer that a reply copied (copies_example)
_WORD = re.compile(r"[a-z0-9_]+(?:[.-][a-z0-9_]+)*|#")
_FILE_NAME = re.compile(r"[\w-]+\.[a-z]\w{0,4}")


def copies_note(reply: str, notes: list[str]) -> bool:
    """Whether a reply's text is one of interp's notes, mostly word for word (its `Note:` dropped)."""
    said = " ".join(reply.split()).lower()
    return bool(said) and any(
        SequenceMatcher(None, said, " ".join(note.removeprefix("Note:").split()).lower()).ratio() >= COPIED
        for note in notes)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def copies_example(reply: str, examples: list[tuple[str, str]], shown: list[str]) -> str | None:
    """What a reply's text copied from a few-shot example the model reads before the conversation: EXAMPLE_RUN words
    in a row of its answer, among them a word of what the example showed before it (its request, code and output)
    that nothing in `shown` holds (the conversation, the turn's outputs and notes), or a file name it showed so.
    `examples`: each answer, with what its example showed. A small model may answer with its example's answer, or a
    piece of it spliced onto the request ("notes.md has 11 prime numbers below 50."): words that are no fact about
    this conversation. An answer to a request like the example's, in its words, is an answer."""
    said = f" {' '.join(_words(reply))} "
    seen = set(_words(" ".join(shown)))
    for answer, showed in examples:
        own = set(_words(showed)) - seen
        words = _words(answer)
        for i in range(len(words) - EXAMPLE_RUN + 1):
            stretch = words[i:i + EXAMPLE_RUN]
            if own & set(stretch) and f" {' '.join(stretch)} " in said:
                return " ".join(stretch)
        named = [word for word in own if _FILE_NAME.fullmatch(word) and f" {word} " in said]
        if named:
            return named[0]
    return None


def answers_read(prefix: list[Message]) -> list[tuple[str, str]]:
    """The answers of the few-shot examples in a prompt's prefix (its assistant messages with no code), each with what
    its example showed before it (copies_example)."""
    found: list[tuple[str, str]] = []
    showed: list[str] = []
    for message in prefix[1:]:
        if message["role"] == "assistant" and "```" not in message["content"]:
            found.append((message["content"], "\n".join(showed)))
            showed = []
        else:
            showed.append(message["content"])
    return found


def copied_words(facts: ReplyFacts) -> Finding | None:
    """A reply that holds interp's preview of a file the request names is no answer (the preview's "text, 9 lines, 58
    bytes" copied as if it were a count), nor are the request's blocks sent back as they were (run, a script's block
    only defines its buggy function again); a pasted preview whose block the model changed is its code (a script's
    block with its error fixed fixes the file). Nor is text that is one of interp's notes of the turn, mostly word for
    word (copies_note). Drawn again hotter, a model mostly answers in its own words."""
    if not facts.redraws:
        return None
    given = all(b.code.strip() in facts.given for b in facts.blocks)
    if given and any(what in facts.reply for what in facts.described):
        return Finding({"of": "preview"})
    return Finding({"of": "note"}) if not facts.blocks and copies_note(facts.reply, list(facts.notes)) else None


def copied_example(facts: ReplyFacts) -> Finding | None:
    """Text that copies the answer of a few-shot example the model reads before the conversation, in words that are no
    fact of this conversation (copies_example): an answer to the example's request, not to this one."""
    if not facts.redraws or facts.blocks:
        return None
    words = copies_example(prose(facts.reply), list(facts.examples_read), [facts.shown, *facts.outputs, *facts.notes])
    return Finding({"words": words}) if words else None


COPIED_WORDS = reply_rule("copied", copied_words, Act("redraw"))
EXAMPLE = reply_rule("example", copied_example, Act("redraw"))
