"""Error-specific feedback: what the model needs to know to repair a NameError (a name never defined, a module never
imported or its short name (`pd`), or data the request named in a file), a FileNotFoundError, a number that float()
or int() cannot read, len() or [ ] of an iterator, a key added to before a dict holds it, a file's name given to
json.load(), a standard module's name looked up on its class (or the other way round), a csv.DictWriter made
without its columns, a file read after its `with` block closed it, or a named data file's lines written out as code.

A small model that misnames a file or a variable tends to repeat the same name; being shown the names that do exist
is what lets it repair. The facts come in through callables (the kernel's names, a folder's files), so the rules are
tested without a kernel.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import itertools
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from string import Template
from types import ModuleType

from interp.guard import opened
from interp.textclean import arrow_lines

MAX_NAMES = 30  # names or files listed in a hint; the rest are counted
_MISSING_NAME = re.compile(r"^NameError: name '([^']+)' is not defined", re.M)
_MISSING_FILE = re.compile(r"^(?:FileNotFoundError|IsADirectoryError): \[Errno \d+\] [^:]+: '([^']+)'", re.M)
_NOT_A_NUMBER = re.compile(r"^ValueError: (?:could not convert string to (float)|invalid literal for (int)\(\) with "
                            r"base 10): '(.*)'$", re.M)
_FILE_FRAME = re.compile(r"^File (.+?\.py):\d+", re.M)  # IPython names a frame in a file `File /path/x.py:2`
_NUMBER_CHARS = set("0123456789.+-eE \t")
_NOISE = set("$€£¥%,'\"_\u00a0")  # what numbers are written with and cleaning drops: currency, separators, quotes
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # 1,200.00
_DECIMAL_COMMA = re.compile(r"\d+,\d+")  # 2,49 (and not 1,200, taken above)
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}:\d{2}")  # a piece of a timestamp: 2024-05-01, 10:02
_WHOLE_DATES = ((re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"), "%Y-%m-%d %H:%M:%S", "date and time"),
                (re.compile(r"\d{4}-\d{2}-\d{2}"), "%Y-%m-%d", "date"),
                (re.compile(r"\d{2}:\d{2}:\d{2}"), "%H:%M:%S", "time of day"),
                (re.compile(r"\d{2}:\d{2}"), "%H:%M", "time of day"))
_NO_ATTRIBUTE = re.compile(r"^AttributeError: (type object|module) '([\w.]+)' has no attribute '(\w+)'", re.M)
_NOT_IMPORTED = {"antigravity", "this", "__hello__", "__phello__"}  # standard modules that act when imported
_DATETIME_CLASS = re.compile(r"\bdatetime\.(?:strptime|now|today|fromisoformat|fromtimestamp|combine|utcnow)\b")
_UNIT_WORD = re.compile(r"ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|[kmgt]i?b|b|bytes?"
                        r"|mm|cm|km|mi|miles?|ft|g|kg|lbs?|oz|l|ml", re.I)  # units of time, size, length, mass
_UNIT = re.compile(r"(?=.*[a-df-zA-DF-Z])[\d.\sa-zA-Z]+")  # numbers with units: 1h 20m, 7 kg, 2.5GB
_ONE_PASS = re.compile(r"^TypeError: (?:object of type '([\w.]+)' has no len\(\)|"
                       r"'([\w.]+)' object is not subscriptable)$", re.M)
_TIME_DATA = re.compile(r"^ValueError: time data (['\"])(.*)\1 does not match format (['\"])(.*)\3$", re.M)
_UNCONVERTED = re.compile(r"^ValueError: unconverted data remains: (.*)$", re.M)
_STRPTIME = re.compile(r"strptime\(\s*([^,()]+(?:\([^()]*\))?[^,()]*),\s*(['\"])(.+?)\2")
_FIXED_WIDTH = re.compile(r"^(?:%[YmdHMS]|[^%])*$")  # directives that always print as many characters
_GREP = re.compile(r"(?:^|[|;&(]\s*|\s)grep\b")
_STRING_EXPECTED = re.compile(r"^TypeError: expected string or bytes-like object, got '(\w+)'$", re.M)
_KEY_ERROR = re.compile(r"^KeyError: (.+)$", re.M)
_LOAD_OF_NAME = re.compile(r"\b(json)\.load\(\s*((['\"]).*?\3|\w+)\s*\)")  # json.load('x.json'), json.load(path)
_ITERATORS = {"DictReader", "reader", "generator", "map", "filter", "zip", "enumerate", "reversed",
              "dict_keys", "dict_values", "dict_items", "_io.TextIOWrapper", "TextIOWrapper"}
_NO_FIELDNAMES = "DictWriter.__init__() missing 1 required positional argument: 'fieldnames'"
_CLOSED_FILE = "ValueError: I/O operation on closed file."
_ONE_READ = {"list", "next", "sorted", "tuple", "set", "enumerate", "sum", "len"}  # calls that read what they are given
DATA_LINE = 8  # characters a line of a file holds at least to count as the file's data written into code
DATA_LINES = 2000  # lines of a named file compared with a block that does not parse
_LINES = "with open('{file}') as f:\n    {name} = f.read().splitlines()"
_MISSING_FILE_SHELL = re.compile(r"^(?:[^:\n]+: )+(?:cannot access '?)?([^:'\n]+?)'?: No such file or directory$", re.M)


def listing(names: Iterable[str]) -> str:
    """Names, sorted and comma-separated, at most MAX_NAMES of them."""
    names = sorted(set(names))
    shown = ", ".join(names[:MAX_NAMES])
    more = len(names) - MAX_NAMES
    return f"{shown} and {more} more" if more > 0 else shown


def _nearest(name: str, candidates: list[str], text: Mapping[str, Template]) -> str:
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
    return text["nearest"].substitute(names=" or ".join(close)) if close else ""


def missing_name(error: str, names: Callable[[], list[str]], text: Mapping[str, Template]) -> str | None:
    """For `NameError: name 'x' is not defined`: the names the session does define, and the closest of them."""
    match = _MISSING_NAME.search(error)
    if not match:
        return None
    defined = names()
    if not defined:
        return text["name_none"].substitute(name=match[1])
    return text["name"].substitute(name=match[1], nearest=_nearest(match[1], defined, text), names=listing(defined))


def unimported_module(error: str, cwd: Callable[[], Path], text: Mapping[str, Template]) -> str | None:
    """For `NameError: name 'json' is not defined`, json a standard module: import it. When the error was raised in a
    file (a script the code ran), the hint is code to copy that puts the import at the top of that file: told so in
    words, a model tends to run a corrected copy in the kernel and leave the file broken."""
    match = _MISSING_NAME.search(error)
    if not match or match[1] not in sys.stdlib_module_names:
        return None
    statement = f"import {match[1]}"
    if match[1] == "datetime" and _DATETIME_CLASS.search("\n".join(arrow_lines(error))):
        statement = "from datetime import datetime"  # `datetime.strptime` after `import datetime` fails again
    frames = _FILE_FRAME.findall(error)
    if not frames:
        return text["module"].substitute(name=match[1], statement=statement)
    path = Path(frames[-1])
    try:
        shown = str(path.relative_to(cwd()))
    except ValueError:
        shown = str(path)
    return text["module_file"].substitute(name=match[1], file=shown, statement=statement)


_READERS = {".json": "import json\n{name} = json.load(open('{file}'))",
            ".csv": "import csv\n{name} = list(csv.DictReader(open('{file}')))"}
_DATA_KINDS = {"text": "{name} = open('{file}').read()", "csv": _READERS[".csv"], "json": _READERS[".json"]}


def file_as_name(error: str, cwd: Callable[[], Path], text: Mapping[str, Template]) -> str | None:
    """For `NameError: name 'orders'` where the line says `orders.json` and that file exists: the file is data on
    disk, not a name. Told only to define `orders`, a small model may type the file's preview into the code: data cut
    short, and stale once the file changes."""
    match = _MISSING_NAME.search(error)
    if not match:
        return None
    arrows = "\n".join(arrow_lines(error))
    for ext in dict.fromkeys(re.findall(rf"\b{re.escape(match[1])}(\.\w+)\b", arrows)):
        file = match[1] + ext
        if (cwd() / file).is_file():
            reader = _READERS.get(ext.lower(), _DATA_KINDS["text"])
            return text["file_name"].substitute(file=file, example=reader.format(name=match[1], file=file))
    return None


_ALIASES = {"pd": "pandas", "np": "numpy", "plt": "matplotlib.pyplot", "sns": "seaborn", "tf": "tensorflow",
            "mpl": "matplotlib", "px": "plotly.express", "pl": "polars"}  # the short names code gives modules


def alias(error: str, installed: Callable[[str], bool], files: list[tuple[str, str]],
          text: Mapping[str, Template]) -> str | None:
    """For `NameError: name 'pd'`, the short name code gives a module: import the module under it when it is
    installed, and else do without it, reading the request's data file with the standard library. The data hint
    would take `pd` for data and lead the code away from its task; no hint at all leaves code that keeps
    `pd.read_csv` after dropping an import of pandas that is not installed."""
    match = _MISSING_NAME.search(error)
    if not match or match[1] not in _ALIASES:
        return None
    name, module = match[1], _ALIASES[match[1]]
    statement = f"import {module} as {name}"
    if installed(module.split(".")[0]):
        return text["alias"].substitute(name=name, module=module, statement=statement)
    data = [(file, kind) for file, kind in files if kind in ("csv", "json")]
    if not data:
        return text["alias_missing_alone"].substitute(name=name, module=module)
    file, kind = data[0]
    return text["alias_missing"].substitute(name=name, module=module,
                                            example=_DATA_KINDS[kind].format(name="rows", file=file))


def data_in_file(error: str, code: str, defined: list[str], files: list[tuple[str, str]],
                 text: Mapping[str, Template]) -> str | None:
    """For `NameError: name 'log_file'` when the session defines nothing like it and the request named data files
    (`files`: each file's name as the model was told it, and its kind, attach.py): the data is in the file, and the
    code reads it from disk. Told only to define the name, a model types the file's text, or the preview it was
    shown, into its code: slow to decode for a large file, and wrong wherever the preview was cut."""
    match = _MISSING_NAME.search(error)
    data = [(file, kind) for file, kind in files if kind in _DATA_KINDS]
    if (not match or not data or match[1] in sys.stdlib_module_names or match[1] in _ALIASES
            or difflib.get_close_matches(match[1], defined, n=1, cutoff=0.6)):
        return None
    if match[1] in _bound(code):
        return None  # the code assigns it itself (under an `if` that did not run, for one): not the file's data
    name, (file, kind) = match[1], data[0]
    arrows = "\n".join(arrow_lines(error))
    if re.search(rf"\b{re.escape(name)}\s*\(", arrows):
        return None  # called: a function never defined, not data
    reader = _DATA_KINDS[kind]
    if kind == "text" and re.search(rf"\bin\s+{re.escape(name)}\b", arrows):
        reader += ".splitlines()"  # the line loops over it: lines, not the characters of one string
    return text["file_data"].substitute(name=name, files=", ".join(f for f, _ in data),
                                        example=reader.format(name=name, file=file))


def _bound(code: str) -> set[str]:
    """Every name the code binds anywhere: assigned, looped over, imported, defined."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    names |= {node.name for node in ast.walk(tree)
              if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return names | {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}


_REGEX_CALL = re.compile(r"\bre\.(?:match|search|fullmatch|findall)\(\s*(?:(\w+)|(['\"])(.*?)\2)")
_DIRECTIVES = re.compile(r"%[YmdHMSbBaAyIpfz]")


def strptime_regex(error: str, code: str, text: Mapping[str, Template]) -> str | None:
    """For re.match(...).group() on None where the pattern is a strptime format ('%Y-%m-%d %H:%M:%S'): re reads
    '%Y' as the characters % and Y. Told only that the match was None, a model tends to guard the match with an `if`
    and so hide the mistake, instead of giving the format to strptime."""
    if "AttributeError: 'NoneType' object has no attribute" not in error:
        return None
    for line in arrow_lines(error):
        for call in _REGEX_CALL.finditer(line):
            pattern = call[3]
            if call[1]:
                assigned = re.search(rf"^\s*{re.escape(call[1])}\s*=\s*(['\"])(.*?)\1\s*$", code, re.M)
                pattern = assigned[2] if assigned else None
            if pattern and (directive := _DIRECTIVES.search(pattern)):
                return text["strptime_regex"].substitute(pattern=pattern, directive=directive[0],
                                                          letter=directive[0][1])
    return None


def missing_file(error: str, cwd: Path, text: Mapping[str, Template]) -> str | None:
    """For a file that does not exist: the files that do, in the folder the path points into."""
    match = _MISSING_FILE.search(error) or _MISSING_FILE_SHELL.search(error)
    if not match:
        return None
    path = Path(match[1]).expanduser()
    folder = (path if path.is_absolute() else cwd / path).parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    try:
        entries = [entry.name + ("/" if entry.is_dir() else "") for entry in folder.iterdir()
                   if not entry.name.startswith(".")]
    except OSError:
        return None
    where = text["here"].template if folder == cwd else str(folder)
    if not entries:
        return text["file_empty"].substitute(path=match[1], folder=where)
    return text["file"].substitute(path=match[1], nearest=_nearest(path.name, entries, text), folder=where,
                                   files=listing(entries))


def defined_names(code: str) -> set[str]:
    """The names Python code binds at its top level (assignments, loops, imports, functions, classes): what a later
    NameError hint offers, gathered from code that ran cleanly rather than asked of the kernel."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*")
        else:
            targets = [*getattr(node, "targets", []), getattr(node, "target", None),
                       *(item.optional_vars for item in getattr(node, "items", []))]
            names.update(n.id for t in targets if t is not None for n in ast.walk(t)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return {name for name in names if not name.startswith("_")}


def _converted(error: str, convert: str) -> str:
    """What the failing line passes to float() or int(), as the traceback's arrow line shows it (`row['amount']`),
    so that the example is that line's own code; `value` when the line holds no single such call. Shown
    `float(value.replace(...))`, a model may copy the name `value` too and meet a NameError."""
    for line in reversed(arrow_lines(error)):
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        args = [ast.unparse(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name) and node.func.id == convert and len(node.args) == 1]
        if len(args) == 1:
            return args[0]
    return "value"


def _weighed(units: list[str]) -> str:
    """Code that adds up numbers written with units, each weighed by its unit's factor, left for the model to fill
    in: told only to "convert float(number) by its unit", a model tends to keep a fixed shape such as `hours * 60 +
    minutes`, which fails on a value without hours ('45m')."""
    factors = ", ".join(f"{unit!r}: ..." for unit in units)
    return (f"factor = {{{factors}}}  # what one of each unit in the data is worth in the unit asked for\n"
            "total = sum(float(number) * factor[unit] for number, unit in "
            "re.findall(r'(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]+)', text))")


def unreadable_number(error: str, text: Mapping[str, Template]) -> str | None:
    """For a string that float() or int() cannot read (data written "$1,200.00", "2,49", a header, a blank field):
    what in it is not a number."""
    match = _NOT_A_NUMBER.search(error)
    if not match:
        return None
    convert, value = f"{match[1] or match[2]}()", match[3]
    if not value.strip():
        cut = _sliced(_converted(error, convert[:-2]))
        if cut:
            # '10:02:13'[11:13]: the slice is past the string's end. Told only to skip empty rows, a model guards
            # against them and meets '' again; told where the positions count from, it tries another slice.
            whole = text["number_slice_whole"].substitute(name=cut[2], slice=cut[1]) if cut[2] else ""
            return text["number_slice"].substitute(value=cut[0], slice=cut[1], whole=whole)
        return text["number_empty"].substitute()
    if not any(c.isdigit() for c in value):
        if _UNIT_WORD.fullmatch(value.strip()):
            # 'h' from `for number, unit in re.findall(...)`: a unit, not a header (told a header was read, a model
            # turns to DictReader).
            return text["number_unit_alone"].substitute(convert=convert, value=value,
                                                        example=_weighed([value.strip()]))
        return text["number_none"].substitute(value=value)
    for pattern, form, what in _WHOLE_DATES:
        if pattern.fullmatch(value.strip()):
            # A whole time such as '10:02:13': its format is the value's own (told the full timestamp's format, a
            # model parses '10:02:13' with '%Y-%m-%d %H:%M:%S').
            example = f"datetime.strptime({_converted(error, convert[:-2])}.strip(), '{form}')"
            return text["number_when"].substitute(convert=convert, value=value, what=what, example=example)
    if _DATE.search(value):
        # Split at ':' or '-', a timestamp gives pieces such as '2024-05-01 12', and float() fails the same way.
        return text["number_date"].substitute(convert=convert, value=value)
    if _UNIT.fullmatch(value):
        # Every unit in the value is named: told to strip the letters of '1h', a model strips 'h' and meets '1 20m'
        # next.
        found = list(dict.fromkeys(re.findall(r"[a-zA-Z]+", value)))
        return text["number_unit"].substitute(convert=convert, value=value, units=" and ".join(map(repr, found)),
                                              example=_weighed(found))
    odd = list(dict.fromkeys(c for c in value if c not in _NUMBER_CHARS))
    if odd and not set(odd) <= _NOISE:
        # '1/5/5/1' or '3x4' holds several numbers: told to drop the '/', a model does, and compares '1551'.
        return text["number_parts"].substitute(convert=convert, value=value,
                                               chars=" and ".join(f"'{c}'" for c in odd))
    if odd:
        digits = re.sub(r"[^0-9,.]", "", value)
        comma = ("comma_thousands" if _THOUSANDS.fullmatch(digits) else
                 "comma_decimal" if _DECIMAL_COMMA.fullmatch(digits) else None)
        # Code to copy that removes every odd character at once: shown only the one left, a model may swap its
        # .replace(',', '') for .replace('$', '') and meet the comma again.
        cleaned = "".join(f".replace({c!r}, {'.' if c == ',' and comma == 'comma_decimal' else ''!r})" for c in odd)
        return text["number_chars"].substitute(
            convert=convert, value=value, chars=" and ".join(f"'{c}'" for c in odd),
            comma=text[comma].template if comma else "",
            example=f"{convert[:-2]}({_converted(error, convert[:-2])}{cleaned}.strip())")
    return text["number_whole"].substitute(value=value) if match[2] else None


def _sliced(code: str) -> tuple[str, str, str] | None:
    """The string an expression slices, the slice, when it is a slice with a start (`group(0)[11:13]`), and the one
    variable that string was taken from (`line` in `re.search(p, line).group(0)`), or ''."""
    try:
        node = ast.parse(code, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.lower is not None):
        return None
    names = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)} - set(sys.stdlib_module_names)
    called = any(isinstance(n, ast.Call) for n in ast.walk(node.value))  # a piece the code took out of that variable
    source = names.pop() if len(names) == 1 and called else ""
    return ast.unparse(node.value), f"[{ast.unparse(node.slice)}]", source


def one_pass(error: str, text: Mapping[str, Template]) -> str | None:
    """For len() or [ ] of something read one item at a time (a csv reader, a generator, a file, dict.keys()):
    make a list of it once. Told only the error, a small model tends to send `total / len(reader)` back unchanged."""
    match = _ONE_PASS.search(error)
    if not match or (kind := match[1] or match[2]) not in _ITERATORS:
        return None
    arrows = arrow_lines(error)
    found = re.search(r"len\((\w+)\)" if match[1] else r"(\w+)\[", arrows[-1]) if arrows else None
    name = found[1] if found else "it"
    if kind in ("DictReader", "reader"):
        return text["one_pass_rows"].substitute(kind=kind, name=name)
    return text["one_pass"].substitute(kind=kind, name=name)


def missing_key(error: str, text: Mapping[str, Template]) -> str | None:
    """For `d[key] += value` (or `d[key].append(...)`) where d does not hold the key yet: start each key first. Told
    the error, and even what the line's parts held (an empty dict), a small model tends to send `total[name] += ...`
    back unchanged: it needs the fix named."""
    key = _KEY_ERROR.search(error)
    arrows = arrow_lines(error)
    if not key or not arrows:
        return None
    try:
        tree = ast.parse(arrows[-1].strip())
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        target: ast.expr
        if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
            target, hint = node.target, "missing_key_add"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("append", "extend")):
            target, hint = node.func.value, "missing_key_append"
        else:
            continue
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return text[hint].substitute(name=target.value.id, key=ast.unparse(target.slice), value=key[1])
    return None


def load_of_name(error: str, text: Mapping[str, Template]) -> str | None:
    """For `json.load('grades.json')`: load() reads an open file, not its name. A common mistake of small models,
    which, told only the error, go on to json.loads('grades.json'), the same mistake in another form."""
    if "AttributeError: 'str' object has no attribute 'read'" not in error:
        return None
    for line in arrow_lines(error):
        if found := _LOAD_OF_NAME.search(line):
            key = "load_of_name" if found[3] else "load_of_name_held"  # a quoted name, or a variable's
            target = re.match(r"\s*(\w+)\s*=[^=]", line)
            return text[key].substitute(module=found[1], argument=found[2], name=target[1] if target else "data")
    return None


def string_expected(error: str, text: Mapping[str, Template]) -> str | None:
    """For `re.findall(pattern, lines)` with a list of lines: take them one at a time, or join them. Told only the
    error, a model may replace one list with another (readlines() with read().splitlines()) and meet it again."""
    match = _STRING_EXPECTED.search(error)
    if not match or match[1] not in ("list", "tuple", "generator", "map", "filter"):
        return None
    calls = [found for line in arrow_lines(error) for found in re.findall(r"\bre\.\w+\([^,()]+,\s*(\w+)", line)]
    return text["string_expected"].substitute(kind=match[1], name=calls[0] if calls else "it")


def time_format(error: str, text: Mapping[str, Template]) -> str | None:
    """For strptime and a string that is not all the format: the part of the format the string does hold (told only
    "time data '2024-05-01' does not match format '%Y-%m-%d %H:%M:%S'", a model may keep passing `line.split()[0]`,
    the date alone), or, when the string goes on after the format, its start to give it instead."""
    match = _TIME_DATA.search(error)
    if match:
        value, form = match[2].strip(), match[4]
        words = form.split()
        for count in range(len(words) - 1, 0, -1):
            for part in (" ".join(words[:count]), " ".join(words[-count:])):
                try:
                    datetime.strptime(value, part)
                except ValueError:
                    continue
                return text["time_part"].substitute(value=value, part=part, form=form)
        return None
    match = _UNCONVERTED.search(error)
    calls = [found for line in arrow_lines(error) for found in _STRPTIME.findall(line)]
    if not match or not calls:
        return None
    argument, _, form = calls[-1]
    width = len(datetime(2000, 1, 1).strftime(form)) if _FIXED_WIDTH.match(form) else 0
    start = f"{argument.strip()}[:{width}]" if width else f"the first characters of {argument.strip()}"
    return text["time_rest"].substitute(rest=match[1].strip(), form=form, start=start)


def misplaced_attribute(error: str, code: str, text: Mapping[str, Template]) -> str | None:
    """For a name looked up on a standard module's class that is in the module (`datetime.timedelta` after `from
    datetime import datetime`), or on the module when it is in one of its classes (`datetime.strptime` after `import
    datetime`). Told only the error, a small model tends to send `datetime.timedelta(days=day)` back unchanged."""
    match = _NO_ATTRIBUTE.search(error)
    if not match:
        return None
    kind, owner, name = match.groups()
    if kind == "type object":
        module_name, _, short = owner.rpartition(".")
        module = _module(module_name)
        if module is None or not hasattr(module, name) or name.startswith("_"):
            return None
        imported = f"as `from {module_name} import {short}` names it" if re.search(
            rf"^\s*from\s+{re.escape(module_name)}\s+import\b.*\b{short}\b", code, re.M) else "as the code uses it"
        return text["class_not_module"].substitute(short=short, owner=owner, imported=imported, module=module_name,
                                                   name=name)
    module = _module(owner)
    if module is None:
        return None
    classes = [cls for cls, value in vars(module).items()  # whose own method it is (a classmethod): called on the class
               if isinstance(value, type) and not cls.startswith("_")
               and getattr(getattr(value, name, None), "__self__", None) is value]
    if not classes:
        return None
    same = owner.rpartition(".")[2]  # a class named like its module (datetime.datetime) is the one meant
    cls = same if same in classes else classes[0]
    mixed = f", or `{owner}.{cls}.{name}(...)` with `import {owner}` as it is" if cls == same else ""
    return text["module_not_class"].substitute(name=name, module=owner, owner=f"{owner}.{cls}", cls=cls, mixed=mixed)


def _module(name: str) -> ModuleType | None:
    """A standard module, imported here to look at its names (those that do something when imported are not)."""
    if name.split(".")[0] not in sys.stdlib_module_names or name in _NOT_IMPORTED:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def grep_none(code: str, output: str, error: str, text: Mapping[str, Template]) -> str | None:
    """For a shell command with grep that printed nothing and ended with exit status 1: grep's way of saying that no
    line matched, not a failure to fix (told only the status, a model sends `ls src/ | grep TODO` back unchanged)."""
    if error.strip() != "The command failed with exit status 1." or output.strip() or not _GREP.search(code):
        return None
    return text["grep_none"].substitute()


def writer_columns(error: str, code: str, text: Mapping[str, Template]) -> str | None:
    """For csv.DictWriter(f) without fieldnames: the columns it writes, named in their order (the keys of the dict the
    code gives writerow(), or a DictReader's own). Told only the error, a small model tends to send
    `csv.DictWriter(f)` back unchanged."""
    if _NO_FIELDNAMES not in error:
        return None
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
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
        return text["writer_columns_named"].substitute(name=name, file=file)
    return text["writer_columns"].substitute(name=name, file=file, fieldnames=fieldnames)


def closed_file(error: str, code: str, files: list[tuple[str, str]], text: Mapping[str, Template]) -> str | None:
    """For reading from a file that is closed: a reader made inside a `with` block of an earlier code, or used after
    its block ended. Told only the error, a small model may wrap `sales = list(sales)` in a new `with open(...)` block
    that the old reader does not read from, or pass the closed `reader` on to the next code."""
    arrows = arrow_lines(error)
    if _CLOSED_FILE not in error or not arrows:
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
    readable = [name for name, mode in opened(code) if not set(mode) & set("wax+")]  # not the files the code writes
    file = repr(readable[0]) if readable else next((repr(name) for name, _ in files), "path")
    rows = "csv.py" in error or "DictReader" in code or file.endswith(".csv'")
    return text["closed_file_rows" if rows else "closed_file"].substitute(name=names[0], file=file)


def data_as_code(error: str, code: str, files: list[tuple[str, str]], cwd: Callable[[], Path],
                 text: Mapping[str, Template]) -> str | None:
    """For a block that does not parse because it is the lines of a file the request names, written out (relabelled or
    as they are) instead of code that reads them, a small model's way of handling data it was shown; told only the
    SyntaxError, it sends the lines back, or some of them, and never writes code that reads the file. A script's lines
    (fix greet.py) are code with the error to fix."""
    if not re.search(r"^SyntaxError: ", error, re.M) or not files:
        return None
    lines = [line.strip() for line in code.splitlines() if len(line.strip()) >= DATA_LINE]
    for name, kind in files:
        if kind not in _DATA_KINDS:
            continue  # a .py file's lines in a block that does not parse are its code, with the error to fix
        try:
            with open(cwd() / name, encoding="utf-8", errors="replace") as f:
                held = {line.strip() for line in itertools.islice(f, DATA_LINES) if len(line.strip()) >= DATA_LINE}
        except OSError:
            continue
        copied = [line for line in lines if any(row in line for row in held)]
        if lines and held and 2 * len(copied) >= len(lines):
            example = _LINES if kind == "text" else _DATA_KINDS[kind]
            return text["data_as_code"].substitute(file=name,
                                                   example=example.format(file=name, name=_variable(name, kind)))
    return None


def _variable(file: str, kind: str) -> str:
    """A name for what a file holds: server.log's lines are server_lines, settings.json's data settings."""
    stem = re.sub(r"\W+", "_", Path(file).stem).strip("_").lower()
    if not stem or stem[0].isdigit():
        return "lines" if kind == "text" else "data"
    return f"{stem}_lines" if kind == "text" else stem
