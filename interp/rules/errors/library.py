"""Help on a library call that failed, read from the kernel that ran it: the kernel's version of a library is the one
that matters, and models remember older ones (a keyword that was removed, a method that moved, a column name guessed).

Each finding is asked of the kernel by introspection of what the failing line names, never written down per error:
- a TypeError about a call's arguments: the callable's signature and the first lines of its docstring, and the closest
  parameter name to an unknown keyword;
- an AttributeError on a library object or module: the closest names `dir()` gives, and which imported library module
  has the name at its top level;
- a KeyError raised inside pandas: the columns of the frames the line names, the closest to the key first (a column
  that is the key written otherwise, or with spaces around it and how to strip the names);
- any other ValueError or TypeError raised inside pandas, numpy or a library of models: the dtypes and missing values of
  the frames the line names, and whether the method called takes `numeric_only`.
Only plain names and attribute chains of the failing line (`df`, `pd.read_csv`, `model.coef_`) are evaluated: no
call, no indexing (an attribute that is a property runs its getter, as printing it would). The failing line is the
top-level cell line (parts.failing_line): its names are the session's own.
"""

from __future__ import annotations

import ast
import difflib
import re

from interp.rules.errors.parts import failing_line
from interp.rules.facts import Facts
from interp.rules.rule import Finding

SAME, WITHIN = 3.0, 2.0  # the likeness of a name written otherwise, and of one that holds the other (likeness)
MAX_CHARS = 900  # of one finding: a wide frame's dtypes are cut, not the budget of the whole message
_LAST = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception)): (.*)$", re.MULTILINE)
_CALLABLE = re.compile(r"(?:(\w+)\(\) )?(?:got an unexpected keyword argument '(\w+)'|missing (?:\d+|a) required "
                       r"(?:positional |keyword-only )?arguments?|takes (?:from )?\d+ .*positional arguments? but \d+ "
                       r"(?:was|were) given|got multiple values for argument|too many positional arguments)")
_ATTRIBUTE = re.compile(r"(?:'(\w+)' object|module '([\w.]+)') has no attribute '(\w+)'")
# pandas' KeyError for a selection of several columns: "['a', 'b'] not in index", "None of [Index(['a'], ...)] are in
# the [columns]".
_NOT_IN_INDEX = re.compile(r"^(?:(\[.*\]) not in index|None of \[Index\((\[.*\]), .*\)\] are in the \[\w+\])$")
_LIBRARY_FRAME = re.compile(r"^File .*[/\\](pandas|numpy|sklearn|scipy|statsmodels)[/\\]", re.MULTILINE)

_SIGNATURE = ("(lambda f: (1 / 0) if getattr(f, '__module__', None) in (None, '__main__', 'builtins') else "
              "f.__qualname__ + str(__import__('inspect').signature(f)) + '\\n' + '\\n'.join("
              "(__import__('inspect').getdoc(f) or '').strip().splitlines()[:4]))({target})")
_CLOSEST_PARAM = ("__import__('difflib').get_close_matches({name!r}, list(__import__('inspect').signature({target})"
                  ".parameters), 3, 0.5)")
_CLOSEST_ATTR = ("(lambda o: ((o.__name__ if isinstance(o, type(__import__('sys'))) else type(o).__module__).split('.')"
                 "[0], __import__('difflib').get_close_matches({name!r}, [n for n in dir(o) if not n.startswith('_')], "
                 "5, 0.5)))({target})")
_HAS_IT = ("[m for m in sorted(__import__('sys').modules) if m.split('.')[0] in ('pandas', 'numpy', 'scipy', "
           "'sklearn', 'statsmodels', 'seaborn') and m.count('.') <= 2 and not any(p.startswith('_') for p in "
           "m.split('.')) and hasattr(__import__('sys').modules[m], {name!r})][:3]")
_FRAME = ("(lambda d: '%s: %d rows; columns and dtypes: ' % ({label!r}, len(d)) + ', '.join('%s (%s%s)' % (c, t, "
          "', %d missing' % n if n else '') for (c, t), n in zip(d.dtypes.astype(str).items(), d.isna().sum())) "
          "if hasattr(d, 'dtypes') and hasattr(d, 'columns') else 1 / 0)({target})")
# An error about missing values: scikit-learn's "Input X contains NaN", pandas' "cannot convert float NaN to integer".
_MISSING = re.compile(r"\bNaN\b|\bNA\b|missing values|non-finite", re.IGNORECASE)
# An error that says text met a numeric operation: only then is it advice to leave the text columns out. Said after
# any other error (a date's format, a length, the bins of a cut), a small model took it as the fix and wrote
# `df = df.select_dtypes('number')`, and the session's frame lost its other columns for every later request.
_TEXT_AS_NUMBER = re.compile(
    r"convert (the )?string|to numeric|unsupported operand type\(s\).*'str'|can only concatenate str|"
    r"not supported between instances of .*'str'|agg function failed|must be real number, not str|"
    r"invalid literal for int\(\)|did not contain a loop with signature", re.IGNORECASE)
_COLUMNS = ("(lambda d: list(map(str, d.columns)) if hasattr(d, 'columns') and hasattr(d, 'dtypes') else 1 / 0)"
            "({target})")
_NUMERIC_ONLY = "'numeric_only' in __import__('inspect').signature({target}).parameters"


def _last_error(error: str) -> tuple[str, str] | None:
    found = _LAST.findall(error)
    return (found[-1][0].split(".")[-1], found[-1][1]) if found else None


def _chains(line: str, called: bool = False) -> list[str]:
    """The plain names and attribute chains of a line of code (no calls, no indexing), outermost first; with
    `called`, only those the line calls."""
    try:
        tree = ast.parse(line.strip())
    except (SyntaxError, ValueError):
        return []
    nodes = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call)] if called else list(ast.walk(tree))
    found: dict[str, None] = {}
    for node in nodes:
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and _plain(node):
            found.setdefault(ast.unparse(node), None)
    return list(found)


def _plain(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def literal(text: str) -> object:
    """The value a repr the kernel gave reads as (a str, a list, ...); None when it is no literal."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _keys(evalue: str) -> list[str]:
    """The names a KeyError's value says are missing: one key, or the list of those a selection of several lacks
    (`['home_runs']`, `"['a', 'b'] not in index"`, `"None of [Index(['a'], dtype='object')] are in the [columns]"`)."""
    value = literal(evalue)
    found = _NOT_IN_INDEX.match(value) if isinstance(value, str) else None
    listed = literal(found.group(1) or found.group(2)) if found else value
    if isinstance(listed, list) and listed:
        return [str(item) for item in listed]
    return [str(value if value is not None else evalue)]


def _bare(name: str) -> str:
    """A column's name without case, spaces, underscores or hyphens: `Wind_Speed` and `wind speed` are one name."""
    return re.sub(r"[\s_-]+", "", name).casefold()


def likeness(key: str, column: str) -> float:
    """How close a column's name is to a key: the same name written otherwise, then one name holding the other
    (`home_runs` in `number_of_home_runs`), then their likeness as difflib measures it."""
    key, column = _bare(key), _bare(column)
    if key == column:
        return SAME
    if key and column and (key in column or column in key):
        return WITHIN
    return difflib.SequenceMatcher(None, key, column).ratio()


def library_call(facts: Facts) -> Finding | None:
    """A library call given arguments its callable does not take: the installed signature, and the closest
    parameter to an unknown keyword. Models remember a library's older versions; the kernel runs the one installed."""
    found, line = _CALLABLE.search(facts.error), failing_line(facts.error)
    if found is None or line is None:
        return None
    name, keyword = found[1], found[2]
    targets = [c for c in _chains(line, called=True) if name is None or c.split(".")[-1] == name][:4]
    values = facts.evaluate({c: _SIGNATURE.format(target=c) for c in targets})
    target = next((c for c in targets if c in values), None)
    if target is None:
        return None
    closest = literal(facts.evaluate({"near": _CLOSEST_PARAM.format(name=keyword, target=target)}
                                      ).get("near", "[]")) if keyword else None
    signature = {"call": target, "signature": values[target][:MAX_CHARS]}
    if isinstance(closest, list) and closest:
        return Finding({**signature, "keyword": keyword, "closest": closest[0]}, "near")
    return Finding(signature, "signature")


def library_attribute(facts: Facts) -> Finding | None:
    """An attribute a library object or module does not have: its closest names, and the libraries that have it, as
    `dir()` in the kernel gives them (a method that moved, or a name remembered from another version)."""
    found, line = _ATTRIBUTE.search(facts.error), failing_line(facts.error)
    if found is None or line is None:
        return None
    attribute = found[3]
    targets = [c.rsplit(".", 1)[0] for c in _chains(line) if c.endswith("." + attribute)]
    if not targets:
        return None
    values = facts.evaluate({"closest": _CLOSEST_ATTR.format(name=attribute, target=targets[0]),
                             "has": _HAS_IT.format(name=attribute)})
    owner = literal(values.get("closest", ""))
    if not isinstance(owner, tuple) or owner[0] in ("builtins", "__main__"):
        return None
    found_in = literal(values.get("has", "[]"))
    has = [m for m in found_in if m != owner[0]] if isinstance(found_in, list) else []
    names, modules = ", ".join(f"`{n}`" for n in owner[1]), ", ".join(f"`{m}`" for m in has)
    variant = ("closest_and_elsewhere" if names and modules else "closest" if names else
               "elsewhere" if modules else "alone")
    return Finding({"target": targets[0], "attribute": attribute, "names": names, "modules": modules}, variant)


def library_frame(facts: Facts) -> Finding | None:
    """An error raised inside pandas or numpy: the columns (for a KeyError) or the dtypes of the frames the line
    names, as the kernel holds them, with each column's count of missing values: a column name guessed, text where
    numbers were assumed, or missing values where a call takes none, shows at once. A column that is the key with
    spaces around it comes with how to strip the names (models drop such spaces); an error about missing values
    (NaN) with how to drop them; text columns with how to leave them out, where the error says text met a numeric
    operation; and no advice otherwise."""
    last, line = _last_error(facts.error), failing_line(facts.error)
    if last is None or line is None or not _LIBRARY_FRAME.search(facts.error):
        return None
    ename, evalue = last
    if ename not in ("KeyError", "ValueError", "TypeError"):
        return None
    chains = _chains(line)
    if ename == "KeyError":
        return _columns(facts, chains, evalue, line)
    expressions = {c: _FRAME.format(label=c, target=c) for c in chains}
    expressions |= {"numeric_only:" + c: _NUMERIC_ONLY.format(target=c) for c in chains if "." in c}
    values = facts.evaluate(expressions)
    described = [values[c][:MAX_CHARS] for c in chains if c in values]
    if not described:
        return None
    frames = "\n".join(described)
    if _MISSING.search(evalue):
        return Finding({"frames": frames}, "dtypes_missing")
    if "(object" not in frames or not _TEXT_AS_NUMBER.search(evalue):
        return Finding({"frames": frames}, "dtypes_alone")
    takes = [c for c in chains if values.get("numeric_only:" + c) == "True"]
    if takes:
        return Finding({"frames": frames, "method": takes[0]}, "dtypes_numeric_only")
    return Finding({"frames": frames}, "dtypes")


def _columns(facts: Facts, chains: list[str], evalue: str, line: str) -> Finding | None:
    """For a KeyError: the columns of the first frame the line names, the closest to the key first; where a column is
    the key with spaces around it, that column and how to strip the names; where columns are the keys written
    otherwise (the key, and the line's other keys of the frame, which pandas did not reach), how to rename them to the
    names the code uses, or what to write for each; where one column holds the key's name, that column as a likely
    one."""
    values = facts.evaluate({c: _COLUMNS.format(target=c) for c in chains})
    frames = {c: columns for c in chains if isinstance(columns := literal(values.get(c, "")), list)}
    if not frames:
        return None
    keys = _keys(evalue) or [evalue]
    key = str(keys) if _NOT_IN_INDEX.match(str(literal(evalue))) else str(literal(evalue) or evalue)
    label, columns = next(iter(frames.items()))
    if not columns:  # a frame read or selected down to nothing
        return Finding({"key": key, "frame": label}, "key_none")
    columns = [str(c) for c in columns]
    columns.sort(key=lambda c: -likeness(keys[0], c))
    if columns[0] != columns[0].strip() == keys[0].strip():  # a name with spaces around it, which models drop
        return Finding({"key": key, "frame": label, "column": repr(columns[0]), "name": repr(keys[0].strip())},
                       "key_spaced")
    shown = ", ".join(repr(c) for c in columns[:40]) + (f", ... {len(columns) - 40} more" if len(columns) > 40
                                                          else "")
    # pandas raises for the first key it misses: the line's other keys of the frame are read too
    asked = list(dict.fromkeys([*keys, *(k for k in _subscripts(line, label) if k not in columns)]))
    written: dict[str, str] = {}
    for k in asked:  # each column once: the first key that writes it otherwise
        same = [c for c in columns if _bare(c) == _bare(k) and c != k and c not in written.values()]
        if same:
            written[k] = same[0]
    if written:
        return Finding({"missing": " or ".join(map(repr, written)), "frame": label, "swaps": _swaps(written),
                        "renames": ", ".join(f"{c!r}: {k!r}" for k, c in written.items()), "columns": shown},
                       "key_written")
    within = [c for c in columns if likeness(keys[0], c) == WITHIN]
    if len(within) == 1:  # one column holds the name: most likely the one meant, but a guess, so said as one
        return Finding({"key": key, "frame": label, "column": repr(within[0]), "columns": shown,
                        "swaps": _swaps({keys[0]: within[0]})}, "key_within")
    return Finding({"key": key, "frame": label, "columns": shown}, "key")


def _subscripts(line: str, frame: str) -> list[str]:
    """The names a line reads from a frame by subscript: `df['a']`, `df[['a', 'b']]`, in order."""
    try:
        tree = ast.parse(line.strip())
    except (SyntaxError, ValueError):
        return []
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value) == frame:
            items = node.slice.elts if isinstance(node.slice, (ast.List, ast.Tuple)) else [node.slice]
            found += [item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)]
    return found


def _swaps(names: dict[str, str]) -> str:
    """What to write for each key: `'wind speed' where the code writes 'wind_speed'`. Told a column's name in words,
    a small model tends to keep its own; told what to write where, it writes it."""
    return " and ".join(f"{column!r} where the code writes {key!r}" for key, column in names.items())

