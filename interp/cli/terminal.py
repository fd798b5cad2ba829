"""What every command shares: its exit codes, and whether the terminal gets plain text."""

from __future__ import annotations

import os
import sys

from interp.config import Config

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def plain(conf: Config) -> bool:
    """Whether the terminal gets plain text: asked for, NO_COLOR, or output that is not a terminal."""
    return conf.plain or bool(os.environ.get("NO_COLOR")) or not sys.stdout.isatty()
