"""The execution step: one code block in, events out, ending with an `ExecutionDone` that is also journaled.

It asks for confirmation, picks the block's kernel, replaces a kernel that died or would not stop, saves rich
outputs, and bounds what the model will read. It knows kernels only through `interp.runtime.kernel_api`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator

from interp.common.events import (
    Confirm,
    DisplayData,
    Event,
    ExecStatus,
    ExecutionDone,
    ExecutionStart,
    InputRequest,
    Notice,
    OutputChunk,
    OutputFile,
)
from interp.common.extract import CodeBlock
from interp.common.returning import Returning
from interp.common.screentext import hidden_characters
from interp.common.textclean import HeadTail, cell_lines, for_model, short_lines
from interp.config import Config
from interp.prompts import Prompts
from interp.running.state import SessionState
from interp.running.unimported import bound_at_top
from interp.runtime.kernel_api import KernelError, KernelLike, KernelPool, RunResult
from interp.runtime.outputs import MAX_BYTES_PER_RUN, MAX_FILES_PER_RUN, Budget, OutputFolder, OutputLog
from interp.stores.journal import Journal
from interp.versions.verify import explained, restore

# The request's examples, run as checks, are bounded apart from --timeout: a version still running them after this long
# loops (examples are small calls that return in a fraction of a second; a version that never ends, such as an
# iteration that does not converge, would hold its turn past the turn's cap where a failed example draws a new version).
CHECKS_SECONDS = 5.0


def shell_source(script: str) -> str:
    """The Python that runs a shell block in the Python kernel (see _kernel_helpers.py)."""
    return f"__interp_shell({script!r})"


class Executor:
    """Runs code blocks for a session. `note(text)` adds interp's own words to the conversation (a declined block,
    an interrupted run); the session owns the history. `waited`: seconds spent waiting for the person to say whether
    a block runs. `clean_names`: the names the clean Python runs bound in the kernel's namespace
    (unimported.lacking)."""

    def __init__(self, kernels: KernelPool, outputs: OutputFolder, journal: Journal, config: Config,
                 state: SessionState, note: Callable[[str], None], prompts: Prompts) -> None:
        self.kernels = kernels
        self.outputs = outputs
        self.journal = journal
        self.config = config
        self.state = state
        self._note = note
        self.prompts = prompts
        self.waited = 0.0
        self.clean_names: set[str] = set()

    def run(self, block: CodeBlock, confirmed: bool = False) -> Generator[Event, None, ExecutionDone]:
        code = block.code
        if hidden := hidden_characters(code):
            yield Notice(f"This code holds characters that are invisible or change the order text is shown in "
                         f"({', '.join(hidden[:5])}): each is shown as <U+...>; read it before it runs.", "warning")
        if not (self.state.auto_run or confirmed):
            if not self.state.interactive:
                yield Notice("Code is not run without a terminal to confirm it: pass -y to run it.", "warning")
                return self._finish(block.language, code, "skipped", "", None, 0.0)
            ask = Confirm(block.language, code)
            asked = time.monotonic()
            yield ask
            self.waited += time.monotonic() - asked
            if ask.answer == "a":
                yield from self.enable_auto_run()
            if ask.answer == "n":
                done = self._finish(block.language, code, "declined", "", None, 0.0)
                self._note(self.prompts.declined)
                return done
            code = ask.code
        kernel, error = self._kernel(block.language)
        kept = HeadTail(self.config.max_output)
        if kernel is not None and not kernel.is_alive():
            # It died while idle (killed from outside, out of memory): the code is not to blame for that.
            error = yield from self._revive(kernel, kept)
        if kernel is None or error is not None:
            done = self._finish(block.language, code, "error" if kernel is None else "died", "", error, 0.0)
            yield done
            return done
        yield ExecutionStart(block.language, code)
        started = time.monotonic()
        log = OutputLog()
        explain = block.language == "python" and (self.config.verify or block.checks)
        timeout = min(self.config.timeout or CHECKS_SECONDS, CHECKS_SECONDS) if block.checks else self.config.timeout
        result = yield from self._stream(kernel, block.language, code, explain, timeout, kept, log, started)
        if result.status == "died" or result.wedged:
            yield self._replace(kernel, "died" if result.status == "died" else "did not stop its code when interrupted")
        error = self._error(block.language, code, explain, result)
        done = self._finish(block.language, code, result.status, kept.text(), error, time.monotonic() - started,
                            outputs=log.items(), ename=result.ename)
        yield done
        denied = self.kernels.sandbox.explain(f"{done.output}\n{done.error or ''}")
        if denied:
            yield Notice(denied, "warning")
        return done

    def enable_auto_run(self) -> Iterator[Event]:
        """Auto-run from now on (answer `a`, `%auto on`), under the sandbox when its setting asks for one
        (sandbox.py); refused, with the reason, where the sandbox cannot be applied."""
        allowed, notes = self.kernels.confine()
        for note in notes:
            yield Notice(note, "warning" if allowed else "error")
        if allowed:
            self.state.auto_run = True
            self.journal.record("auto_run", sandbox=self.kernels.sandbox.describe())

    def _kernel(self, language: str) -> tuple[KernelLike | None, str | None]:
        """The block's kernel, or None and why not."""
        try:
            kernel = self.kernels.python if language == "shell" else self.kernels.get(language)
        except KernelError as exc:
            return None, f"The {language} kernel could not start: {exc}"
        if kernel is None:
            return None, (f"No kernel for '{language}' is installed. Languages available: "
                          f"{', '.join(self.kernels.available())}.")
        return kernel, None

    def _revive(self, kernel: KernelLike, kept: HeadTail) -> Generator[Event, None, str | None]:
        """Replaces a kernel found dead before a run; returns why it could not be, or None."""
        try:
            kernel.restart()
        except KernelError as exc:
            return f"The kernel died and could not be restarted: {exc}"
        yield Notice("The kernel had died since the last run; a fresh one was started (all variables were lost).",
                     "error")
        kept.add(self.prompts.revived + "\n")
        return None

    def _stream(self, kernel: KernelLike, language: str, code: str, explain: bool, timeout: float, kept: HeadTail,
                log: OutputLog, started: float) -> Generator[Event, None, RunResult]:
        """The run's outputs as events; rich outputs saved (a bounded number), text kept for the model, and all
        in order in `log` for the journal."""
        run = Returning(kernel.execute(
            shell_source(code) if language == "shell" else explained(code) if explain else code,
            allow_stdin=self.state.interactive and not self.state.auto_run,
            timeout=timeout,
        ))
        budget = Budget()
        try:
            for item in run:
                if isinstance(item, DisplayData):
                    try:
                        saved = self.outputs.save(item.data, budget)
                    except OSError as exc:  # a full disk: the run goes on, its outputs unsaved
                        saved = []
                        budget.bad.append(f"({exc.strerror or exc})")
                    log.display(saved, item.data.get("text/plain"))
                    for mime, path in saved:
                        kept.add(f"[{mime} saved to {path}]\n")
                        yield OutputFile(str(path), mime)
                    text = item.data.get("text/plain")
                    if not isinstance(text, str) or any(str(mime).startswith("image/") for mime in item.data):
                        continue  # a figure's text is its repr (<Figure size 640x480 with 1 Axes>): it is shown
                    item = OutputChunk("result", text + "\n")
                elif isinstance(item, OutputChunk):
                    log.text(item.stream, item.text)
                kept.add(item.prompt if isinstance(item, InputRequest) else item.text)
                yield item
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            run.gen.close()
            self._finish(language, code, "interrupted", kept.text(), None, time.monotonic() - started,
                         outputs=log.items())
            self._note(self.prompts.interrupted)
            raise
        limits = f"at most {MAX_FILES_PER_RUN} files and {MAX_BYTES_PER_RUN // 2**20} MB per run"
        if budget.unsaved:
            kept.add(f"[{budget.unsaved} more rich outputs not saved: {limits}]\n")
            yield Notice(f"{budget.unsaved} more rich outputs were not saved ({limits}).", "warning")
        if budget.bad:
            yield Notice(f"{len(budget.bad)} rich outputs were not saved: not a MIME type, or not what their type says "
                         f"(first: {budget.bad[0]}).", "warning")
        return run.value

    def _error(self, language: str, code: str, explain: bool, result: RunResult) -> str | None:
        """The error told to the model. Python with `explain` ran with its asserts made to report what they compared
        (verify.py); the error quotes them as written, as the journal keeps the code, and its frames in the cell show
        the cell's lines (textclean.cell_lines)."""
        if language == "shell" and result.ename == "ShellError":
            return f"The command failed with {result.evalue}."
        if not result.error:
            return result.error
        # A deep recursion's traceback runs to megabytes; its head and its last frames are what explain it. An
        # exception may quote a whole column in one line, whose head and tail are what explain it.
        bounded = HeadTail(self.config.max_output)
        error = restore(result.error, code) if explain else result.error
        bounded.add(short_lines(cell_lines(error, code) if language == "python" else error))
        return bounded.text()

    def _replace(self, kernel: KernelLike, what: str) -> Notice:
        """A fresh kernel in place of one that died or would not stop."""
        try:
            kernel.restart()
        except KernelError as exc:
            return Notice(f"The kernel {what} and could not be restarted: {exc}", "error")
        return Notice(f"The kernel {what}; a fresh one was started (all variables were lost).", "error")

    def _finish(self, language: str, code: str, status: ExecStatus, output: str, error: str | None,
                duration: float, **extra: object) -> ExecutionDone:
        """Journals an execution; `extra` (its outputs in order, the error's name) is for the notebook export."""
        if status == "ok" and language == "python":
            self.clean_names |= bound_at_top(code)
        output = for_model(output)
        self.journal.record(
            "execution", language=language, code=code, output=output, error=error, status=status,
            duration_s=round(duration, 3), **extra,
        )
        return ExecutionDone(language, code, status, output, error, duration)
