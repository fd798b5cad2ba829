"""interp: a terminal code interpreter that runs entirely on a local llama.cpp model."""

__version__ = "0.1.0"
