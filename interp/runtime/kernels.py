"""The session's kernels: Python from the start, and one per other language, started when a block first needs it."""

from __future__ import annotations

import os

from jupyter_client.kernelspec import KernelSpecManager

from interp.runtime import carry
from interp.runtime.kernel import Kernel
from interp.runtime.kernel_api import KernelError
from interp.runtime.sandbox import Sandbox


def installed_languages() -> dict[str, str]:
    """Language name -> kernelspec name, for every Jupyter kernel installed (the first spec wins per language)."""
    found: dict[str, str] = {}
    for name, info in sorted(KernelSpecManager().get_all_specs().items()):
        language = str(info.get("spec", {}).get("language", "")).lower()
        if language:
            found.setdefault(language, name)
    return found


class Kernels:
    """The session's KernelPool of real kernels, all started under its sandbox whenever the sandbox is on."""

    def __init__(self, python: Kernel, sandbox: Sandbox | None = None) -> None:
        self.python = python
        self.sandbox = sandbox or Sandbox.off()
        self._others: dict[str, Kernel] = {}

    def available(self) -> list[str]:
        return sorted({"python", "shell", *installed_languages()})

    def get(self, language: str) -> Kernel | None:
        """The kernel for a language, started now if need be; None when no kernel for it is installed."""
        if language == "python":
            return self.python
        if language not in self._others:
            spec = installed_languages().get(language)
            if spec is None:
                return None
            # Where the Python kernel is now: a `cd` there (or in a shell block) applies to every language.
            kernel = Kernel(cwd=self.python.working_directory() or os.getcwd(), kernel_name=spec, sandbox=self.sandbox)
            try:
                kernel.start()
                kernel.wait_ready()
            except KernelError:
                kernel.shutdown()
                raise
            self._others[language] = kernel
        return self._others[language]

    def confine(self) -> tuple[bool, list[str]]:
        """Puts the kernels under the sandbox before auto-run: the Python kernel is restarted confined with its
        variables carried across (carry.py); kernels of other languages end, to start again confined when needed."""
        if self.sandbox.active or self.sandbox.setting == "off" or self.sandbox.existing:
            return True, []
        if (refusal := self.sandbox.enable()) is not None:
            return False, [refusal]
        notes = [f"Sandbox on: {self.sandbox.policy.describe()}."]
        saved_file = self.python.private_folder / "carried.pickle"
        try:
            saved = carry.save(self.python, saved_file)
        except carry.CarryError as exc:
            saved = None
            notes.append(f"The kernel's variables could not be read ({exc}); they are lost.")
        for kernel in self._others.values():
            kernel.shutdown()
        if self._others:
            notes.append("Kernels of other languages were ended (their variables too); they start again, "
                         "sandboxed, when next needed.")
        self._others.clear()
        self.python.restart()
        if saved is not None:
            try:
                notes.append("The kernel was restarted inside it: " + carry.restore(self.python, saved_file, saved)
                             .describe() + ".")
            except carry.CarryError as exc:
                notes.append(f"The kernel was restarted inside it; its variables could not be restored ({exc}).")
        return True, notes

    def restart(self) -> None:
        """A fresh Python kernel; kernels of other languages end and start again when next needed."""
        for kernel in self._others.values():
            kernel.shutdown()
        self._others.clear()
        self.python.restart()

    def shutdown(self) -> None:
        for kernel in [*self._others.values(), self.python]:
            kernel.shutdown()
        self._others.clear()
