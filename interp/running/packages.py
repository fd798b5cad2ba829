"""Code that failed for want of a module: offer to `%pip install` its package into the kernel's own environment,
and otherwise tell the model plainly that the module is not installed, so that it stops importing it, and which of
the code's other modules are, so that it keeps them."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Generator
from dataclasses import replace

from interp.common.events import Event, ExecutionDone, InstallOffer, Notice
from interp.common.extract import CodeBlock
from interp.prompts import Prompts

_MISSING = re.compile(r"ModuleNotFoundError: No module named '(?P<name>[^']+)'")
_DISTRIBUTION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")  # nothing a shell or pip could take as an option

Run = Callable[[CodeBlock], Generator[Event, None, ExecutionDone]]


def missing_module(error: str | None) -> str | None:
    """The module a traceback says is missing, or None. The last such line counts (the one that ended the run)."""
    found = _MISSING.findall(error or "")
    return found[-1] if found else None


def imports(code: str) -> list[str]:
    """The top-level modules Python code imports, in order, without the standard library's; none when it does not
    parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    names += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
              and not node.level]
    return [name for name in dict.fromkeys(n.split(".")[0] for n in names) if name not in sys.stdlib_module_names]


def importable(evaluate: Callable[[dict[str, str]], dict[str, str]], modules: list[str]) -> list[str]:
    """Which of these modules the kernel can import, asked through `evaluate` (the kernel's user_expressions)
    without importing them."""
    found = evaluate({name: f"__import__('importlib.util').util.find_spec({name!r}) is not None" for name in modules})
    return [name for name in modules if found.get(name) == "True"]


def can_import(evaluate: Callable[[dict[str, str]], dict[str, str]]) -> Callable[[str], bool]:
    """Whether the kernel can import one module (the rules' Facts.importable): rules whose advice assumes a library
    apply only where it can."""
    return lambda module: bool(importable(evaluate, [module]))


def distribution(module: str, table: dict[str, str]) -> str | None:
    """The package that provides a missing top-level module, or None: a missing submodule ('numpy.foo') of a
    package that imported is no package to install, unless the table names one ('google.protobuf')."""
    if module in table:
        return table[module]
    if "." in module:
        return None
    return module if _DISTRIBUTION.match(module) else None


class Packages:
    """Offers to install what code found missing, and remembers what the model was told is not installed, so that
    later failures in the session remind it (a small model drifts back to a module it was told is missing)."""

    def __init__(self, prompts: Prompts, installed: Callable[[list[str]], list[str]] = lambda names: []) -> None:
        self.prompts = prompts
        self._installed = installed  # which of these modules the kernel can import (asked of it, Session)
        self.missing: dict[str, str] = {}  # module -> package, for each the model was told is not installed

    def after_failure(
        self, done: ExecutionDone, block: CodeBlock, run: Run, *, may_ask: bool, auto: bool, network: bool,
    ) -> Generator[Event, None, ExecutionDone]:
        """After a failed run: when a module was missing, asks to install its package (unless `auto`; never
        without `network`), installs it with `%pip install` in the kernel and runs the block again. Otherwise,
        or when the module is still missing, returns the failed run with a note for the model that says so."""
        module = missing_module(done.error)
        package = distribution(module, self.prompts.packages) if module else None
        if module is None or package is None:
            return self._remind(done)
        if not network:
            why = "no_network"
            yield Notice(f"{module} is not installed, and the sandbox forbids the network: it cannot be installed.",
                         "warning")
        elif auto or may_ask:
            accepted = auto
            if not auto:
                yield Notice(f"The module {module} is not installed (package {package}).", "warning")
                offer = InstallOffer(module, package)
                yield offer
                accepted = offer.answer == "y"
            why = "declined"
            if accepted:
                yield from run(CodeBlock("python", f"%pip install {package}"))
                again = yield from run(block)
                if missing_module(again.error) != module:
                    self.missing.pop(module, None)
                    return again if again.status == "ok" else self._remind(again)
                done, why = again, "failed"
        else:
            why = "no_terminal"
            yield Notice(f"{module} is not installed; without a terminal to ask, it is installed only when the "
                         "config allows it (auto_install = true).", "warning")
        self.missing[module] = package
        # The code's other modules that are installed: told only to use the standard library, a model may drop the
        # parts that needed them (a plot) and answer with less than was asked.
        others = [name for name in imports(block.code) if name != module.split(".")[0] and name not in self.missing]
        return replace(done, note=self.prompts.missing(module, package, why, self._installed(others) if others else []))

    def _remind(self, done: ExecutionDone) -> ExecutionDone:
        if not self.missing:
            return done
        return replace(done, note=self.prompts.missing_reminder.safe_substitute(modules=", ".join(self.missing)))
