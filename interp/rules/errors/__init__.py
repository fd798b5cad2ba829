"""The help on a failed execution: rules of the phase "on_error", in the order they are tried.

An error gets the first of them that fires, then what its failing line's parts held (`line_parts`, extra), or for a
shell command what grep's exit status means (`grep_none`, extra). The library rules come first: they ask the kernel
about the library that raised, and the others speak of the standard library's ways. Most read the error's text alone
and apply whatever the language (a shell command can run a Python script, and a traceback says what it says); one
that reads the code as Python is Python's.
"""

from __future__ import annotations

from interp.rules.errors import (
    containers,
    files,
    imports,
    keys,
    library,
    modules,
    numbers,
    parts,
    shell,
    times,
    undefined,
)
from interp.rules.rule import Rule, Scope

_ANY = Scope(languages=())

RULES: list[Rule] = [
    Rule("library_call", "on_error", library.library_call, _ANY),
    Rule("library_attribute", "on_error", library.library_attribute, _ANY),
    Rule("library_frame", "on_error", library.library_frame, _ANY),
    Rule("import_name", "on_error", imports.import_name),
    Rule("unimported_module", "on_error", modules.unimported_module, _ANY),
    Rule("module_alias", "on_error", modules.module_alias, _ANY),
    Rule("file_as_name", "on_error", undefined.file_as_name, _ANY),
    Rule("missing_name", "on_error", undefined.missing_name, _ANY),
    Rule("missing_file", "on_error", files.missing_file, _ANY),
    Rule("not_utf8", "on_error", files.not_utf8, _ANY),
    Rule("unreadable_number", "on_error", numbers.unreadable_number, _ANY),
    Rule("one_pass", "on_error", containers.one_pass, _ANY),
    Rule("missing_key", "on_error", containers.missing_key, _ANY),
    Rule("dict_keys", "on_error", keys.dict_keys),
    Rule("load_of_name", "on_error", files.load_of_name, _ANY),
    Rule("string_expected", "on_error", containers.string_expected, _ANY),
    Rule("strptime_regex", "on_error", times.strptime_regex, _ANY),
    Rule("misplaced_attribute", "on_error", modules.misplaced_attribute, _ANY),
    Rule("writer_columns", "on_error", files.writer_columns),
    Rule("closed_file", "on_error", files.closed_file, _ANY),
    Rule("line_parts", "on_error", parts.line_parts, extra=True),
    Rule("grep_none", "on_error", shell.grep_none, Scope(languages=("shell",)), extra=True),
]

__all__ = ["RULES"]
