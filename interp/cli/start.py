"""What the command line starts before a session: the sandbox, decided first; then the kernel and the model side by
side, the model's fixed prefix in cache. Whatever cannot be had is a one-line message and an exit code."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from interp.cli.startup import PendingModel, Startup
from interp.cli.terminal import EXIT_INTERRUPTED, EXIT_USAGE, plain
from interp.common.screentext import complain
from interp.config import Config
from interp.models import Model, ModelError, load_model, model_path
from interp.models.base import Message, model_file, warm_prefix
from interp.prompts import Prompts, profile
from interp.runtime.kernel import Kernel
from interp.runtime.kernel_api import KernelError
from interp.runtime.kernel_choice import choose as choose_kernel
from interp.runtime.kernels import Kernels
from interp.runtime.sandbox import Sandbox, SandboxError
from interp.stores.journal import Journal
from interp.ui.progress import load_progress


def start(conf: Config, existing: str | None, journal: Journal, repl: bool) -> tuple[Kernels, Model] | int:
    """The session's kernels, under its sandbox, and its model; an exit code when one cannot be had (the journal is
    closed then)."""
    sandbox = _start_sandbox(conf, existing, journal)
    if isinstance(sandbox, int):
        return sandbox
    started = _start(conf, existing, journal, sandbox, repl)
    if isinstance(started, int):
        return started
    kernel, model = started
    return Kernels(kernel, sandbox), model


def configure_sandbox(conf: Config, existing: str | None) -> Sandbox:
    """The sandbox the settings ask for (an attached kernel's is off). Raises SandboxError."""
    return Sandbox.configure(conf.sandbox, os.getcwd(), conf.allow_write, conf.allow_net, existing)


def _start_sandbox(conf: Config, existing: str | None, journal: Journal) -> Sandbox | int:
    """The session's sandbox, decided before any kernel starts; an exit code when it cannot be had (-y or an explicit
    mode on a system that cannot enforce it, an --allow-write path that does not exist)."""
    try:
        sandbox = configure_sandbox(conf, existing)
    except SandboxError as exc:
        complain(str(exc))
        journal.close()
        return EXIT_USAGE
    notices, refusal = sandbox.start(auto_run=conf.yes)
    for line in [*notices, *([refusal] if refusal else [])]:
        complain(line)
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
            complain(str(exc))
            return EXIT_USAGE
        if isinstance(exc, KeyboardInterrupt):
            return EXIT_INTERRUPTED
        raise
    return kernel, model


def _ready_model(conf: Config, kernel: Kernel, repl: bool, sandbox: Sandbox) -> Model:
    """The model with its fixed prefix in cache, and the kernel ready. For the REPL, a local GGUF loads in the
    background (startup.py) while the prompt takes input; only a first-start assembly is waited for here."""
    with load_progress(enabled=sys.stderr.isatty() and not plain(conf)) as progress:
        if repl and not conf.api_base and not (conf.model or "").startswith("script:"):
            from interp.models.gguf import display_name  # not llama.py: numpy would load before the prompt
            from interp.models.threads import default_threads

            path, name = model_path(conf.model, progress)
            startup = Startup(lambda: load_model(conf.model, n_ctx=conf.ctx, n_threads=conf.threads,
                                                 n_gpu_layers=conf.gpu_layers), kernel, _prefix(path, sandbox))
            return PendingModel(startup, display_name(path, name), conf.ctx, path, conf.threads or default_threads())
        model = load_model(conf.model, n_ctx=conf.ctx, n_threads=conf.threads, n_gpu_layers=conf.gpu_layers,
                           api_base=conf.api_base, api_key=conf.api_key, progress=progress)
    warm_prefix(model, _prefix(model_file(model), sandbox))
    kernel.wait_ready()
    return model


def _prefix(model_file: Path | None, sandbox: Sandbox) -> list[Message]:
    """What every prompt to this model starts with, as Session.prefix makes it."""
    prompts = Prompts.load(profile=profile(model_file))
    return prompts.prefix(sandbox.prompt(prompts.sandbox))
