"""How code reads a file of each kind: the examples the error rules show, filled with the file and the name that
holds what it reads. Shown code that reads the file, a model reads it; told only that data is missing, it tends to type
the data (or the preview it was shown) into its code."""

from __future__ import annotations

import re
from pathlib import Path

READERS = {".json": "import json\n{name} = json.load(open('{file}'))",
           ".csv": "import csv\n{name} = list(csv.DictReader(open('{file}')))"}
DATA_KINDS = {"text": "{name} = open('{file}').read()", "csv": READERS[".csv"], "json": READERS[".json"]}
LINES = "with open('{file}') as f:\n    {name} = f.read().splitlines()"


def variable(file: str, kind: str) -> str:
    """A name for what a file holds: server.log's lines are server_lines, settings.json's data settings."""
    stem = re.sub(r"\W+", "_", Path(file).stem).strip("_").lower()
    if not stem or stem[0].isdigit():
        return "lines" if kind == "text" else "data"
    return f"{stem}_lines" if kind == "text" else stem
