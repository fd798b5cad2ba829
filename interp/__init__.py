"""interp: a terminal code interpreter that runs entirely on a local llama.cpp model."""

import interp._llama_first  # noqa: F401  (first: llama.cpp's libraries before libstdc++'s; see the module)

__version__ = "0.1.0"
