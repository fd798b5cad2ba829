"""The loop: a user turn goes to the model, its code runs in the kernel, errors go back until the code works.

`Session.turn(text)` yields events and does no terminal I/O; the journal and the kernel sit behind small interfaces.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from dataclasses import asdict, replace
from pathlib import Path

from interp import answer_form, choosing, copies, examples, guard, safekeep, unimported, values
from interp.attach import Attachment, asks_for_shell, expand, file_words, may_name_files
from interp.config import Config
from interp.context import Condensed, as_sent, fit, last_request, new_message, unpreviewed
from interp.events import (
    CodeShown,
    Event,
    ExecutionDone,
    ModelStats,
    Notice,
    OutputChunk,
    ReplyDone,
    RuleFired,
    Thinking,
    TurnEnd,
    TurnStatus,
)
from interp.execution import Executor
from interp.extract import CodeBlock, code_blocks, fenced_texts
from interp.feedback import Feedback
from interp.fresh import FreshStart, unparsed
from interp.journal import Journal
from interp.kernel_api import KernelError, KernelPool
from interp.models.base import (
    ALONE,
    Batch,
    GenParams,
    Message,
    Model,
    ModelError,
    complete_beside,
    complete_text,
    waiting,
)
from interp.notes import Notes
from interp.outputs import OutputFolder
from interp.packages import Packages, importable
from interp.policy import DRAW_GRACE, FRESH_TEMPERATURE, End, Nudge, Resample, Run, TurnPolicy, answers_read, opened
from interp.prompts import Prompts
from interp.recall import Recaller
from interp.reply import stream_reply, whole
from interp.returning import Returning
from interp.rules import Engine, Finding
from interp.rules.catalog import RULES
from interp.startup import warm_prefix
from interp.state import SessionState

SCORE_TIMEOUT = 3 * choosing.CHECK_SECONDS + choosing.SCORE_SECONDS  # the kernel's bound on scoring one version


def _never() -> bool:
    """A reply's time is never up."""
    return False


class Session:
    """One conversation with one model and one kernel."""

    def __init__(
        self, model: Model, kernels: KernelPool, journal: Journal, prompts: Prompts, config: Config,
        outputs: OutputFolder, interactive: bool = True, memory: Recaller | None = None,
    ) -> None:
        self.model = model
        self.kernels = kernels
        self.journal = journal
        self.prompts = prompts
        self.config = config
        self.memory = memory  # stores observations and recalls those that left the window (recall.py)
        self.state = SessionState(auto_run=config.yes, interactive=interactive)
        self.history: list[Message] = []
        self.last_status: TurnStatus = "ok"
        self.last_stats: ModelStats | None = None
        self.rules = Engine(RULES, prompts.rules, [r for item in config.without for r in item.split(",") if r],
                            general_only=config.rules == "general", small=prompts.small)
        self.feedback = Feedback(prompts, config.verify, self.rules, self._cwd, self._evaluate)
        self.executor = Executor(kernels, outputs, journal, config, self.state,
                                 lambda text: self._add("user", text, "note"), prompts)
        self.packages = Packages(prompts, lambda modules: importable(self._evaluate, modules))
        self.notes = Notes(self.rules, self._evaluate)  # what a clean run's output does not show (notes.py)
        self._fresh: FreshStart | None = None  # this turn's attempts set aside after a failed example (fresh.py)
        self._scripts: list[copies.Script] = []  # the scripts this turn's request names, as they were (copies.py)
        self._sources: list[str] = []  # the files this turn's request reads and asks to write elsewhere (guard.py)
        self._targets: list[str] = []  # ... and the files it asks to be written
        self.keeping = safekeep.Safekeeping(outputs.folder / "kept")  # copies of the _sources while code runs
        self._function = False  # this turn's request asks for a function stub to be written (prompts/function.md)
        self._redraw: Message | None = None  # the next call's last message, in place of the turn so far (_redrawn)

    def configure(self, config: Config) -> None:
        """Runs later turns with another Config (the eval bounds each run by the task's time left)."""
        self.config = self.executor.config = config

    def prefix(self) -> list[Message]:
        """What every prompt starts with: the system prompt and the few-shot examples (in a turn that writes a
        function stub, the function-writing prompt)."""
        return self.prompts.prefix(self.kernels.sandbox.prompt(self.prompts.sandbox), function=self._function)

    def context(self) -> list[Message]:
        """What the model is sent: the prefix, then the conversation (less the attempts set aside, fresh.py); for a
        reply drawn again after it repeated code (_redrawn), the conversation before the turn and its request, told
        what the earlier code met."""
        history = self._fresh.sent(self.history) if self._fresh else self.history
        start = last_request(history)
        if self._redraw is not None and start is not None:
            history = [*history[:start], self._redraw]
        return as_sent([*self.prefix(), *history])

    def _add(self, role: str, content: str, kind: str, **extra: object) -> None:
        """Appends to the history and the journal. `kind`: request, reply, feedback or note (see context.py)."""
        self.history.append(new_message(role, content, kind, bool(extra.get("error"))))
        self.journal.record(role, content=content, kind=kind, **extra)
        if self.memory is not None:
            self.memory.observe(kind, content)

    def reset(self) -> str | None:
        """Empties the history and starts fresh kernels; returns why the kernels could not be restarted (an
        attached kernel), or None."""
        self.history.clear()
        if self.memory is not None:
            self.memory.forget()
        self.journal.record("reset")
        try:
            self.kernels.restart()
        except KernelError as exc:
            return str(exc)
        return None

    def undo(self) -> int:
        """Drops the last turn (the latest request and everything after it); returns how many messages went."""
        last = last_request(self.history)
        if last is None:
            return 0
        dropped = len(self.history) - last
        del self.history[last:]
        self.journal.record("undo", messages=dropped)
        return dropped

    def replace_history(self, messages: list[Message], source: str) -> None:
        """Continues from another conversation's history (%load, --resume)."""
        self.history[:] = messages
        self.journal.record("load", source=source, history=messages)

    def last_code(self) -> tuple[str, str] | None:
        """The language and code of the latest code block the model wrote."""
        for message in reversed(self.history):
            if message["kind"] == "reply" and (blocks := code_blocks(message["content"])):
                return blocks[-1].language, blocks[-1].code
        return None

    def run_code(self, language: str, code: str) -> Generator[Event, None, None]:
        """Runs code the user wrote or edited (%edit) as part of the conversation, so the model sees it."""
        self._add("user", self.prompts.ran.safe_substitute(language=language, code=code), "note")
        done = yield from self.executor.run(CodeBlock(language, code), confirmed=True)
        if done.status not in ("declined", "skipped"):
            self._add("user", self.feedback.execution(done), "feedback", error=done.status != "ok")
            yield from self._fired()

    def run_cells(self, blocks: list[CodeBlock], summarize: Callable[[list[ExecutionDone]], str],
                  source: str = "") -> Generator[Event, None, None]:
        """Runs code from outside the conversation (a notebook's cells, %load, from `source`), each shown and asked
        for like the model's code, up to the first that does not succeed; the conversation gets one summary instead
        of each output."""
        done: list[ExecutionDone] = []
        for number, block in enumerate(blocks, 1):
            yield CodeShown(block.language, block.code, f"code cell {number} of {len(blocks)}"
                            + (f" from {source}" if source else ""))
            done.append((yield from self.executor.run(block)))
            if done[-1].status != "ok":
                break
        self._add("user", summarize(done), "note")

    def turn(self, text: str) -> Generator[Event, None, None]:
        """Runs one user request to its end; `@path` mentions attach files, and existing files it names by path are
        previewed (attach.py)."""
        names_files = may_name_files(text)
        cwd = self._cwd() if names_files else Path.cwd()  # the kernel is asked only when it matters
        sent, attached, problems = expand(text, self.prompts.attach, cwd, self.prompts.attach_hints,
                                          self.prompts.named if self._previews(text) else None)
        if names_files:
            existing, self._targets = file_words(text, cwd)
            self._sources = guard.sources(text, existing, self._targets)
            self.keeping.start(self._sources, cwd)
        for problem in problems:
            yield Notice(problem, "warning")
        for item in attached:
            yield Notice(f"Showed the model a preview of {item.path} ({item.what}), which the request names." if
                         item.named else f"Attached {item.path} ({item.what}).")
        yield from self._recall(text)
        self._add("user", sent, "request", **({"typed": text} if attached else {}))
        self.notes.start(text, sent)
        self.rules.start_turn()
        self.feedback.start([(item.named or str(item.path), item.kind) for item in attached])
        if copies.asks_change(text):
            self._scripts = copies.watch([(item.path, item.named or str(item.path)) for item in attached])
        stubs = examples.stubs(text)
        if self.config.function_prompt and stubs:
            self._function = True
            self.journal.record("function_prompt", functions=stubs)
        try:
            opening = examples.opening(text) if self._function and self.config.open_stub else ""
            status = yield from self._turn(sent, stubs, opening, attached, text)
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            self.last_status = "interrupted"
            for fired in self.rules.drain():
                self.journal.record("rule_fired", **fired.record())
            self.journal.record("turn_end", status="interrupted")
            raise
        finally:
            self._fresh, self._scripts, self._function = None, [], False
            self._sources, self._targets = [], []
            self.keeping.end()
        yield from self._fired()  # rules that fired in a step the turn ended in (a block declined after it)
        self.last_status = status
        self.journal.record("turn_end", status=status)
        failure = self.journal.take_failure()
        if failure:
            yield Notice(f"{failure}. The session goes on; what follows may be missing from the journal.", "error")
        yield TurnEnd(status)

    def _previews(self, text: str) -> bool:
        """Whether the files and folders the request names without @ are previewed (attach.py): unless turned off,
        or the request asks a small model for a shell command. Shown a file's preview, a small model asked for a shell
        pipeline tends to treat the file's name as a variable (`echo "$words.txt" | ...`) instead of reading the file;
        other requests still gain from previews, so only shell requests go without."""
        return self.config.preview_files and not (self.prompts.small and asks_for_shell(text))

    def _cwd(self) -> Path:
        """Where relative paths point: the Python kernel's directory, which code may have changed."""
        python = self.kernels.python
        where = python.working_directory() if python.is_alive() else None
        return Path(where) if where else Path.cwd()

    def _evaluate(self, expressions: dict[str, str]) -> dict[str, str]:
        """Expressions evaluated in the Python kernel's namespace, running nothing the user sees (rules/errors/,
        values.py); none when the kernel is not alive."""
        python = self.kernels.python
        return python.evaluate(expressions) if python.is_alive() else {}

    def _recall(self, text: str) -> Generator[Event, None, None]:
        """Puts the observations relevant to the request that have left the window before it, as a note."""
        if self.memory is None:
            return
        recalled = self.memory.recall(text, self.history)
        if recalled:
            self.journal.record("recall", **recalled.record())
            self._add("user", recalled.note, "note")
            turns = ", ".join(dict.fromkeys(r.source for r in recalled.found))
            yield Notice(f"Recalled {len(recalled.found)} earlier observations ({turns}).")
        failure = self.memory.take_failure()
        if failure:
            yield Notice(failure, "warning")

    def _turn(self, request: str, stubs: list[str], opening: str, attached: list[Attachment],
              typed: str) -> Generator[Event, None, TurnStatus]:
        policy = TurnPolicy(self.config.max_attempts, self.config.max_steps, self.config.reflect, self.config.verify,
                            examples.parse(request) if self.config.check_examples else [], self.config.candidates,
                            self.config.draw_seconds, self._working_time, stubs, opening,
                            lambda: self._version_waiting(opening), described=[item.what for item in attached],
                            given=fenced_texts(request), shown="\n".join(m["content"] for m in self.history),
                            examples_read=answers_read(self.prefix()), answer_names=answer_form.names(request),
                            files=[(item.named or str(item.path), item.kind) for item in attached], rules=self.rules)
        gen = GenParams(max_tokens=self.config.max_tokens, temperature=self.config.temperature,
                        speculative=self.config.speculative)
        while True:
            try:
                reply = yield from self._call_model(policy.params(gen), policy.overdue,
                                                    drawing_together(policy.batch(), policy, whole))
            except ModelError as exc:
                yield Notice(f"The model failed: {exc}", "error")
                return "failed"
            finally:
                self._redraw = None
            if self.last_stats is not None and self.last_stats.stop_reason == "time":
                self._add("user", self.prompts.cut, "note")
                action: End | Nudge | Resample | Run = policy.cut()
            else:
                action = policy.on_reply(reply, code_blocks(reply))
                yield from self._fired()
            if isinstance(action, Nudge):
                if action.why == "unran" and self._unpreviewed(attached, typed):
                    yield Notice(self.rules.render(action.why, Finding(action.values, "unpreviewed")), "warning")
                    continue
                self._add("user", self.rules.render(action.why, Finding(action.values, "note")), "note")
                if f"{action.why}.notice" in self.rules.templates:
                    yield Notice(self.rules.render(action.why, Finding(action.values, "notice")), "warning")
                continue
            if isinstance(action, Resample):
                self.history.pop()
                self._redraw = self._redrawn() if action.unseen and not policy.drawing else None
                self.journal.record("resample", why=action.why, **({"redrawn": True} if self._redraw else {}))
                yield Notice(self.rules.render(action.why, Finding()), "warning")
                continue
            end = action if isinstance(action, End) else (yield from self._step(policy, action))
            if end is not None:
                if end.notice:
                    yield end.notice
                if end.status in ("failed", "attempts", "stuck") and (best := policy.best_version()):
                    yield from self._keep(best)
                return end.status

    def _unpreviewed(self, attached: list[Attachment], typed: str) -> bool:
        """Under the small prompts, an answer read off the preview of a plain text file the request names (no @, not
        a script, a CSV or JSON) is dropped and the request sent again as typed: told only that its answer was a
        guess, a small model tends to write code that copies its few-shot example's shape instead of what the request
        asks (counting a log's lines for its top IP). Whether it was done."""
        if not (self.prompts.small and attached and all(item.named and item.kind == "text" for item in attached)):
            return False
        if not unpreviewed(self.history, typed):
            return False
        self.journal.record("unpreviewed", content=typed)
        return True

    def _redrawn(self) -> Message | None:
        """The message a reply is drawn from when it sent back code that failed, or that ran before a note doubted it,
        a second time (the first is drawn again hotter, with the code in view): the request, and what the earlier
        code was told, without the code. In view, even at RESAMPLE_TEMPERATURE, a small model often sends the same
        code back again, and it cannot copy code it is not shown. Only the second time: the first draw, with the code
        in view, can still repair the code, which a draw without it must write anew."""
        start = last_request(self.history)
        said = self.history[-1] if self.history else None
        if start is None or said is None or said.get("kind") != "feedback":
            return None
        text = self.prompts.redrawn.safe_substitute(request=self.history[start]["content"], said=said["content"])
        return {"role": "user", "content": text}

    def _version_waiting(self, opening: str) -> bool:
        """Whether a version of the turn's function drawn from the request alone, as the next one would be (the
        attempts after the request set aside, fresh.py), is decoded and waiting (models/together.py)."""
        start = last_request(self.history)
        if start is None:
            return False
        params = opened(GenParams(max_tokens=self.config.max_tokens, temperature=FRESH_TEMPERATURE), opening)
        return waiting(self.model, as_sent([*self.prefix(), *self.history[:start + 1]]), params)

    def _working_time(self) -> float:
        """A clock that stands still while the person decides whether a block runs: a turn's draw_seconds count the
        model's and the kernel's time, not the person's."""
        return time.monotonic() - self.executor.waited

    def _step(self, policy: TurnPolicy, run: Run) -> Generator[Event, None, End | None]:
        """Runs a reply's blocks up to the first failure and tells the model what they did; End when the turn ends."""
        feedback: list[str] = []
        if run.unchanged is not None:
            yield Notice("The model sent code that already ran; the failure stands.", "warning")
            feedback.append(self.prompts.unchanged.safe_substitute(failure=run.unchanged))
        end = yield from self._run_blocks(policy, run.blocks, feedback)
        if end is None and (checks := policy.checks_to_rerun()):
            yield Notice("Running the checks that failed before on the new code.")
            end = yield from self._run_blocks(policy, [checks], feedback)
        if end is None and (checks := policy.request_checks()):
            yield Notice("Running the examples in your request as checks.")
            end = yield from self._run_blocks(policy, [checks], feedback)
        if end is not None:
            return end
        step = policy.end_step()
        if step.verify:
            feedback.append(self.feedback.ask_for_checks(step.verify))
        if step.stuck_hint:
            feedback.append(self.prompts.stuck)
        if step.reflect and (cause := self._reflect("\n\n".join(feedback))):
            feedback.append(self.prompts.cause.safe_substitute(cause=cause))
        self._add("user", "\n\n".join(feedback), "feedback", error=step.failed)
        yield from self._fired()
        if step.fresh is not None and step.stop is None:
            yield from self._set_aside(step.fresh, step.fresh_on_example, policy.drawn)
        if step.written is not None and self.config.choose and self.state.auto_run:
            yield from self._choose(policy, step.written)
        return step.stop

    def _fired(self) -> Generator[Event, None, None]:
        """Journals and shows the rules that fired since the last call (interp/rules/)."""
        for fired in self.rules.drain():
            self.journal.record("rule_fired", **fired.record())
            yield RuleFired(fired.rule, fired.phase, fired.text)

    def _set_aside(self, failure: str, on_example: bool, drawn: int) -> Generator[Event, None, None]:
        """The turn's function failed the request's example, or its code failed: its attempts so far are set aside
        and a new version is drawn from the request alone (fresh.py); `drawn`: which one."""
        if self._fresh is None:
            self._fresh = FreshStart()
        on = "example" if on_example else "unparsed" if unparsed(failure) else "error"
        why = {"example": " failed an example of your request", "unparsed": "'s code does not parse",
               "error": f"'s code failed ({failure.rstrip(':')})"}[on]
        yield Notice(f"The function{why}; the failed version is set aside and a new one drawn from the request alone "
                     f"({drawn} of {self.config.candidates}).")
        start = last_request(self.history)
        self._fresh.set_aside(self.history[(start or 0) + 1:], failure)
        self.journal.record("fresh", failures=self._fresh.failures, set_aside=len(self._fresh.hidden), drawn=drawn,
                            on=on)

    def _choose(self, policy: TurnPolicy, written: str) -> Generator[Event, None, None]:
        """The request's stubs are written and pass its examples: the model writes asserts on other inputs, more
        versions are drawn from the request alone, and the one that passes the most asserts, weighed by the versions
        that agree with it, is kept (choosing.py). Only where code runs without asking: the versions and the asserts
        run unseen."""
        start = last_request(self.history)
        if start is None:
            return
        given = examples.checks(policy.examples, examples.defined_functions(written)) or ""
        yield Notice(f"{'Your examples pass' if given else 'Nothing in your request tests it'}. Asking the model for "
                     f"asserts on other inputs and drawing up to {self.config.choose} more versions of the function, "
                     "to keep the one that passes the most of them, weighed by the versions that agree with it "
                     "(--choose 0: off).")
        request: Message = {"role": "user", "content": self.history[start]["content"]}
        choice = yield from choosing.choose(
            [*self.prefix(), {"role": "user", "content": f"{request['content']}\n\n{self.prompts.choose}"}],
            [*self.prefix(), request], written, self.config.choose,
            lambda messages, temperatures, purpose: self._aside(policy, messages, temperatures, purpose),
            lambda version, tests: self._score(version, given, tests), given,
            self.prompts.choose_other.safe_substitute(given=given.strip()) if given else "")
        if choice is None:
            return
        self.journal.record("choose", **asdict(choice))
        version, asked = choice.versions[choice.kept], len(choice.asserts)
        passed, agreeing = choice.scores[choice.kept][1], choice.groups[choice.kept] - 1
        if not choice.kept:
            yield Notice(f"The function passes {passed} of the {asked} asserts the model wrote for inputs your "
                         f"examples do not show; none of {choice.drawn} other versions drawn passes more, counted "
                         "with the versions that agree with it.")
            return
        also = f", and {agreeing} other {'draw gives' if agreeing == 1 else 'draws give'} the same values" \
            if agreeing else ""
        if choice.outscored:
            yield Notice(f"Another version of the function passes {'your examples and ' if given else ''}{passed} of "
                         f"the {asked} asserts the model wrote for other inputs, the one written "
                         f"{choice.scores[0][1]}{also}: defining it instead.")
        else:
            wide, wide_written = choice.everywhere[choice.kept] - 1, choice.everywhere[0] - 1
            yield Notice(f"Another version of the function does as well as the one written on the {asked} "
                         f"{'assert' if asked == 1 else 'asserts'} the model wrote for other inputs ({passed} "
                         f"passed{also}), and {wide} other "
                         f"{'version gives' if wide == 1 else 'versions give'} its values for the same calls with an "
                         f"argument changed, against {wide_written} for the one written: defining it instead.")
        block = yield from self._imported(CodeBlock("python", version))  # as it was scored
        done: ExecutionDone = yield from self.executor.run(block, confirmed=True)
        if done.status == "ok":
            self._add("user", self.prompts.chosen.safe_substitute(code=version), "note")

    def _aside(self, policy: TurnPolicy, messages: list[Message], temperatures: tuple[float, ...],
               purpose: str) -> Generator[Event, None, str | None]:
        """A model call whose reply stays out of the conversation (it is journaled), stopped where a reply shown would
        be (stream_reply: where its first code block ends, or where it starts repeating itself) and unseen. None when
        the turn has run draw_seconds before it begins (unless it is a version decoded beside an earlier one, taken
        whole at once, within DRAW_GRACE), or when it is still writing DRAW_GRACE seconds after. A reply for asserts
        that runs away (choosing.runaway) or repeats itself is stopped there and its lines written whole are returned;
        a version that repeats itself is returned as no code. The reply is sampled at the first of `temperatures`;
        those that may be asked for after it are decoded beside it (models/together.py) while policy.together allows:
        versions as many as TOGETHER, the reply for asserts at 0.8 beside the one at 0.2."""
        params = opened(GenParams(max_tokens=self.config.max_tokens, temperature=temperatures[0],
                                  speculative=self.config.speculative), policy.opening if purpose == "version" else "")
        # A version decoded already is taken whole, uncut, past draw_seconds too, until the grace is over (policy.py);
        # before draw_seconds nothing is asked: a kept one is taken at once anyway, long before the grace ends.
        taken = (purpose == "version" and policy.past() and not policy.past(DRAW_GRACE)
                 and waiting(self.model, as_sent(messages), params))
        if policy.past() and not taken:
            return None
        yield Thinking()
        beside = policy.together(len(temperatures)) - 1
        batch = ALONE
        if purpose == "version":
            batch = drawing_together(Batch(together=beside + 1), policy, whole)
        elif beside:
            batch = drawing_together(Batch(beside=temperatures[1:beside + 1]), policy, choosing.whole)
        pieces: list[str] = []
        runaway = False

        def late() -> bool:
            nonlocal runaway
            runaway = purpose == "asserts" and choosing.runaway("".join(pieces))
            return runaway or (policy.past(DRAW_GRACE) and not taken)

        run = Returning(stream_reply(complete_beside(self.model, as_sent(messages), params, batch), pieces, late))
        for _unseen in run:
            pass
        reply, stopped = "".join(pieces), run.value.stop_reason
        cut = stopped == "time" and not runaway
        looped = stopped == "loop"
        marks = {"cut": cut, "runaway": runaway, "loop": looped}
        self.journal.record("aside", purpose=purpose, reply=reply, **{mark: True for mark, on in marks.items() if on})
        if cut:
            return None
        if runaway or looped:
            return choosing.whole_lines(reply) if purpose == "asserts" else ""
        return reply

    def _score(self, version: str, given: str, tests: list[str]) -> choosing.Scored | None:
        """Whether a version passes the request's examples, how many of the model's asserts, and what it gives for
        each, run unseen in a copy of the kernel's namespace (choosing.scoring); None when the kernel could not
        tell."""
        python = self.kernels.python
        if not python.is_alive():
            return None
        version = unimported.with_imports(version, self._unimported(version))
        run = Returning(python.execute(choosing.scoring(version, given, tests), timeout=SCORE_TIMEOUT))
        try:
            printed = "".join(item.text for item in run if isinstance(item, OutputChunk) and item.stream == "stdout")
        except KernelError:
            return None
        finally:
            run.gen.close()
        return choosing.score(printed)

    def _keep(self, code: str) -> Generator[Event, None, None]:
        """No version of the function gave every value of the request's examples: the one that gave the most is
        defined again, so that it, not the last drawn, is the one the kernel holds (policy.best_version)."""
        yield Notice("No version of the function gave every value your examples show; defining again the one that "
                     "gave the most of them.", "warning")
        self.journal.record("keep_version", code=code)
        done: ExecutionDone = yield from self.executor.run(CodeBlock("python", code), confirmed=True)
        if done.status == "ok":
            self._add("user", self.prompts.kept.safe_substitute(code=code), "note")

    def _run_blocks(self, policy: TurnPolicy, blocks: list[CodeBlock],
                    feedback: list[str]) -> Generator[Event, None, End | None]:
        """Runs blocks up to the first failure, adding what each did to `feedback`; End when the turn ends now."""
        for block in blocks:
            if block.inferred:
                yield Notice(f"Taking this part of the reply as {block.language} code:\n{block.code}")
            # The code run may have imports put above it; the policy knows the block by the model's code (a reply
            # that sends it again repeats it) and the version by the code run (done.code).
            ran = yield from self._imported(block)
            done: ExecutionDone
            if emptied := guard.empties(ran.language, ran.code, self._sources):
                yield Notice(f"Not running the model's code: it would write over {emptied}, which the request reads; "
                             "asking it again.", "warning")
                done = self._refused(ran, emptied)
            else:  # a file the request reads that the code changed anyway is put back (safekeep.py)
                done = yield from safekeep.guarded(self.keeping, self._executed(ran, block.checks), self.journal,
                                                   lambda item: self.prompts.restored.safe_substitute(
                                                       file=item.name, how=item.how, target=self._targets[0]))
            verdict = policy.on_execution(block, done)
            if isinstance(verdict, End):
                return verdict
            feedback.append(self.feedback.execution(done, request_checks=block.checks, values=self._values(done)))
            if done.note:
                feedback.append(done.note)
            notes = self.notes.after(done)
            policy.noted(notes)
            feedback.extend(notes)
            if verdict and done.status == "ok" and done.language == "python":
                verdict = yield from self._save_copies(policy, done.code, feedback)
                if isinstance(verdict, End):
                    return verdict
            if not verdict:
                return None
        return None

    def _refused(self, block: CodeBlock, file: str) -> ExecutionDone:
        """The code is not run: it would write over a file the request reads (guard.py). The model is told so as a
        failure, which counts as an attempt."""
        self.journal.record("refused", language=block.language, code=block.code, file=file)
        error = self.prompts.emptied.safe_substitute(file=file, target=self._targets[0]).strip()
        return ExecutionDone(block.language, block.code, "error", "", error, 0.0)

    def _save_copies(self, policy: TurnPolicy, code: str,
                     feedback: list[str]) -> Generator[Event, None, End | bool]:
        """Code that ran cleanly was a changed copy of a script the request asked to change, and the file is as it
        was: the change is saved into the file, which runs (copies.py). As on_execution: End, or whether to go on."""
        for script in self._scripts:
            if not copies.copied(script, code):
                continue
            yield Notice(f"That code ran a changed copy of {script.name}, and {script.name} itself is unchanged on "
                         "disk: saving the change into it and running it.", "warning")
            self.journal.record("save_copy", path=str(script.path), before=script.text)
            block = copies.save_block(script, code)
            done: ExecutionDone = yield from self.executor.run(block)
            if done.status == "declined":
                return True  # the user keeps the file as it is; the model was told (prompts/declined.md)
            verdict = policy.on_execution(block, done)
            if isinstance(verdict, End):
                return verdict
            feedback.append(self.prompts.saved.safe_substitute(file=script.name,
                                                               feedback=self.feedback.execution(done)))
            if not verdict:
                return False
        return True

    def _values(self, done: ExecutionDone) -> values.Seen | None:
        """After a clean Python run that printed nothing: what the names it assigned hold (values.py)."""
        if done.language != "python" or done.status != "ok" or done.output.strip():
            return None
        names = values.assigned(done.code)
        return values.seen(self._evaluate(values.expressions(names)), names) if names else None

    def _unimported(self, code: str) -> list[str]:
        """The imports Python code needs above it: names it uses and never binds, from prompts/imports.json, whose
        module the kernel can import and that it does not hold, or holds as that module's object without a clean
        run having bound it (unimported.lacking)."""
        wanted = unimported.needed(code, self.prompts.imports)
        clean = self.executor.clean_names
        asked = {name: unimported.lacking(name, line, name in clean) for name, line in wanted.items()}
        lacking = self._evaluate(asked) if asked else {}
        return [line for name, line in wanted.items() if lacking.get(name, "True") == "True"]

    def _imported(self, block: CodeBlock) -> Generator[Event, None, CodeBlock]:
        """The block with the imports it needs and lacks put above it, said and journaled (unimported.py)."""
        lines = self._unimported(block.code) if block.language == "python" else []
        if not lines:
            return block
        yield Notice(f"The code uses what it does not import; adding before it: {'; '.join(lines)}.")
        self.journal.record("imports_added", imports=lines)
        return replace(block, code=unimported.with_imports(block.code, lines))

    def _executed(self, block: CodeBlock, checks: bool) -> Generator[Event, None, ExecutionDone]:
        """Runs a block; when a module it needs is missing, offers to install it and runs it again."""
        done: ExecutionDone = yield from self.executor.run(block, confirmed=checks)
        return (yield from self._offer_install(block, done)) if done.status == "error" else done

    def _offer_install(self, block: CodeBlock, done: ExecutionDone) -> Generator[Event, None, ExecutionDone]:
        """A module the code needs is missing: offers to install it (packages.py), then runs the block again."""
        sandbox = self.kernels.sandbox  # under its no-network rule nothing is installed (pip would only fail)
        return (yield from self.packages.after_failure(
            done, block, lambda code: self.executor.run(code, confirmed=True), may_ask=self.state.interactive,
            auto=self.config.auto_install, network=not sandbox.active or sandbox.policy.network,
        ))

    def _reflect(self, feedback: str) -> str:
        """One short model call that names the cause of a repeated failure in a sentence (as in Reflexion); the
        next attempt sees it. It is sent the whole conversation, so it reuses the cached prompt and the next call
        re-evaluates only the feedback message; it does not enter the history."""
        question = self.prompts.reflect.safe_substitute(feedback=feedback)
        messages: list[Message] = [*self.context(), {"role": "user", "content": question}]
        reply, _ = complete_text(self.model, messages, GenParams(max_tokens=60, temperature=0.0))
        cause = " ".join(reply.split())
        cause = cause.split(". ")[0].strip()[:300]
        self.journal.record("reflection", cause=cause)
        return cause

    def _call_model(self, params: GenParams, late: Callable[[], bool] = _never,
                    batch: Batch = ALONE) -> Generator[Event, None, str]:
        """One call in view: the reply streams, enters the history and the journal; `late()`: its time is up, it is
        cut there (stream_reply). `batch`: the replies decoded beside it where the model can (models/together.py)."""
        condensed = self._fit_window()
        if condensed:
            self.journal.record("condense", **asdict(condensed))
            yield Notice(condensed.describe())
        messages = self.context()
        if late() and waiting(self.model, messages, params):
            late = _never  # a reply decoded beside an earlier one is taken whole, at once: nothing to cut
        yield Thinking()
        pieces: list[str] = []
        started = time.monotonic()
        stream = complete_beside(self.model, messages, params, batch)
        try:
            stats = yield from stream_reply(stream, pieces, late)
        except (KeyboardInterrupt, GeneratorExit, SystemExit):  # SystemExit: SIGTERM, SIGHUP (cli.py)
            stream.close()
            self._add("assistant", "".join(pieces), "reply", interrupted=True)
            self._add("user", self.prompts.interrupted, "note")
            raise
        reply = "".join(pieces)
        self.last_stats = stats
        figures = asdict(stats) | {"ttft_s": round(stats.ttft_s, 4), "decode_tps": round(stats.decode_tps, 2)}
        self.journal.record("model_call", **figures, duration_s=round(time.monotonic() - started, 3),
                            input_tail=messages[-1], **({"opening": True} if params.opening else {}))
        self._add("assistant", reply, "reply", **({"cut": True} if stats.stop_reason == "time" else {}))
        yield ReplyDone(reply, stats)
        return reply

    def _fit_window(self) -> Condensed | None:
        """Condenses the history when the next prompt and a reply would not fit the model's window."""
        reply_room = min(self.config.max_tokens or self.model.n_ctx, self.model.n_ctx // 2)
        return fit(
            self.prefix(), self.history, self.model.n_ctx - reply_room,
            lambda messages: self.model.count_tokens(as_sent(messages)),
            self.config.condense, self._summarize,
        )

    def _summarize(self, dropped: list[Message]) -> str:
        """One short model call that summarizes messages about to leave the window (--condense summary). Its own
        system prompt takes the cache's place, so the fixed prefix is put back after it (models/prefix_cache.py: read
        from disk), else the next call evaluates the whole prefix again, and with a small window a session condenses
        often. (Sent after the prefix instead, the summary would share the cache, but a small model follows the
        few-shot and summarizes in code blocks.)"""
        transcript = "\n".join(f"{m['role']}: {m['content']}" for m in dropped)[-self.model.n_ctx * 2:]
        messages: list[Message] = [{"role": "system", "content": self.prompts.summarize},
                                   {"role": "user", "content": transcript}]
        summary = complete_text(self.model, messages, GenParams(max_tokens=128, temperature=0.0))[0]
        warm_prefix(self.model, as_sent(self.prefix()))
        return summary


def drawing_together(batch: Batch, policy: TurnPolicy, ends: Callable[[str], str | None]) -> Batch:
    """Replies decoded together (models/together.py) stop where a reply shown would be stopped (`ends`: reply.whole,
    or choosing.whole for asserts), and those beside the one shown are given up when it would be cut
    (policy.overdue)."""
    if batch.together <= 1 and not batch.beside:
        return batch
    left = policy.seconds_left()
    return replace(batch, whole=ends, deadline=time.monotonic() + left if left else 0.0)
