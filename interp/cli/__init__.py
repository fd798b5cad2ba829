"""The command line: flags and settings to a Config (main.py), the commands that only report (report.py), the
sandbox, kernel and model started (start.py, startup.py), and the session run in its mode (modes.py)."""

from interp.cli.main import main

__all__ = ["main"]
