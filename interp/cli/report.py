"""The command line's commands that only report, then exit: --config, --info, --models, --verify-models, --export,
--conversations. Nothing here starts a kernel or a session."""

from __future__ import annotations

import argparse
import contextlib
import sys

from interp.cli.start import configure_sandbox
from interp.cli.terminal import EXIT_FAILED, EXIT_OK, EXIT_USAGE, plain
from interp.common.screentext import complain
from interp.common.screentext import report as report_lines
from interp.config import Config, describe, redact_url
from interp.models import ModelError, model_path
from interp.runtime import stack
from interp.runtime.kernel_api import KernelError
from interp.runtime.kernel_choice import choose as choose_kernel
from interp.runtime.sandbox import SandboxError
from interp.stores.conversations import conversations
from interp.stores.journal import describe_damage
from interp.ui.progress import load_progress


def report(args: argparse.Namespace, conf: Config, sources: dict[str, str]) -> int | None:
    """The commands that only report (--config, --info, --models, ...): their exit code, or None for a session."""
    if args.config:
        try:
            return _print_lines([*describe(conf, sources), *configure_sandbox(conf, args.existing).lines(),
                                 *choose_kernel(conf.kernel, conf.python, args.existing).lines()])
        except (SandboxError, KernelError) as exc:
            complain(str(exc))
            return EXIT_USAGE
    if args.info:
        return _info(conf, args.existing)
    if args.models:
        from interp.ui.listing import models_table

        return _print_lines(models_table())
    if args.verify_models:
        return _verify_models()
    if args.export:
        from interp.stores.notebook import export_main

        return export_main(args.export)
    if args.conversations:
        found = conversations()
        for line in describe_damage([d for c in found for d in c.damage], most=10):
            complain(line)
        return _print_lines([f"{c.id}  {c.started}  {c.turns:3} turns  {c.model[:30]:30}  {c.first_request[:60]}"
                             for c in found] or ["no conversations yet"])
    return None


def _print_lines(lines: list[str]) -> int:
    with contextlib.suppress(BrokenPipeError):
        report_lines("\n".join(lines))
    return EXIT_OK


def _info(conf: Config, existing: str | None) -> int:
    from interp.models.info import backend_lines, model_lines

    try:
        choice = choose_kernel(conf.kernel, conf.python, existing)
        kernel = choice.lines()
        if conf.api_base:
            lines = [f"server: {redact_url(conf.api_base)}", f"model: {conf.model or 'the server default'}"]
        elif conf.model and conf.model.startswith("script:"):
            lines = [f"scripted model: {conf.model[len('script:'):]}"]
        else:
            with load_progress(enabled=sys.stderr.isatty() and not plain(conf)) as progress:
                path, name = model_path(conf.model, progress)
            lines = [*backend_lines(), *model_lines(path, name)]
        if choice.spec is not None:  # an attached kernel's libraries are its own business
            lines += stack.lines(choice.python.path if choice.python is not None else sys.executable)
    except (ModelError, KernelError) as exc:
        complain(str(exc))
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
        report_lines(f"{entry.name}: {result}")
    return EXIT_FAILED if failed else EXIT_OK
