"""`interp --models`: one table of every model interp can load, built from file headers (no weights are loaded)."""

from __future__ import annotations

from pathlib import Path

from interp.models.base import ModelError
from interp.models.catalog import CATALOG, DEFAULT, Entry
from interp.models.discover import describe, local_models
from interp.models.info import size_text
from interp.models.store import stamped, target

COLUMNS = ("name", "source", "arch", "params", "quant", "size", "ctx")


def _catalog_row(entry: Entry) -> tuple[list[str], str]:
    """A catalog model's row and a note: where its file is, or the command that installs it."""
    source = "catalog (default)" if entry.name == DEFAULT else "catalog"
    try:
        first = entry.part_files()[0] if entry.parts else entry.shipped_file()
    except ModelError:
        return [entry.name, source, "", "", "", size_text(entry.size) if entry.size else "", ""], \
            f"not installed: {entry.install}"
    facts = describe(first)
    size = entry.size or first.stat().st_size
    if entry.parts:
        path = target(entry)
        note = str(path) if path.exists() and stamped(entry, path) else "installed; assembled on first use"
    else:
        note = str(first)
    return [entry.name, source, facts["arch"], facts["params"], facts["quant"], size_text(size), facts["ctx"]], note


def _file_row(name: str, source: str, path: Path) -> tuple[list[str], str] | None:
    try:
        facts = describe(path)
        size = path.stat().st_size
    except (ModelError, OSError):
        return None  # unreadable or not GGUF: skipped quietly
    return [name, source, facts["arch"], facts["params"], facts["quant"], size_text(size), facts["ctx"]], str(path)


def models_table() -> list[str]:
    assembled = {target(e).resolve() for e in CATALOG.values() if e.parts}
    rows = [_catalog_row(entry) for entry in CATALOG.values()]
    for found in local_models():
        if found.path.resolve() in assembled:
            continue
        row = _file_row(found.name, found.source, found.path)
        if row:
            rows.append(row)
    widths = [max(len(COLUMNS[i]), *(len(r[0][i]) for r in rows)) for i in range(len(COLUMNS))]

    def line(cells: list[str] | tuple[str, ...], note: str) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + "  " + note

    return [line(COLUMNS, "file or how to install"), *(line(cells, note) for cells, note in rows),
            "", "Use any of them with --model NAME (a unique part of a name is enough; Ollama models as ollama:NAME)."]
