"""Files named in a request: each becomes a short preview for the model (text head and tail, a table's columns and
first rows, a binary file's name, type and size) that tells it where the file is, so that its code reads the file from
disk rather than from the prompt. `@path` attaches a file; an @word that names nothing and is not shaped like a file's
name (`@mean_fare[value]`, an answer format; `@bob`) is left as typed, silently. A plain name of an existing file
(`orders.json`) gets a shorter preview, so that the model writes code for the file's real layout instead of guessing
it, and a folder named by a path (`media/`) the names it holds. What a preview shows is previews.py's."""

from __future__ import annotations

import csv
import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from string import Template

from interp.reading.previews import Attachment, describe
from interp.rules.errors.undefined import written

NAMED_CHARS = 1200  # the same for a file named without @: the user did not ask for it to be read into the prompt
NAMED_FILES = 3  # files and folders named without @ that are previewed, the first ones in the request
ATTACHED_FILES = 10  # files attached with @ in one request; the rest are sent as typed
# `@path`, or `@"a path"` with spaces; the @ must start a word, so e-mail addresses are left alone.
_MENTION = re.compile(r"""(?<!\S)@(?:"(?P<quoted>[^"]+)"|'(?P<single>[^']+)'|(?P<bare>[^\s"']+))""")
_TRAILING = ".,;:!?)]}"
# A word that may name a file: a path with an extension or a slash; quotes, backticks and brackets are not part of it.
_WORD = re.compile(r"""[^\s"'`()\[\]{}<>,;]+""")
_PATHLIKE = re.compile(r"[^/]\.\w{1,10}$|/")
_BREAK = re.compile(r"""[\s"'`()\[\]{}<>,;]""")  # where _WORD stops
# A span in backticks or quotes, on one line: a path written whole, spaces and all (`inputs/Sales 2023.csv`).
_QUOTED = re.compile(r"""`(?P<tick>[^`\n]+)`|"(?P<double>[^"\n]+)"|(?<!\w)'(?P<single>[^'\n]+)'(?!\w)""")
_ANSWER_FORM = re.compile(r"\w+\[")  # `@mean_fare[value]`: how an answer is asked to be written, not a file
_NEW_FILE = re.compile(r"(?:^|/)[\w-]*[\w-]{2}\.[A-Za-z][A-Za-z0-9]{0,5}$")  # expenses_clean.csv; not e.g or 2.5
_SHELL = re.compile(r"\b(?:shell|bash|terminal|pipeline|command)\b", re.I)


def mentions(text: str, cwd: Path) -> list[tuple[re.Match[str], Path | None, str]]:
    """Each @mention with the file it names (None when there is none) and the name as typed."""
    found = []
    for match in _MENTION.finditer(text):
        name = match["quoted"] or match["single"] or match["bare"]
        path = _existing(cwd, name)
        if path is None and match["bare"]:
            stripped = name.rstrip(_TRAILING)  # "@data.csv?" names data.csv
            path, name = _existing(cwd, stripped), stripped if stripped else name
        found.append((match, path, name))
    return found


def _existing(cwd: Path, name: str) -> Path | None:
    if not name:
        return None
    try:
        path = (cwd / Path(name).expanduser()).resolve()
        return path if path.exists() else None
    except (OSError, RuntimeError):  # a name too long for the system, no permission, a loop of links
        return None


def _path_words(text: str) -> Iterator[str]:
    """The words shaped like a path (an extension or a slash), trailing punctuation dropped, @mentions left out, and
    slashes alone too: in a request they are usually division (`n // 3`), and taken as a path they would show the
    model the root folder."""
    for match in _WORD.finditer(text):
        word = match[0].rstrip(_TRAILING)
        if not word.startswith("@") and _PATHLIKE.search(word) and word.strip("/"):
            yield word


LISTED = 2000  # entries of the working directory looked at for names a word does not hold whole


def _names_in(text: str, cwd: Path) -> list[str]:
    """The names of the working directory's entries that a word cannot hold whole (a space, a quote, a bracket, a
    comma: `veracruz 2016.csv`) and that the request writes as they are, longest first. Taken word by word, such a
    name is lost, and its last word (`2016.csv`) passes for a file of its own."""
    if not _BREAK.search(text):
        return []
    try:
        with os.scandir(cwd) as entries:
            names = [entry.name for entry in itertools.islice(entries, LISTED)]
    except OSError:
        return []
    found = [name for name in names if _BREAK.search(name) and _PATHLIKE.search(name)
             and re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text)]
    return sorted(found, key=len, reverse=True)


def _quoted_paths(text: str, cwd: Path) -> list[str]:
    """Paths of existing files or folders that the request writes in backticks or quotes and that a word cannot hold
    whole (`inputs/Sales 2023.csv`, in a folder below the working directory, where _names_in does not look)."""
    found = []
    for match in _QUOTED.finditer(text):
        span = (match["tick"] or match["double"] or match["single"]).strip()
        if _BREAK.search(span) and _PATHLIKE.search(span) and _existing(cwd, span) is not None:
            found.append(span)
    return found


def path_words(text: str, cwd: Path) -> list[str]:
    """The words of a request shaped like a path, and the paths it writes whole though a word cannot hold them (the
    existing ones it quotes, _quoted_paths; the working directory's entries it names, _names_in), those first."""
    whole = list(dict.fromkeys([*_quoted_paths(text, cwd), *_names_in(text, cwd)]))
    for name in whole:
        text = text.replace(name, " ")
    return [*whole, *_path_words(text)]


def file_words(text: str, cwd: Path) -> tuple[list[str], list[str]]:
    """The words of a request that name existing files, and those shaped like a file's name (a stem of two characters
    or more, an extension that starts with a letter) that name nothing yet, each as typed; @ dropped."""
    existing, missing = [], []
    for word in [*path_words(text, cwd), *(name for _, path, name in mentions(text, cwd) if path is not None)]:
        path = _existing(cwd, word)
        if path is not None and path.is_file():
            existing.append(word)
        elif path is None and _NEW_FILE.search(word):
            missing.append(word)
    return list(dict.fromkeys(existing)), list(dict.fromkeys(missing))


def asks_for_shell(text: str) -> bool:
    """Whether the request asks for a shell command ("Use a shell pipeline to ...")."""
    return _SHELL.search(text) is not None


def may_name_files(text: str) -> bool:
    """Whether the request has an @mention or a word shaped like a path: else no file needs looking up."""
    return "@" in text or next(_path_words(text), None) is not None


def named(text: str, cwd: Path, skip: list[Path]) -> dict[Path, str]:
    """Existing files and folders that the request's words name by path, without @ (the first NAMED_FILES), each
    with the name as typed."""
    found: dict[Path, str] = {}
    for word in path_words(text, cwd):
        path = _existing(cwd, word)
        if path is not None and (path.is_file() or path.is_dir()) and path not in skip and path not in found:
            found[path] = word
            if len(found) == NAMED_FILES:
                break
    return found


def expand(text: str, template: Template, cwd: Path, hints: dict[str, str] | None = None,
           named_template: Template | None = None, tables: Callable[[list[Attachment]], list[Attachment]] | None = None
           ) -> tuple[str, list[Attachment], list[str]]:
    """The request as the model should read it (previews first, then the words with each @ dropped), what was
    attached, and a line for each mention that names no file. With `named_template`, existing files the words name
    without @ are previewed too, shorter; `tables` may rewrite the previews before they are shown (frames.py: how the
    kernel's pandas reads a CSV file)."""
    words, attached, problems = _attach_mentions(text, cwd)
    if named_template is not None:
        for path, word in named(words, cwd, [a.path for a in attached]).items():
            try:
                attached.append(describe(path, NAMED_CHARS, named=word))
            except (OSError, ValueError, csv.Error):
                continue  # unreadable: the model meets the error when its code opens it
    if not attached:
        return text, [], problems
    if tables is not None:
        attached = tables(attached)
    blocks = [(named_template if a.named and named_template else template).safe_substitute(
        path=a.named or str(a.path), what=a.what, preview=a.preview, kind="folder" if a.kind == "folder" else "file",
        exact=_exact(a.named or str(a.path)) + _encoded(a.encoding),
        hint=Template((hints or {}).get(a.kind, "")).safe_substitute(
            path=a.named or str(a.path), delimiter=_delimiter(a.delimiter), encoding=_encoding(a.encoding))).rstrip()
        for a in attached]
    return "\n\n".join([*blocks, words]), attached, problems


def _delimiter(delimiter: str) -> str:
    """A CSV file's separator as csv.DictReader takes it (", delimiter='\\t'"), empty for a comma."""
    return f", delimiter={delimiter!r}" if delimiter not in ("", ",") else ""


def _encoding(encoding: str) -> str:
    """A file's encoding as open() takes it (", encoding='cp1252'"), empty for UTF-8."""
    return f", encoding={encoding!r}" if encoding else ""


def _encoded(encoding: str) -> str:
    """For a file whose text is not UTF-8, the encoding its code must read it in: opened as UTF-8 (open()'s and
    pandas' default), it fails at its first other character."""
    return f" Its text is not UTF-8: read it with encoding={encoding!r}." if encoding else ""


def _exact(name: str) -> str:
    """For a name that is not plain (a space, a quote, an accent, several dots), how code writes it exactly."""
    shown = written(name)
    return f" In code, write its name exactly as {shown}." if shown != name else ""


def _attach_mentions(text: str, cwd: Path) -> tuple[str, list[Attachment], list[str]]:
    """The request's words with the @ of each attached file dropped, the files attached (at most ATTACHED_FILES),
    and a line for each mention that could not be."""
    attached: list[Attachment] = []
    problems: list[str] = []
    pieces, pos, over = [], 0, 0
    for match, path, name in mentions(text, cwd):
        if path is None or not path.is_file():
            if path is not None or _meant_as_file(match, name):
                problems.append(f"@{name}: {'not a file' if path else 'no such file'}; sent as typed.")
            continue
        if all(a.path != path for a in attached):
            if len(attached) >= ATTACHED_FILES:
                over += 1
                continue
            try:
                attached.append(describe(path))
            except (OSError, ValueError, csv.Error) as exc:
                problems.append(f"@{name}: cannot read it ({getattr(exc, 'strerror', None) or exc}); sent as typed.")
                continue
        pieces += [text[pos:match.start()], name]
        pos = match.start() + 1 + len(name) if match["bare"] else match.end()
    if over:
        problems.append(f"{over} more @files not attached (at most {ATTACHED_FILES} a request); sent as typed.")
    return "".join([*pieces, text[pos:]]), attached, problems


def _meant_as_file(match: re.Match[str], name: str) -> bool:
    """Whether an @mention that names nothing was meant as a file: quoted, or shaped like one (an extension or a
    slash) and not an answer format such as `@mean_fare[value]`. Other @words (`@bob`) are plain words."""
    if not match["bare"]:
        return True
    return _ANSWER_FORM.match(name) is None and _PATHLIKE.search(name) is not None
