"""A reply's blocks run in a turn: screened by the before_run rules, with the imports they lack put above them, a
missing module offered for install, the request's files kept aside and put back, and a changed copy of a script saved
into the script.

What the request reads, writes and asks to change is the turn's (RequestFiles, a field of turn.Turn); the kernel, the
journal and the prompts are its session's (session_api.SessionLike).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field, replace
from functools import partial

from interp.common.events import Event, ExecutionDone, Notice
from interp.common.extract import CodeBlock
from interp.reading.helping import helped
from interp.rules import Facts, Fired, values
from interp.running import copies, safekeep, unimported
from interp.turn.policy import End, TurnPolicy
from interp.turn.session_api import SessionLike


@dataclass
class RequestFiles:
    """The files one request reads and asks to write elsewhere (safekeep.sources), those it asks to be written, the
    scripts it asks to change, as they were (copies.py), and the copies kept of those it reads while code runs."""

    keeping: safekeep.Safekeeping
    sources: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    scripts: list[copies.Script] = field(default_factory=list)


def run_blocks(session: SessionLike, files: RequestFiles, policy: TurnPolicy, blocks: list[CodeBlock],
               feedback: list[str]) -> Generator[Event, None, End | None]:
    """Runs blocks up to the first failure, adding what each did to `feedback`; End when the turn ends now."""
    for block in blocks:
        if block.inferred:
            yield Notice(f"Taking this part of the reply as {block.language} code:\n{block.code}")
        # The code run may have imports put above it; the policy knows the block by the model's code (a reply
        # that sends it again repeats it) and the version by the code run (done.code).
        ran = yield from imported(session, block)
        done: ExecutionDone
        if refusal := session.rules.run("before_run", Facts(code=ran.code, language=ran.language,
                                                            reads=files.sources, writes=files.targets), first=True):
            file = refusal[0].finding.values.get("file", "")
            yield Notice(f"Not running the model's code: it would write over {file}, which the request reads; "
                         "asking it again.", "warning")
            done = _refused(session, ran, refusal[0])
        else:  # a file the request reads that the code changed anyway is put back (safekeep.py)
            done = yield from safekeep.guarded(files.keeping, _executed(session, ran, block.checks), session.journal,
                                               lambda item: session.prompts.restored.safe_substitute(
                                                   file=item.name, how=item.how, target=files.targets[0]))
        verdict = policy.on_execution(block, done)
        if isinstance(verdict, End):
            return verdict
        seen = helped(session.journal, "values", None, partial(_values, session, done))
        feedback.append(session.feedback.execution(done, request_checks=block.checks, values=seen))
        if done.note:
            feedback.append(done.note)
        notes = session.notes.after(done)
        policy.noted(notes)
        feedback.extend(notes)
        if verdict and done.status == "ok" and done.language == "python":
            verdict = yield from _save_copies(session, files, policy, done.code, feedback)
            if isinstance(verdict, End):
                return verdict
        if not verdict:
            return None
    return None


def _refused(session: SessionLike, block: CodeBlock, fired: Fired) -> ExecutionDone:
    """The code is not run: a before_run rule fired (interp/rules/guards/). The model is told the rule's text as a
    failure, which counts as an attempt."""
    session.journal.record("refused", language=block.language, code=block.code, rule=fired.rule,
                           file=str(fired.finding.values.get("file", "")))
    return ExecutionDone(block.language, block.code, "error", "", fired.text, 0.0)


def _save_copies(session: SessionLike, files: RequestFiles, policy: TurnPolicy, code: str,
                 feedback: list[str]) -> Generator[Event, None, End | bool]:
    """Code that ran cleanly was a changed copy of a script the request asked to change, and the file is as it
    was: the change is saved into the file, which runs (copies.py). As on_execution: End, or whether to go on."""
    for script in files.scripts:
        if not copies.copied(script, code):
            continue
        yield Notice(f"That code ran a changed copy of {script.name}, and {script.name} itself is unchanged on "
                     "disk: saving the change into it and running it.", "warning")
        session.journal.record("save_copy", path=str(script.path), before=script.text)
        block = copies.save_block(script, code)
        done: ExecutionDone = yield from session.executor.run(block)
        if done.status == "declined":
            return True  # the user keeps the file as it is; the model was told (prompts/declined.md)
        verdict = policy.on_execution(block, done)
        if isinstance(verdict, End):
            return verdict
        feedback.append(session.prompts.saved.safe_substitute(file=script.name,
                                                              feedback=session.feedback.execution(done)))
        if not verdict:
            return False
    return True


def _values(session: SessionLike, done: ExecutionDone) -> values.Seen | None:
    """After a clean Python run that printed nothing: what the names it assigned hold (values.py)."""
    if done.language != "python" or done.status != "ok" or done.output.strip():
        return None
    names = values.assigned(done.code)
    return values.seen(session.evaluate(values.expressions(names)), names) if names else None


def unimported_lines(session: SessionLike, code: str) -> list[str]:
    """The imports Python code needs above it: names it uses and never binds, from prompts/imports.json, whose
    module the kernel can import and that it does not hold, or holds as that module's object without a clean
    run having bound it (unimported.lacking)."""
    wanted = unimported.needed(code, session.prompts.imports)
    clean = session.executor.clean_names
    asked = {name: unimported.lacking(name, line, name in clean) for name, line in wanted.items()}
    lacking = session.evaluate(asked) if asked else {}
    return [line for name, line in wanted.items() if lacking.get(name, "True") == "True"]


def imported(session: SessionLike, block: CodeBlock) -> Generator[Event, None, CodeBlock]:
    """The block with the imports it needs and lacks put above it, said and journaled (unimported.py)."""
    lines: list[str] = helped(session.journal, "imports", [], lambda: unimported_lines(session, block.code)) \
        if block.language == "python" else []
    if not lines:
        return block
    yield Notice(f"The code uses what it does not import; adding before it: {'; '.join(lines)}.")
    session.journal.record("imports_added", imports=lines)
    return replace(block, code=unimported.with_imports(block.code, lines))


def _executed(session: SessionLike, block: CodeBlock, checks: bool) -> Generator[Event, None, ExecutionDone]:
    """Runs a block; when a module it needs is missing, offers to install it and runs it again."""
    done: ExecutionDone = yield from session.executor.run(block, confirmed=checks)
    return (yield from _offer_install(session, block, done)) if done.status == "error" else done


def _offer_install(session: SessionLike, block: CodeBlock,
                   done: ExecutionDone) -> Generator[Event, None, ExecutionDone]:
    """A module the code needs is missing: offers to install it (packages.py), then runs the block again."""
    sandbox = session.kernels.sandbox  # under its no-network rule nothing is installed (pip would only fail)
    return (yield from session.packages.after_failure(
        done, block, lambda code: session.executor.run(code, confirmed=True), may_ask=session.state.interactive,
        auto=session.config.auto_install, network=not sandbox.active or sandbox.policy.network,
    ))
