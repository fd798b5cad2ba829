"""Command line: flags -> settings; picks the interactive, one-shot or piped mode; maps the outcome to an exit code."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

from interp import __version__
from interp.journal import Journal, default_path
from interp.kernel import Kernel, KernelError
from interp.kernels import Kernels
from interp.models import GenParams, Model, ModelError, load_model
from interp.outputs import OutputFolder
from interp.prompts import Prompts
from interp.session import Session, Settings
from interp.ui.progress import load_progress

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="interp",
        description="A code interpreter on a local model: ask in plain words, it writes code and runs it.",
    )
    p.add_argument("request", nargs="?", help="run this one request to completion, then exit")
    p.add_argument("-c", dest="command", metavar="REQUEST", help="same as the positional request")
    p.add_argument("-y", "--yes", action="store_true", help="run code without asking first")
    p.add_argument("--model", help="a GGUF file, or script:FILE.json (default: the embedded SmolLM2-135M)")
    p.add_argument("--api-base", metavar="URL",
                   help="use an OpenAI-compatible server (llama-server, vLLM, Ollama, ...) instead of a local GGUF; "
                        "--model then names the model on that server")
    p.add_argument("--api-key", default=os.environ.get("INTERP_API_KEY"), help="the server's key, if it needs one")
    p.add_argument("--info", action="store_true", help="describe the backend and the model, then exit")
    p.add_argument("--ctx", type=int, default=0, help="context window in tokens (default: the model's, up to 8192)")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (default: physical cores)")
    p.add_argument("--gpu-layers", type=int, default=None,
                   help="layers to offload to the GPU (default: all when this build can offload, else 0)")
    p.add_argument("--temperature", type=float, default=0.2, help="sampling temperature (default: 0.2)")
    p.add_argument("--max-tokens", type=int, default=1024, help="most tokens in one reply (default: 1024)")
    p.add_argument("--max-attempts", type=int, default=3,
                   help="failed executions in a row before a turn stops; 0 = no limit (default: 3)")
    p.add_argument("--timeout", type=float, default=120,
                   help="seconds one execution may run before it is interrupted; 0 = none (default: 120)")
    p.add_argument("--max-output", type=int, default=2000,
                   help="characters of an execution's output kept for the model, head and tail (default: 2000)")
    p.add_argument("--existing", metavar="CONNECTION_FILE",
                   help="use a kernel started elsewhere (its connection file); it is not shut down on exit")
    p.add_argument("--open-images", action="store_true", help="open images that code displays in the system viewer")
    p.add_argument("--condense", choices=("cut", "summary"), default="cut",
                   help="when the window is full: cut old turns, or have the model summarize them (default: cut)")
    p.add_argument("--transcript", type=Path, help="the JSONL journal to append to (default: a new file per session)")
    p.add_argument("--plain", action="store_true", help="plain text output with no colours or escape codes")
    p.add_argument("--version", action="version", version=f"interp {__version__}")
    return p


def _nonneg(p: argparse.ArgumentParser, args: argparse.Namespace, *names: str) -> None:
    for name in names:
        if getattr(args, name) is not None and getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must not be negative")


def _exit_signal(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.request and args.command:
        p.error("give the request either as an argument or with -c, not both")
    _nonneg(p, args, "ctx", "threads", "max_tokens", "max_attempts", "timeout", "max_output")
    if args.info:
        return _info(args)
    request = args.command or args.request
    stdin_tty = sys.stdin.isatty()
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _exit_signal)

    kernel = Kernel(cwd=os.getcwd(), existing=args.existing)
    try:
        kernel.start()  # the kernel starts up while the model loads
        with load_progress(enabled=sys.stderr.isatty() and not _plain(args)) as progress:
            model = load_model(args.model, n_ctx=args.ctx, n_threads=args.threads, n_gpu_layers=args.gpu_layers,
                               api_base=args.api_base, api_key=args.api_key, progress=progress)
        kernel.wait_ready()
    except (ModelError, KernelError) as exc:
        kernel.shutdown()
        print(f"interp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        kernel.shutdown()
        return EXIT_INTERRUPTED
    kernels = Kernels(kernel)
    try:
        return _run(args, request, stdin_tty, model, kernels)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        kernels.shutdown()
        model.close()


def _run(args: argparse.Namespace, request: str | None, stdin_tty: bool, model: Model, kernels: Kernels) -> int:
    from interp.ui.render import PlainView, RichView
    from interp.ui.repl import ask_question, drive, run_repl

    settings = Settings(
        auto_run=args.yes,
        interactive=stdin_tty,
        max_attempts=args.max_attempts,
        timeout=args.timeout,
        max_output=args.max_output,
        condense=args.condense,
        gen=GenParams(max_tokens=args.max_tokens, temperature=args.temperature),
    )
    journal = Journal(args.transcript or default_path())
    journal.record("session", version=__version__, model=model.name, cwd=os.getcwd(), argv=sys.argv[1:],
                   kernel_pid=kernels.python.pid)
    outputs = OutputFolder(journal.path.with_suffix(""))
    session = Session(model, kernels, journal, Prompts.load(), settings, outputs)
    plain = _plain(args)
    view = PlainView(open_images=args.open_images) if plain else RichView(open_images=args.open_images)
    ask = ask_question if stdin_tty else None
    try:
        if request is None and stdin_tty:
            run_repl(session, view)
            return EXIT_FAILED if session.last_status in ("failed", "attempts") else EXIT_OK
        status = "ok"
        for text in [request] if request is not None else _stdin_requests():
            status = drive(session.turn(text), view, ask)
            if status == "interrupted":
                break
        return _exit_code(status)
    finally:
        journal.close()
        print(f"interp: journal saved to {journal.path}", file=sys.stderr)


def _plain(args: argparse.Namespace) -> bool:
    return args.plain or bool(os.environ.get("NO_COLOR")) or not sys.stdout.isatty()


def _info(args: argparse.Namespace) -> int:
    from interp.info import backend_lines, model_lines
    from interp.models.default import default_model_path

    try:
        if args.api_base:
            lines = [f"server: {args.api_base}", f"model: {args.model or 'the server default'}"]
        elif args.model and args.model.startswith("script:"):
            lines = [f"scripted model: {args.model[len('script:'):]}"]
        else:
            lines = [*backend_lines(), *model_lines(Path(args.model) if args.model else default_model_path())]
    except ModelError as exc:
        print(f"interp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    with contextlib.suppress(BrokenPipeError):
        print("\n".join(lines))
    return EXIT_OK


def _stdin_requests() -> Iterator[str]:
    for line in sys.stdin:
        if line.strip():
            yield line.rstrip("\n")


def _exit_code(status: str) -> int:
    if status == "interrupted":
        return EXIT_INTERRUPTED
    return EXIT_FAILED if status in ("failed", "attempts", "skipped") else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
