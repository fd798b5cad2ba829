"""Command line: flags -> settings; picks the interactive, one-shot or piped mode (cli_modes.py) after the checks and
the starts that can fail (cli_start.py), or a command that only reports (cli_report.py); maps the outcome to an exit
code."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from typing import Any

from interp import __version__
from interp.cli.modes import run
from interp.cli.report import report
from interp.cli.start import start
from interp.cli.terminal import EXIT_INTERRUPTED, EXIT_USAGE
from interp.common.screentext import complain
from interp.config import FIELDS, Config, ConfigError, add_flags, config_path
from interp.config import resolve as resolve_config
from interp.models import ModelError
from interp.runtime.kernel_api import KernelError
from interp.stores.conversations import find, sessions_dir
from interp.stores.journal import Journal, JournalError, JournalInUse, default_path


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="interp",
        description="A code interpreter on a local model: ask in plain words, it writes code and runs it.",
        epilog=f"Settings also come from {config_path()} (with [profiles.NAME] tables) and INTERP_* variables.",
    )
    p.add_argument("request", nargs="?", help="run this one request to completion, then exit")
    p.add_argument("-c", dest="command", metavar="REQUEST", help="same as the positional request")
    groups = add_flags(p)
    groups["kernel"].add_argument("--existing", metavar="CONNECTION_FILE",
                                  help="use a kernel started elsewhere (its connection file); it is not shut down on "
                                  "exit")
    journal = groups["journal"]
    journal.add_argument("--resume", nargs="?", const="", metavar="ID",
                         help="continue a past conversation (default: the latest) in a fresh kernel")
    journal.add_argument("--conversations", action="store_true", help="list past conversations, then exit")
    journal.add_argument("--export", nargs="+", metavar="ARG",
                         help="[ID|JOURNAL.jsonl] FILE.ipynb|FILE.py: write a session (default: the latest) as a "
                         "notebook, or its code that succeeded as a script, then exit")
    journal.add_argument("--transcript", type=Path,
                         help="the JSONL journal to append to (default: a new file per session)")
    groups["session"].add_argument("--profile", help="apply this [profiles.NAME] table of the config file")
    about = groups["about"]
    about.add_argument("--config", action="store_true", help="print the effective settings and where each came from")
    about.add_argument("--info", action="store_true", help="describe the backend and the model")
    about.add_argument("--models", action="store_true",
                       help="list every model interp can load: the catalog and GGUF files found on this machine")
    about.add_argument("--verify-models", action="store_true",
                       help="re-hash the assembled catalog models against their pinned SHA-256")
    about.add_argument("--version", action="version", version=f"interp {__version__}")
    return p


def _exit_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def config_from(p: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[Config, dict[str, str]]:
    """The effective Config (defaults < file < environment < flags) and its sources; exits 2 on bad settings."""
    flags = {key: getattr(args, key) for key in FIELDS if hasattr(args, key)}
    try:
        return resolve_config(flags, args.profile)
    except ConfigError as exc:
        p.exit(EXIT_USAGE, f"interp: {exc}\n")


def _parse(argv: list[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace, str | None]:
    """The flags, and the program's file for `interp run FILE` when FILE exists (with the program's flags);
    otherwise "run ..." is a request like any other."""
    argv = sys.argv[1:] if argv is None else list(argv)
    program_file = argv[1] if len(argv) > 1 and argv[0] == "run" and Path(argv[1]).is_file() else None
    p = parser()
    if program_file:
        from interp.programs.command import add_flags

        add_flags(p)
    args = p.parse_args(argv[2:] if program_file else argv)
    if args.request and args.command:
        p.error("give the request either as an argument or with -c, not both")
    if program_file and (args.request or args.command):
        p.error(f"interp run {program_file} takes no request; its steps are the requests")
    return p, args, program_file


def main(argv: list[str] | None = None) -> int:
    p, args, program_file = _parse(argv)
    conf, sources = config_from(p, args)
    reported = report(args, conf, sources)
    if reported is not None:
        return reported
    prepared = _prepare(args, conf, sources, program_file)
    if isinstance(prepared, int):
        return prepared
    program, resume_path = prepared
    request = args.command or args.request
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _exit_signal)
    journal = _open_journal(resume_path or args.transcript or default_path(sessions_dir()))
    if isinstance(journal, int):
        return journal
    started = start(conf, args.existing, journal, repl=request is None and sys.stdin.isatty())
    if isinstance(started, int):
        return started
    kernels, model = started
    try:
        return run(conf, request, model, kernels, journal, resuming=resume_path is not None, program=program)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except (ModelError, KernelError) as exc:  # from a model or kernel that was still getting ready at the prompt
        complain(str(exc))
        return EXIT_USAGE
    finally:
        kernels.shutdown()
        model.close()


def _prepare(args: argparse.Namespace, conf: Config, sources: dict[str, str],
             program_file: str | None) -> tuple[Any, Path | None] | int:
    """What is checked before anything starts: the rules --without names, the program of `interp run FILE` and the
    conversation --resume names; an exit code when one is wrong."""
    from interp.rules.registry import unknown

    if missing := unknown(conf.without):
        complain(f"no such rule: {', '.join(missing)} (docs/rules.md lists them)")
        return EXIT_USAGE
    program = None
    if program_file:
        from interp.programs.command import prepare

        # Checked before anything loads: a bad program costs nothing. --max-steps, when given, bounds the program.
        program = prepare(program_file, args, conf.max_steps if sources["max_steps"] != "default" else None)
        if isinstance(program, int):
            return program
    resume_path = None
    if args.resume is not None:
        resume_path = find(args.resume or None)
        if resume_path is None:
            complain(f"no conversation '{args.resume}' in {sessions_dir()} (see --conversations)")
            return EXIT_USAGE
    return program, resume_path


def _open_journal(path: Path) -> Journal | int:
    """The session's journal, held by this process; before the model loads, a journal that cannot be written or
    that another interp holds is a usage error, found at once."""
    try:
        return Journal(path)
    except JournalInUse as exc:
        complain(str(exc))
    except JournalError as exc:
        complain(f"{exc} (choose another --transcript)")
    return EXIT_USAGE



if __name__ == "__main__":
    sys.exit(main())
