"""What code may touch: the sandbox policy, what this OS can enforce, and how a kernel is put under it.

One policy for the session (`--sandbox`, `--allow-net`, `--allow-write`). `auto`, the default, sandboxes code while it
runs without asking (`-y`, or after `a` / `%auto on`) and leaves code the user confirms block by block as it is.
The OS enforces it on the kernel and everything the kernel starts: on Linux `_confine.py` (Landlock, and network and
mount namespaces) runs in the kernel's process before the kernel itself; on macOS the kernel starts under
`sandbox-exec`. A kernel already running when auto-run is turned on is restarted confined, its variables carried
across where they can be (`carry.py`): confining it in place would leave its threads unconfined.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template

from interp.runtime.places import inside, installed, kernel_environment, protected, runtime_root

_CONFINE = Path(__file__).parent / "_confine.py"
_MACOS_SANDBOX = "/usr/bin/sandbox-exec"


class SandboxError(Exception):
    """A sandbox setting interp cannot use; the message is one line naming the fix."""


@dataclass(frozen=True)
class Policy:
    """What code may do: write only under `writable` (plus the usual devices); reach the network if `network`."""

    mode: str  # 'workspace' or 'read-only'
    writable: tuple[str, ...]
    network: bool = False

    def describe(self) -> str:
        net = "network allowed" if self.network else "no network"
        return f"{self.mode}: writes only in {', '.join(self.writable)}; {net}"


@dataclass(frozen=True)
class Enforcement:
    """What this machine can enforce: Linux's Landlock ABI and network namespaces, or macOS's sandbox-exec."""

    system: str  # 'linux', 'macos' or another platform's name
    landlock_abi: int = 0
    netns: bool = False
    mounts: bool = False  # a mount namespace of its own: filesystems read-only but the writable places

    @property
    def available(self) -> bool:
        return self.landlock_abi >= 1 or (self.system == "macos" and os.path.exists(_MACOS_SANDBOX))

    def describe(self) -> str:
        if self.system == "macos":
            return "sandbox-exec (untested)" if self.available else "none: no sandbox-exec"
        if not self.available:
            return f"none: {'Landlock is disabled or missing' if self.system == 'linux' else 'not Linux or macOS'}"
        layers = ["files"] + (["TCP"] if self.landlock_abi >= 4 else []) + (["signals"] if self.landlock_abi >= 6
                                                                           else [])
        net = "network namespace" if self.netns else "no network namespace (UDP not blocked)"
        mounts = ("read-only mounts (metadata: chmod, utime, xattrs)" if self.mounts
                  else "no mount namespace (chmod, utime and xattrs outside are not blocked)")
        return f"Landlock ABI {self.landlock_abi} ({', '.join(layers)}), {net}, {mounts}"


def probe() -> Enforcement:
    """Finds out what this OS can enforce (on Linux in a child process, since making a namespace changes the
    process that makes it)."""
    if sys.platform == "darwin":
        return Enforcement("macos")
    if not sys.platform.startswith("linux"):
        return Enforcement(sys.platform)
    try:
        out = subprocess.run([sys.executable, "-I", "-S", str(_CONFINE)], capture_output=True, text=True,
                             timeout=10, check=True).stdout.split()
        return Enforcement("linux", int(out[0]), out[1] == "1", out[2] == "1")
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return Enforcement("linux")


def build(mode: str, cwd: str, allow_write: Sequence[str], allow_net: bool) -> Policy:
    """The policy of a mode: `workspace` writes in the working directory and the temp directory; `read-only` only in
    the temp directory; both in every --allow-write path. The session's output folder is interp's to write, not the
    code's: a link the code planted there could send interp's own writes elsewhere."""
    extra = []
    for path in allow_write:
        if not path.strip():
            raise SandboxError("--allow-write needs a path (an empty one would be the working directory)")
        resolved = os.path.realpath(os.path.expanduser(path))
        if not os.path.exists(resolved):
            raise SandboxError(f"--allow-write {path}: no such file or folder (create it first)")
        extra.append(resolved)
    places = [cwd, tempfile.gettempdir()] if mode == "workspace" else [tempfile.gettempdir()]
    writable = tuple(dict.fromkeys(os.path.realpath(p) for p in [*places, *extra]))
    return Policy(mode, writable, allow_net)


def guard_options(policy: Policy, enforcement: Enforcement, rundir: str) -> list[str]:
    """Arguments for the kernel guard, which confines the kernel's process before the kernel runs (Linux). The
    kernel may write its own private folder (its sockets); it sees no other kernel's."""
    if enforcement.system != "linux":
        return []
    root = str(runtime_root())
    spec = {"writable": [*policy.writable, os.path.realpath(rundir)], "network": policy.network,
            "netns": enforcement.netns, "mounts": enforcement.mounts, "protected": protected(),
            "hidden": root if inside(os.path.realpath(rundir), [os.path.realpath(root)]) else None,
            "own": os.path.realpath(rundir), "env": kernel_environment()}
    return ["--confine", json.dumps(spec)]


_GUARD = Path(__file__).parent / "_kernel_guard.py"


def isolated(command: list[str], enforcement: Enforcement | None = None) -> list[str]:
    """`command` made to change nothing, for running a program that code may have changed (an interpreter in the
    workspace asked about itself): under the kernel guard with a policy that lets it write nowhere, reach no network
    and see no kernel's folder, where the OS can confine it (Linux with Landlock); as it is elsewhere."""
    enforcement = enforcement or probe()
    if enforcement.system != "linux" or not enforcement.available:
        return command
    spec = {"writable": [], "network": False, "netns": enforcement.netns, "mounts": enforcement.mounts,
            "protected": [], "hidden": str(runtime_root()), "own": None, "env": {}}
    return [sys.executable, "-I", str(_GUARD), "isolated", "--confine", json.dumps(spec), "--", *command]


def command_prefix(policy: Policy, enforcement: Enforcement) -> list[str]:
    """What the kernel's command line starts with (macOS: sandbox-exec and its profile)."""
    if enforcement.system != "macos":
        return []
    env = [f"{key}={value}" for key, value in kernel_environment().items()]
    return [_MACOS_SANDBOX, "-p", macos_profile(policy), "/usr/bin/env", *env]


def _sbpl(path: str) -> str:
    return json.dumps(path)  # SBPL strings take the same escapes as JSON's for quotes and backslashes


def macos_profile(policy: Policy) -> str:
    """A Seatbelt profile for sandbox-exec: everything allowed but writes outside `writable` and, unless allowed,
    the network; unix sockets stay open for the kernel's IPC channels."""
    lines = ["(version 1)", "(allow default)", "(deny file-write*)",
             "(allow file-write* " + " ".join(f"(subpath {_sbpl(p)})" for p in policy.writable),
             "  " + " ".join(f"(literal {_sbpl(d)})" for d in ("/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx"))
             + ' (regex #"^/dev/ttys[0-9]+$"))']
    if not policy.network:
        lines += ["(deny network*)", "(allow network* (local unix-socket))", "(allow network* (remote unix-socket))"]
    return "\n".join(lines) + "\n"


_DENIED_PATH = re.compile(r"(?:Permission denied|Read-only file system): '([^']+)'|'([^']+)': (?:Permission denied|"
                          r"Read-only file system)|(?:^|\s)(/[^\s:']+): (?:Permission denied|Read-only file system)|"
                          r"cannot create (\S+): (?:Permission denied|Read-only file system)", re.MULTILINE)
_NET_DENIED = re.compile(r"\[Errno 13\] Permission denied(?!:)|Network is unreachable|"
                         r"Temporary failure in name resolution|Name or service not known")


def explain(policy: Policy, text: str, cwd: str) -> str | None:
    """Which rule of the policy denied what `text` (a run's output and error) reports, if one did."""
    for match in _DENIED_PATH.finditer(text):
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(next(g for g in match.groups() if g))))
        if inside(path, protected()):
            return (f"Denied by the sandbox ({policy.mode}): {path} is in a folder of interp's, IPython's or "
                    "Jupyter's, which sandboxed code may never write.")
        if not inside(path, policy.writable):
            return (f"Denied by the sandbox ({policy.mode}): {path} is outside the writable places "
                    f"({', '.join(policy.writable)}); --allow-write PATH adds one, --sandbox off lifts it.")
    if not policy.network and _NET_DENIED.search(text):
        return f"Denied by the sandbox ({policy.mode}): no network; --allow-net lifts it."
    return None


@dataclass
class Sandbox:
    """The session's sandbox: its setting, the policy it enforces, and whether the kernels are under it now."""

    setting: str  # Config.sandbox: auto, workspace, read-only or off
    policy: Policy
    enforcement: Enforcement
    existing: bool = False  # an attached kernel: outside interp's control
    active: bool = False
    cwd: str = field(default_factory=os.getcwd)

    @classmethod
    def configure(cls, setting: str, cwd: str, allow_write: Sequence[str], allow_net: bool,
                  existing: str | None) -> Sandbox:
        """The session's sandbox from its settings, and what this OS can enforce (not probed when it is off)."""
        policy = build("read-only" if setting == "read-only" else "workspace", cwd, allow_write, allow_net)
        enforcement = probe() if setting != "off" and not existing else Enforcement(sys.platform)
        return cls(setting, policy, enforcement, existing=bool(existing), cwd=cwd)

    @classmethod
    def off(cls) -> Sandbox:
        return cls("off", Policy("workspace", ()), Enforcement(sys.platform))

    def _make_places(self) -> None:
        for path in self.policy.writable:  # a rule needs its place to exist
            os.makedirs(path, mode=0o700, exist_ok=True)
        # A protected place that does not exist yet cannot be kept read-only, and code could make it (a config file
        # that turns the sandbox off for the next session): those inside a writable place are made now, empty.
        for path in protected():
            if inside(path, self.policy.writable):
                os.makedirs(path, mode=0o700, exist_ok=True)

    def _unenforceable(self) -> str | None:
        """Why this system cannot keep the policy's promise, if it cannot."""
        if not self.enforcement.available:
            return f"this system cannot enforce the sandbox ({self.enforcement.describe()})"
        # The kernels' folder in a shared temp directory stays exposed without a mount namespace (README says so).
        exposed = [p for p in protected() if inside(p, self.policy.writable) and p != str(runtime_root())]
        if not exposed or self.enforcement.system != "linux" or self.enforcement.mounts:
            return None
        if inside(exposed[0], installed()):
            place = next(p for p in self.policy.writable if inside(exposed[0], [p]))
            return (f"interp's own installation ({exposed[0]}) lies in a place sandboxed code may write ({place}), "
                    "and this system cannot keep it read-only there (no user namespaces); install interp elsewhere")
        return (f"{exposed[0]} (interp's, IPython's or Jupyter's) lies in a writable place and this system "
                "cannot keep it read-only there (no user namespaces); start interp in a project folder")

    def start(self, auto_run: bool) -> tuple[list[str], str | None]:
        """Decides whether kernels start confined; returns the notices to show once, and a refusal (a reason not to
        run at all) when auto-run is asked for and cannot be sandboxed."""
        if self.setting == "off":
            return [], None
        if self.existing:
            return ["The attached kernel (--existing) is outside interp's control: no sandbox."], None
        wanted = self.setting != "auto" or auto_run
        if (reason := self._unenforceable()) is not None:
            if wanted:
                return [], f"{reason}; pass --sandbox off to run code without it"
            return [f"No sandbox: {reason}; auto-run (`a`) needs --sandbox off."], None
        if wanted:
            self._make_places()
            self.active = True
        return [], None

    def lines(self) -> list[str]:
        """What --config shows: the policy and what enforces it here."""
        if self.existing:
            return ["sandbox policy: off (an attached kernel is outside interp's control)"]
        if self.setting == "off":
            return ["sandbox policy: off"]
        when = "while code runs without asking" if self.setting == "auto" else "always"
        return [f"sandbox policy: {self.policy.describe()} ({when})",
                f"sandbox enforcement: {self.enforcement.describe()}"]

    def launch_policy(self) -> Policy | None:
        """The policy a kernel started now runs under, if any."""
        return self.policy if self.active else None

    def describe(self) -> str:
        if self.setting == "off" or self.existing:
            return "off"
        if not self.active:
            return f"{self.setting} (off until auto-run)" if self.setting == "auto" else "off"
        return self.policy.describe()

    def enable(self) -> str | None:
        """Before auto-run starts: turns the sandbox on for kernels started from now on; the reason it cannot, if it
        cannot (the caller then restarts the running kernels, for they are not under it)."""
        if self.setting == "off" or self.existing or self.active:
            return None
        reason = self._unenforceable() or (None if self.enforcement.system == "linux"
                                           else f"no sandbox for a running kernel here ({self.enforcement.describe()})")
        if reason is not None:
            return f"Auto-run needs the sandbox: {reason}; pass --sandbox off to auto-run without it."
        self._make_places()
        self.active = True
        return None

    def explain(self, text: str) -> str | None:
        """Which rule denied what a run reports, while the sandbox is on."""
        return explain(self.policy, text, self.cwd) if self.active else None

    def prompt(self, template: Template) -> str:
        """The sandbox's paragraph of the system prompt; empty while code is not sandboxed."""
        if not self.active:
            return ""
        net = "It can reach the network." if self.policy.network else "It has no network access."
        return template.safe_substitute(mode=self.policy.mode, writable=", ".join(self.policy.writable), network=net)
