"""Rules for files: a file that does not exist, text that is not UTF-8 read as UTF-8, a file's name given to
json.load(), a csv.DictWriter made without its columns, and a file read after its `with` block closed it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from interp.common.encodings import file_encoding
from interp.common.textclean import arrow_lines
from interp.rules.errors.undefined import listing, nearest
from interp.rules.facts import Facts
from interp.rules.guards.writes import opened
from interp.rules.rule import Finding

_MISSING_FILE = re.compile(r"^(?:FileNotFoundError|IsADirectoryError): \[Errno \d+\] [^:]+: '([^']+)'", re.M)
_MISSING_FILE_SHELL = re.compile(r"^(?:[^:\n]+: )+(?:cannot access '?)?([^:'\n]+?)'?: No such file or directory$", re.M)
_LOAD_OF_NAME = re.compile(r"\b(json)\.load\(\s*((['\"]).*?\3|\w+)\s*\)")  # json.load('x.json'), json.load(path)
_NO_FIELDNAMES = "DictWriter.__init__() missing 1 required positional argument: 'fieldnames'"
_CLOSED_FILE = "ValueError: I/O operation on closed file."
_NOT_UTF8 = re.compile(r"^UnicodeDecodeError: 'utf-?8' codec can't decode", re.M | re.I)
_ONE_READ = {"list", "next", "sorted", "tuple", "set", "enumerate", "sum", "len"}  # calls that read what they are given


def missing_file(facts: Facts) -> Finding | None:
    """For a file that does not exist: the files that do, in the folder the path points into. A model that misnames a
    file tends to repeat the name; shown the files that exist, it picks the one it meant."""
    match = _MISSING_FILE.search(facts.error) or _MISSING_FILE_SHELL.search(facts.error)
    if not match:
        return None
    path = Path(match[1]).expanduser()
    cwd = facts.cwd
    folder = (path if path.is_absolute() else cwd / path).parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    try:
        entries = [entry.name + ("/" if entry.is_dir() else "") for entry in folder.iterdir()
                   if not entry.name.startswith(".")]
    except OSError:
        return None
    where = "here" if folder == cwd else "there"
    if not entries:
        return Finding({"path": match[1], "folder": str(folder)}, f"empty_{where}")
    close = nearest(path.name, entries)
    found = {"path": match[1], "folder": str(folder), "files": listing(entries)}
    return Finding({**found, "nearest": close}, f"near_{where}") if close else Finding(found, f"far_{where}")


def not_utf8(facts: Facts) -> Finding | None:
    """For text read as UTF-8 that is not (`UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9`): the encoding
    that reads it, told from the file's bytes as its preview tells it (common/encodings.py), for the first file the
    code names (a string of its that names a file, or a file the request named) whose text is in another encoding. A
    spreadsheet's Windows export is the usual case. Told only the error, a small model guesses an encoding (Latin-1,
    mostly, which reads any bytes but makes cp1252's dashes and quotes control characters), tries UTF-8 again, or
    drops the encoding at its next try; the preview tells the encoding only for a file the request names."""
    if not _NOT_UTF8.search(facts.error):
        return None
    tree = facts.tree
    named = [] if tree is None else [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                                     and isinstance(node.value, str) and 0 < len(node.value) < 4096
                                     and "\n" not in node.value]
    for name in dict.fromkeys([*named, *(name for name, _ in facts.files)]):
        path = Path(name).expanduser()
        try:  # open_regular refuses what is missing or no regular file
            encoding = file_encoding(path if path.is_absolute() else facts.cwd / path)
        except (OSError, ValueError):
            continue
        if encoding not in (None, "utf-8"):
            return Finding({"file": name, "path": repr(name), "encoding": encoding})
    return None


def load_of_name(facts: Facts) -> Finding | None:
    """For `json.load('grades.json')`: load() reads an open file, not its name. Told only the error, a model tends
    to go on to json.loads('grades.json'), the same mistake in another form."""
    if "AttributeError: 'str' object has no attribute 'read'" not in facts.error:
        return None
    for line in arrow_lines(facts.error):
        if found := _LOAD_OF_NAME.search(line):
            target = re.match(r"\s*(\w+)\s*=[^=]", line)
            return Finding({"module": found[1], "argument": found[2], "name": target[1] if target else "data"},
                           "quoted" if found[3] else "held")  # a quoted name, or a variable's
    return None


def writer_columns(facts: Facts) -> Finding | None:
    """For csv.DictWriter(f) without fieldnames: the columns it writes, named in their order (the keys of the dict the
    code gives writerow(), or a DictReader's own). Told only the error, a small model tends to send
    `csv.DictWriter(f)` back unchanged."""
    tree = facts.tree
    if _NO_FIELDNAMES not in facts.error or tree is None:
        return None
    made = {ast.unparse(node.value.func).rpartition(".")[2]: (target.id, node.value)
            for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            for target in node.targets if isinstance(target, ast.Name)}
    name, call = made.get("DictWriter", ("writer", None))
    file = ast.unparse(call.args[0]) if call and call.args else "f"
    fieldnames = None
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "writerow"
                and node.args and isinstance(row := node.args[0], ast.Dict)):
            keys = [key.value for key in row.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)]
            if keys and len(keys) == len(row.keys):
                fieldnames = repr(keys)
                break
    if fieldnames is None and "DictReader" in made:
        fieldnames = f"{made['DictReader'][0]}.fieldnames"
    if fieldnames is None:
        return Finding({"name": name, "file": file}, "unknown")
    return Finding({"name": name, "file": file, "fieldnames": fieldnames}, "known")


def closed_file(facts: Facts) -> Finding | None:
    """For reading from a file that is closed: a reader made inside a `with` block of an earlier code, or used after
    its block ended. Told only the error, a small model may wrap `sales = list(sales)` in a new `with open(...)` block
    that the old reader does not read from, or pass the closed `reader` on to the next code."""
    arrows = arrow_lines(facts.error)
    if _CLOSED_FILE not in facts.error or not arrows:
        return None
    line = arrows[0].strip()
    try:
        tree = ast.parse(line + " pass" if line.endswith(":") else line)
    except (SyntaxError, ValueError):
        return None
    read = [node.iter for node in ast.walk(tree) if isinstance(node, (ast.For, ast.comprehension))]
    read += [node.args[0] for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
             and isinstance(node.func, ast.Name) and node.func.id in _ONE_READ]
    read += [node.func.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("read")]
    names = [node.id for node in read if isinstance(node, ast.Name)]
    if not names:
        return None
    readable = [name for name, mode in opened(facts.code) if not set(mode) & set("wax+")]  # not those it writes
    file = repr(readable[0]) if readable else next((repr(name) for name, _ in facts.files), "path")
    rows = "csv.py" in facts.error or "DictReader" in facts.code or file.endswith(".csv'")
    return Finding({"name": names[0], "file": file}, "rows" if rows else "lines")
