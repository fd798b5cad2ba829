"""Command line: flags -> settings; picks the interactive, one-shot or piped mode; maps the outcome to an exit code."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from interp import __version__, stack
from interp.config import FIELDS, Config, ConfigError, add_flags, config_path, describe, redact_argv, redact_url
from interp.config import resolve as resolve_config
from interp.conversations import conversations, find, history_from_journal, sessions_dir
from interp.events import FAILED, Notice, TurnStatus
from interp.journal import Damage, Journal, JournalError, JournalInUse, default_path, describe_damage, read
from interp.kernel import Kernel
from interp.kernel_api import KernelError
from interp.kernel_choice import choose as choose_kernel
from interp.kernels import Kernels
from interp.models import Model, ModelError, load_model, model_path
from interp.models.base import Message, Seeded
from interp.outputs import OutputFolder
from interp.prompts import Prompts, profile
from interp.recall import MemoryStoreError, open_recaller
from interp.sandbox import Sandbox, SandboxError
from interp.session import Session
from interp.startup import PendingModel, Startup, wait_visibly, warm_prefix
from interp.ui.progress import load_progress

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="interp",
        description="A code interpreter on a local model: ask in plain words, it writes code and runs it.",
        epilog=f"Settings also come from {config_path()} (with [profiles.NAME] tables) and INTERP_* variables.",
    )
    p.add_argument("request", nargs="?", help="run this one request to completion, then exit")
    p.add_argument("-c", dest="command", metavar="REQUEST", help="same as the positional request")
    add_flags(p)
    p.add_argument("--existing", metavar="CONNECTION_FILE",
                   help="use a kernel started elsewhere (its connection file); it is not shut down on exit")
    p.add_argument("--transcript", type=Path, help="the JSONL journal to append to (default: a new file per session)")
    p.add_argument("--profile", help="apply this [profiles.NAME] table of the config file")
    p.add_argument("--config", action="store_true", help="print the effective settings and where each came from")
    p.add_argument("--info", action="store_true", help="describe the backend and the model, then exit")
    p.add_argument("--models", action="store_true",
                   help="list every model interp can load: the catalog and GGUF files found on this machine")
    p.add_argument("--verify-models", action="store_true",
                   help="re-hash the assembled catalog models against their pinned SHA-256")
    p.add_argument("--conversations", action="store_true", help="list past conversations, then exit")
    p.add_argument("--export", nargs="+", metavar="ARG",
                   help="[ID|JOURNAL.jsonl] FILE.ipynb|FILE.py: write a session (default: the latest) as a "
                        "notebook, or its code that succeeded as a script, then exit")
    p.add_argument("--resume", nargs="?", const="", metavar="ID",
                   help="continue a past conversation (default: the latest) in a fresh kernel")
    p.add_argument("--version", action="version", version=f"interp {__version__}")
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
    reported = _report(args, conf, sources)
    if reported is not None:
        return reported
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
            print(f"interp: no conversation '{args.resume}' in {sessions_dir()} (see --conversations)",
                  file=sys.stderr)
            return EXIT_USAGE
    request = args.command or args.request
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _exit_signal)
    journal = _open_journal(resume_path or args.transcript or default_path(sessions_dir()))
    if isinstance(journal, int):
        return journal

    sandbox = _start_sandbox(conf, args.existing, journal)
    if isinstance(sandbox, int):
        return sandbox
    started = _start(conf, args.existing, journal, sandbox, repl=request is None and sys.stdin.isatty())
    if isinstance(started, int):
        return started
    kernel, model = started
    kernels = Kernels(kernel, sandbox)
    try:
        return _run(conf, request, model, kernels, journal, resuming=resume_path is not None, program=program)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except (ModelError, KernelError) as exc:  # from a model or kernel that was still getting ready at the prompt
        print(f"interp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    finally:
        kernels.shutdown()
        model.close()


def _open_journal(path: Path) -> Journal | int:
    """The session's journal, held by this process; before the model loads, a journal that cannot be written or
    that another interp holds is a usage error, found at once."""
    try:
        return Journal(path)
    except JournalInUse as exc:
        print(f"interp: {exc}", file=sys.stderr)
    except JournalError as exc:
        print(f"interp: {exc} (choose another --transcript)", file=sys.stderr)
    return EXIT_USAGE


def _report(args: argparse.Namespace, conf: Config, sources: dict[str, str]) -> int | None:
    """The commands that only report (--config, --info, --models, ...): their exit code, or None for a session."""
    if args.config:
        try:
            return _print_lines([*describe(conf, sources), *_sandbox(conf, args.existing).lines(),
                                 *choose_kernel(conf.kernel, conf.python, args.existing).lines()])
        except (SandboxError, KernelError) as exc:
            print(f"interp: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.info:
        return _info(conf, args.existing)
    if args.models:
        from interp.ui.listing import models_table

        return _print_lines(models_table())
    if args.verify_models:
        return _verify_models()
    if args.export:
        from interp.notebook import export_main

        return export_main(args.export)
    if args.conversations:
        found = conversations()
        for line in describe_damage([d for c in found for d in c.damage], most=10):
            print(f"interp: {line}", file=sys.stderr)
        return _print_lines([f"{c.id}  {c.started}  {c.turns:3} turns  {c.model[:30]:30}  {c.first_request[:60]}"
                             for c in found] or ["no conversations yet"])
    return None


def _sandbox(conf: Config, existing: str | None) -> Sandbox:
    return Sandbox.configure(conf.sandbox, os.getcwd(), conf.allow_write, conf.allow_net, existing)


def _start_sandbox(conf: Config, existing: str | None, journal: Journal) -> Sandbox | int:
    """The session's sandbox, decided before any kernel starts; an exit code when it cannot be had (-y or an explicit
    mode on a system that cannot enforce it, an --allow-write path that does not exist)."""
    try:
        sandbox = _sandbox(conf, existing)
    except SandboxError as exc:
        print(f"interp: {exc}", file=sys.stderr)
        journal.close()
        return EXIT_USAGE
    notices, refusal = sandbox.start(auto_run=conf.yes)
    for line in [*notices, *([refusal] if refusal else [])]:
        print(f"interp: {line}", file=sys.stderr)
    if refusal:
        journal.close()
        return EXIT_USAGE
    return sandbox


def _start(conf: Config, existing: str | None, journal: Journal, sandbox: Sandbox,
           repl: bool) -> tuple[Kernel, Model] | int:
    """The kernel (--kernel, --python: checked first) and the model, started side by side; an exit code when either
    cannot be had."""
    kernel = None
    try:
        choice = choose_kernel(conf.kernel, conf.python, existing)
        kernel = Kernel(cwd=os.getcwd(), kernel_name=choice.name, existing=existing, sandbox=sandbox,
                        specs=choice.spec_manager())
        kernel.start()  # the kernel starts up while the model loads
        model = _ready_model(conf, kernel, repl, sandbox)
    except BaseException as exc:  # whatever went wrong, leave no kernel or empty journal behind
        if kernel is not None:
            kernel.shutdown()
        journal.close()
        if isinstance(exc, (ModelError, KernelError)):
            print(f"interp: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if isinstance(exc, KeyboardInterrupt):
            return EXIT_INTERRUPTED
        raise
    return kernel, model


def _ready_model(conf: Config, kernel: Kernel, repl: bool, sandbox: Sandbox) -> Model:
    """The model with its fixed prefix in cache, and the kernel ready. For the REPL, a local GGUF loads in the
    background (startup.py) while the prompt takes input; only a first-start assembly is waited for here."""
    with load_progress(enabled=sys.stderr.isatty() and not _plain(conf)) as progress:
        if repl and not conf.api_base and not (conf.model or "").startswith("script:"):
            from interp.models.gguf import display_name  # not llama.py: numpy would load before the prompt

            path, name = model_path(conf.model, progress)
            startup = Startup(lambda: load_model(conf.model, n_ctx=conf.ctx, n_threads=conf.threads,
                                                 n_gpu_layers=conf.gpu_layers), kernel, _prefix(path, sandbox))
            return PendingModel(startup, display_name(path, name), conf.ctx, path)
        model = load_model(conf.model, n_ctx=conf.ctx, n_threads=conf.threads, n_gpu_layers=conf.gpu_layers,
                           api_base=conf.api_base, api_key=conf.api_key, progress=progress)
    warm_prefix(model, _prefix(getattr(model, "path", None), sandbox))
    kernel.wait_ready()
    return model


def _prefix(model_file: Path | None, sandbox: Sandbox) -> list[Message]:
    """What every prompt to this model starts with, as Session.prefix makes it."""
    prompts = Prompts.load(profile=profile(model_file))
    return prompts.prefix(sandbox.prompt(prompts.sandbox))


def _run(conf: Config, request: str | None, model: Model, kernels: Kernels, journal: Journal,
         resuming: bool, program: Any = None) -> int:
    from interp.ui.plain import PlainView
    from interp.ui.render import RichView
    from interp.ui.repl import ask_question, drive, run_repl

    stdin_tty = sys.stdin.isatty()
    damage: list[Damage] = []
    history = history_from_journal(read(journal.path, damage)) if resuming else []
    prompt_profile = profile(getattr(model, "path", None))
    journal.record("session", version=__version__, model=model.name, model_path=str(getattr(model, "path", "")),
                   prompts=prompt_profile or "standard",
                   cwd=os.getcwd(), pid=os.getpid(), argv=redact_argv(sys.argv[1:]),
                   kernel_pid=kernels.python.pid, resumed=resuming, sandbox=kernels.sandbox.describe(),
                   kernel=kernels.python.spec_name, kernel_argv=kernels.python.argv,
                   language_info=kernels.python.language_info)
    outputs = OutputFolder(journal.path.with_suffix(""))
    prompts = Prompts.load(profile=prompt_profile)
    try:
        memory = open_recaller(journal.path, prompts.recall, conf.recall)
    except MemoryStoreError as exc:  # memory is an aid, the journal is the record: the session goes on without it
        memory = None
        print(f"interp: {exc}. Recall is off for this session (--recall 0 turns it off quietly).", file=sys.stderr)
    session = Session(Seeded(model, conf.seed), kernels, journal, prompts, conf, outputs, interactive=stdin_tty,
                      memory=memory)
    view = (PlainView(open_images=conf.open_images) if _plain(conf)
            else RichView(open_images=conf.open_images, inline_images=conf.inline_images))
    if resuming:
        for line in describe_damage(damage):
            view.show(Notice(line, "warning"))
        session.history[:] = history
        view.show(Notice(f"Resumed {len(history)} messages from {journal.path}. The kernel is new: nothing was "
                         "re-run, so variables from before are gone.", "warning"))
    ask = ask_question if stdin_tty else None
    try:
        if program is not None:
            from interp.programs.command import run_program

            return run_program(session, program, drive, view, ask)
        if request is None and stdin_tty:
            wait = None
            if isinstance(model, PendingModel):
                startup = model.startup
                wait = lambda: wait_visibly(startup, view.show)  # noqa: E731 - one line, named for what it does
            run_repl(session, view, wait)
            return EXIT_FAILED if session.last_status in FAILED else EXIT_OK
        status: TurnStatus = "ok"
        for text in [request] if request is not None else _stdin_requests():
            status = drive(session.turn(text), view, ask)
            if status == "interrupted":
                break
        return _exit_code(status)
    finally:
        if memory is not None:
            memory.close()
        journal.close()
        print(f"interp: journal saved to {journal.path}", file=sys.stderr)


def _plain(conf: Config) -> bool:
    return conf.plain or bool(os.environ.get("NO_COLOR")) or not sys.stdout.isatty()


def _print_lines(lines: list[str]) -> int:
    with contextlib.suppress(BrokenPipeError):
        print("\n".join(lines))
    return EXIT_OK


def _info(conf: Config, existing: str | None) -> int:
    from interp.info import backend_lines, model_lines

    try:
        choice = choose_kernel(conf.kernel, conf.python, existing)
        kernel = choice.lines()
        if conf.api_base:
            lines = [f"server: {redact_url(conf.api_base)}", f"model: {conf.model or 'the server default'}"]
        elif conf.model and conf.model.startswith("script:"):
            lines = [f"scripted model: {conf.model[len('script:'):]}"]
        else:
            with load_progress(enabled=sys.stderr.isatty() and not _plain(conf)) as progress:
                path, name = model_path(conf.model, progress)
            lines = [*backend_lines(), *model_lines(path, name)]
        if choice.spec is not None:  # an attached kernel's libraries are its own business
            lines += stack.lines(choice.python.path if choice.python is not None else sys.executable)
    except (ModelError, KernelError) as exc:
        print(f"interp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _print_lines([*lines, *kernel])


def _verify_models() -> int:
    from interp.models.catalog import CATALOG
    from interp.models.store import verify

    failed = False
    for entry in CATALOG.values():
        try:
            result = verify(entry) if entry.installed() else "not installed: " + entry.install
        except ModelError as exc:
            result = str(exc)
        failed = failed or result.startswith("corrupt")
        print(f"{entry.name}: {result}", flush=True)
    return EXIT_FAILED if failed else EXIT_OK


def _stdin_requests() -> Iterator[str]:
    for line in sys.stdin:
        if line.strip():
            yield line.rstrip("\n")


def _exit_code(status: TurnStatus) -> int:
    if status == "interrupted":
        return EXIT_INTERRUPTED
    return EXIT_FAILED if status in FAILED else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
