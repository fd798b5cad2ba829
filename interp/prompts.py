"""Loads the prompt files in prompts/ and fills them in."""

from __future__ import annotations

import functools
import json
import os
import platform
from dataclasses import dataclass, fields
from pathlib import Path
from string import Template
from typing import Any

import psutil

from interp.common.prompt_files import prompts_dir
from interp.models.base import Message
from interp.models.gguf import read_header
from interp.rules import templates

SMALL = "small"  # prompts/small/: what a model under SMALL_PARAMETERS reads instead of the file of the same name
SMALL_PARAMETERS = 1_000_000_000


def machine_facts(cwd: str | None = None) -> dict[str, str]:
    """Facts about this computer for the system prompt. Nothing here changes during a session (the KV cache
    reuses the rendered prompt only while it stays byte-identical)."""
    return {
        "os": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "python": platform.python_version(),
        "cpus": str(psutil.cpu_count(logical=True) or 1),
        "ram_gb": f"{psutil.virtual_memory().total / 2**30:.0f}",
        "cwd": cwd or os.getcwd(),
    }


@functools.cache  # read once per file a process loads: the CLI asks for the warmed prefix and for the session
def profile(model_file: Path | None) -> str | None:
    """SMALL for a GGUF of under a billion parameters, else None (a bigger model, or a remote or scripted one). A
    model that small copies the shape of the default few-shot (a one-line print) and prints answers it typed in; its
    own prompts show code that computes the answer from the request's data. A bigger model does better with the
    default prompts, so the small ones are for models this small alone."""
    if model_file is None or model_file.suffix.lower() != ".gguf":
        return None
    return SMALL if read_header(model_file, with_tensors=True).parameters < SMALL_PARAMETERS else None


_NOT_FILES = {"system", "examples", "attach_hints", "packages", "install_why", "imports", "rules", "small"}
HINT_CHARS = 2000  # of what follows an error (hints, the failing line's parts), whatever produced it


@dataclass
class Prompts:
    """The rendered system prompt, the few-shot messages and the feedback templates."""

    system: str
    examples: list[Message]
    function: str  # the system prompt of a turn whose request asks for a function to be written (examples.stubs)
    output: Template
    error: Template
    declined: str
    interrupted: str
    cut: str  # after a version being drawn was cut, its time up (policy.schedule.overdue)
    summarize: str
    stuck: str
    reflect: Template
    verify: Template
    check_failed: Template
    checks_passed: str
    request_check_failed: Template
    request_checks_passed: str
    silent: Template  # a clean run that printed nothing: what the names it set hold (values.py)
    silent_empty: Template  # ... and some of them are empty
    unchanged: Template
    restored: Template  # code changed or removed a file the request reads, put back from its copy (safekeep.py)
    redrawn: Template  # a reply that repeated code, drawn again from the request and what that code was told
    kept: Template  # after a turn's versions of a function all failed its examples: the one defined again (choose.py)
    choose: str  # asks for asserts on inputs a written function's examples do not cover (choosing.py)
    choose_other: Template  # asks again when those asserts only repeated the examples (choosing.py)
    chosen: Template  # another version passed more of those asserts: the one defined now (choosing.py)
    saved: Template  # a changed copy of a script, saved into it by interp and run (copies.py)
    ran: Template  # code the user ran (%edit), as the model is told of it
    cause: Template  # a reflection's answer, added to the feedback
    revived: str  # noted in the output of code that ran in a kernel replaced before the run
    resumed: str  # a conversation resumed in a new kernel (--resume)
    unfinished: str  # ... whose last run was cut off when interp was stopped (kill -9)
    notebook_loaded: Template  # what the model is told after %load FILE.ipynb ran the cells
    attach: Template  # an @path's preview
    named: Template  # the preview of an existing file the request names without @
    attach_hints: dict[str, str]  # by kind of file: how Python reads it
    missing_module: Template
    missing_reminder: Template
    missing_installed: Template  # the failed code's other modules that are installed
    packages: dict[str, str]  # import name -> distribution name, where they differ
    install_why: dict[str, str]  # why a missing module is not being installed, by reason
    imports: dict[str, str]  # names code often uses unimported -> the import that defines each (unimported.py)
    sandbox: Template
    recall: Template  # observations recalled from memory (recall.py), put before a request
    state: Template  # what the kernel holds, put before a request (state_view.py)
    rules: dict[str, Template]  # the rules' templates by rule id (interp/rules/templates.py)
    small: bool = False  # the small prompts (profile SMALL): request.previews_on and Turn._unpreviewed act on it

    @classmethod
    def load(cls, folder: Path | None = None, cwd: str | None = None, profile: str | None = None) -> Prompts:
        """The prompts in `folder` (prompts/); with a `profile`, its subfolder's files take the place of theirs."""
        folder = folder or prompts_dir()

        def text(name: str) -> str:
            own = folder / profile / name if profile else None
            return (own if own and own.is_file() else folder / name).read_text(encoding="utf-8").strip()

        packages = json.loads(text("packages.json"))
        # Every other field is the file of its name: a `str` field its text, a `Template` field its template.
        files: dict[str, Any] = {
            f.name: Template(text(f"{f.name}.md")) if f.type == "Template" else text(f"{f.name}.md")
            for f in fields(cls) if f.name not in _NOT_FILES}
        return cls(
            system=Template(text("system.md")).safe_substitute(machine_facts(cwd), code_rule=text("code_rule.md")),
            examples=json.loads(text("examples.json")),
            attach_hints=json.loads(text("attach_hints.json")),
            packages=packages["distributions"],
            install_why=packages["why"],
            imports=json.loads(text("imports.json"))["imports"],
            rules=templates.load(folder, profile),
            small=profile == SMALL,
            **files,
        )

    def missing(self, module: str, package: str, why: str, installed: list[str] | None = None) -> str:
        """What the model is told when a module it imported is not installed, and why it is not being installed;
        `installed`: the code's other modules that are."""
        note = self.missing_module.safe_substitute(module=module, package=package, why=self.install_why[why])
        if installed:
            note += "\n" + self.missing_installed.safe_substitute(modules=", ".join(installed), module=module)
        return note

    def prefix(self, extra: str = "", function: bool = False) -> list[Message]:
        """What every prompt starts with: the system prompt (with `extra`, the sandbox's paragraph, appended) and
        the few-shot examples; with `function`, the function-writing prompt alone (with `extra`)."""
        system = "\n\n".join(filter(None, [self.function if function else self.system, extra]))
        return [{"role": "system", "content": system}, *([] if function else self.examples)]

    def feedback(self, output: str, error: str | None, language: str = "python", hint: str | None = None) -> str:
        """The message that tells the model what its code did; `hint` says more about an error (rules/errors/)."""
        if error:
            lead = f"{output.rstrip()}\n" if output.strip() else ""
            fence = "bash" if language == "shell" else language
            if hint and len(hint) > HINT_CHARS:  # every hint is bounded by its own rule; this is the message's
                hint = hint[:HINT_CHARS] + " ..."
            return self.error.safe_substitute(output=lead, error=error, language=fence,
                                              hint=f"{hint}\n" if hint else "")
        return self.output.safe_substitute(output=output.rstrip() or "(no output)")
