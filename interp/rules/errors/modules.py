"""Rules for modules: a standard module never imported, the short name code gives a module (`pd`), and a name looked
up on a standard module's class that is in the module (or the other way round)."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType

from interp.common.textclean import arrow_lines
from interp.rules.errors.reading import DATA_KINDS, PANDAS_READERS
from interp.rules.errors.undefined import ALIASES, MISSING_NAME
from interp.rules.facts import Facts
from interp.rules.rule import Finding

_FILE_FRAME = re.compile(r"^File (.+?\.py):\d+", re.M)  # IPython names a frame in a file `File /path/x.py:2`
_DATETIME_CLASS = re.compile(r"\bdatetime\.(?:strptime|now|today|fromisoformat|fromtimestamp|combine|utcnow)\b")
_NO_ATTRIBUTE = re.compile(r"^AttributeError: (type object|module) '([\w.]+)' has no attribute '(\w+)'", re.M)
_NOT_IMPORTED = {"antigravity", "this", "__hello__", "__phello__"}  # standard modules that act when imported


def unimported_module(facts: Facts) -> Finding | None:
    """For `NameError: name 'json' is not defined`, json a standard module: import it. When the error was raised in a
    file (a script the code ran), the hint is code to copy that puts the import at the top of that file: told so in
    words, a model tends to run a corrected copy in the kernel and leave the file broken."""
    match = MISSING_NAME.search(facts.error)
    if not match or match[1] not in sys.stdlib_module_names:
        return None
    statement = f"import {match[1]}"
    if match[1] == "datetime" and _DATETIME_CLASS.search("\n".join(arrow_lines(facts.error))):
        statement = "from datetime import datetime"  # `datetime.strptime` after `import datetime` fails again
    frames = _FILE_FRAME.findall(facts.error)
    if not frames:
        return Finding({"name": match[1], "statement": statement}, "cell")
    path = Path(frames[-1])
    try:
        shown = str(path.relative_to(facts.cwd))
    except ValueError:
        shown = str(path)
    return Finding({"name": match[1], "file": shown, "statement": statement}, "file")


def module_alias(facts: Facts) -> Finding | None:
    """For `NameError: name 'pd'`, the short name code gives a module: import the module under it when it is
    installed, and else do without it, reading the request's data file with the standard library (with pandas where
    its preview was in pandas' terms). Read as data, `pd` would lead the code away from its task; no hint at all
    leaves code that keeps `pd.read_csv` after dropping an import of pandas that is not installed."""
    match = MISSING_NAME.search(facts.error)
    if not match or match[1] not in ALIASES:
        return None
    name, module = match[1], ALIASES[match[1]]
    if facts.importable(module.split(".")[0]):
        return Finding({"name": name, "module": module, "statement": f"import {module} as {name}"}, "installed")
    data = [(file, kind) for file, kind in facts.files if kind in ("csv", "json", "frame")]
    if not data:
        return Finding({"name": name, "module": module}, "missing_alone")
    file, kind = data[0]
    if kind == "frame":  # a CSV file shown in pandas' terms (frames.py): pandas reads it
        return Finding({"name": name, "module": module, "example": PANDAS_READERS[".csv"].format(name="df", file=file)},
                       "missing_frame")
    return Finding({"name": name, "module": module, "example": DATA_KINDS[kind].format(name="rows", file=file)},
                   "missing")


def misplaced_attribute(facts: Facts) -> Finding | None:
    """For a name looked up on a standard module's class that is in the module (`datetime.timedelta` after `from
    datetime import datetime`), or on the module when it is in one of its classes (`datetime.strptime` after `import
    datetime`), as the standard module itself says. Told only the error, a small model tends to send
    `datetime.timedelta(days=day)` back unchanged."""
    match = _NO_ATTRIBUTE.search(facts.error)
    if not match:
        return None
    kind, owner, name = match.groups()
    if kind == "type object":
        module_name, _, short = owner.rpartition(".")
        module = _module(module_name)
        if module is None or not hasattr(module, name) or name.startswith("_"):
            return None
        imported = re.search(rf"^\s*from\s+{re.escape(module_name)}\s+import\b.*\b{short}\b", facts.code, re.M)
        return Finding({"short": short, "owner": owner, "module": module_name, "name": name},
                       "on_class_imported" if imported else "on_class")
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
    return Finding({"name": name, "module": owner, "owner": f"{owner}.{cls}", "cls": cls},
                   "on_module_alike" if cls == same else "on_module")


def _module(name: str) -> ModuleType | None:
    """A standard module, imported here to look at its names (those that do something when imported are not)."""
    if name.split(".")[0] not in sys.stdlib_module_names or name in _NOT_IMPORTED:
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
