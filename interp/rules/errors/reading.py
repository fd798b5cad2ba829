"""How code reads a file of each kind: the examples the error rules show, filled with the file and the name that
holds what it reads. Shown code that reads the file, a model reads it; told only that data is missing, it tends to type
the data (or the preview it was shown) into its code."""

from __future__ import annotations

READERS = {".json": "import json\n{name} = json.load(open('{file}'))",
           ".csv": "import csv\n{name} = list(csv.DictReader(open('{file}')))"}
PANDAS_READERS = {".csv": "import pandas as pd\n{name} = pd.read_csv('{file}')"}  # where the kernel has pandas
DATA_KINDS = {"text": "{name} = open('{file}').read()", "csv": READERS[".csv"], "json": READERS[".json"]}

