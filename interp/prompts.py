"""Loads the prompt files in prompts/ and fills them in."""

from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path
from string import Template

import psutil

from interp.models.base import Message


def prompts_dir() -> Path:
    """prompts/ inside an installed wheel, else the one at the top of a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "prompts", here.parent / "prompts"):
        if (candidate / "system.md").is_file():
            return candidate
    raise FileNotFoundError(f"interp's prompts folder is missing (looked in {here / 'prompts'})")


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


@dataclass
class Prompts:
    """The rendered system prompt, the few-shot messages and the feedback templates."""

    system: str
    examples: list[Message]
    output: Template
    error: Template
    declined: str
    interrupted: str
    summarize: str
    empty: str
    stuck: str
    reflect: Template
    ran: Template  # code the user ran (%edit), as the model is told of it
    cause: Template  # a reflection's answer, added to the feedback
    revived: str  # noted in the output of code that ran in a kernel replaced before the run
    sandbox: Template
    recall: Template  # observations recalled from memory (recall.py), put before a request

    @classmethod
    def load(cls, folder: Path | None = None, cwd: str | None = None) -> Prompts:
        folder = folder or prompts_dir()

        def text(name: str) -> str:
            return (folder / name).read_text(encoding="utf-8").strip()

        return cls(
            system=Template(text("system.md")).safe_substitute(machine_facts(cwd)),
            examples=json.loads(text("examples.json")),
            output=Template(text("output.md")),
            error=Template(text("error.md")),
            declined=text("declined.md"),
            interrupted=text("interrupted.md"),
            summarize=text("summarize.md"),
            empty=text("empty.md"),
            stuck=text("stuck.md"),
            reflect=Template(text("reflect.md")),
            ran=Template(text("ran.md")),
            cause=Template(text("cause.md")),
            revived=text("revived.md"),
            sandbox=Template(text("sandbox.md")),
            recall=Template(text("recall.md")),
        )

    def prefix(self, extra: str = "") -> list[Message]:
        """What every prompt starts with: the system prompt (with `extra`, the sandbox's paragraph, appended) and
        the few-shot examples."""
        system = "\n\n".join(filter(None, [self.system, extra]))
        return [{"role": "system", "content": system}, *self.examples]

    def feedback(self, output: str, error: str | None, language: str = "python") -> str:
        """The message that tells the model what its code did."""
        if error:
            lead = f"{output.rstrip()}\n" if output.strip() else ""
            fence = "bash" if language == "shell" else language
            return self.error.safe_substitute(output=lead, error=error, language=fence)
        return self.output.safe_substitute(output=output.rstrip() or "(no output)")
