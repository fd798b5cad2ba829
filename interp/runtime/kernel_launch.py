"""How interp launches a kernel: under its guard process, under the sandbox when it is on, and never from a module
planted in the working directory."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from string import Template

from jupyter_client import KernelManager
from jupyter_client.kernelspec import KernelSpec

from interp.runtime import sandbox as _sandbox

_GUARD = Path(__file__).parent / "_kernel_guard.py"


class GuardedKernelManager(KernelManager):
    """Starts the kernel under _kernel_guard.py, which ends everything the kernel started when interp goes, and
    under the session's sandbox when it is on at that moment (a restart looks again)."""

    sandbox: _sandbox.Sandbox | None = None
    spec_env: dict[str, str] = {}

    @property
    def kernel_spec(self) -> KernelSpec | None:
        """The kernelspec without its `env`, which the guard gives to the kernel's process alone (jupyter_client
        would give it to the process it starts: the guard, which is not confined)."""
        if self._kernel_spec is None and self.kernel_name != "" and os.name == "posix":
            spec = self.kernel_spec_manager.get_kernel_spec(self.kernel_name)
            self.spec_env = dict(spec.env)
            self._kernel_spec = KernelSpec(**{**spec.to_dict(), "env": {}}, resource_dir=spec.resource_dir)
        return super().kernel_spec

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        command = super().format_kernel_cmd(extra_arguments)
        if os.name != "posix":
            return command
        prefix: list[str] = []
        options: list[str] = []
        rundir = str(Path(self.connection_file).parent)
        if self.sandbox is not None and (policy := self.sandbox.launch_policy()) is not None:
            prefix = _sandbox.command_prefix(policy, self.sandbox.enforcement)
            options = _sandbox.guard_options(policy, self.sandbox.enforcement, rundir)
        if self.spec_env:  # filled from interp's environment, as jupyter_client fills it (`${PATH}`)
            env = {key: Template(value).safe_substitute(os.environ) for key, value in self.spec_env.items()}
            options += ["--env", json.dumps(env)]
        return [*prefix, sys.executable, "-I", str(_GUARD), rundir, *options, "--", *safe_launch(command)]


def safe_launch(command: list[str]) -> list[str]:
    """A kernel command `python [options] -m MODULE ...` that does not look for MODULE in the working directory first
    (`-m` puts it at the head of the path, so an `ipykernel_launcher.py` planted there would run in place of the
    kernel). The kernel still puts the working directory on the path for the code's own imports."""
    try:
        at = command.index("-m", 1)
    except ValueError:
        return command
    if at + 1 >= len(command) or not all(part.startswith("-") for part in command[1:at]):
        return command
    launch = (f"import runpy, sys; del sys.path[0]; "
              f"runpy.run_module({command[at + 1]!r}, run_name='__main__', alter_sys=True)")
    return [*command[:at], "-c", launch, *command[at + 2:]]
