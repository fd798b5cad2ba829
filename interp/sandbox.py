"""What code may touch: the sandbox policy, what this OS can enforce, and how a kernel is put under it.

One policy for the session (`--sandbox`, `--allow-net`, `--allow-write`). `auto`, the default, sandboxes code while it
runs without asking (`-y`, or after `a` / `%auto on`) and leaves code the user confirms block by block as it is.
The OS enforces it on the kernel and everything the kernel starts: on Linux `_confine.py` (Landlock and a network
namespace) runs in the kernel's process before the kernel itself; on macOS the kernel starts under `sandbox-exec`.
A kernel already running when auto-run is turned on keeps its state: it is confined in place (see `Sandbox.enable`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING

import platformdirs

if TYPE_CHECKING:
    from interp.kernel import Kernel

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
    # Writable places the model is not told of: the session's output folder, whose name is new each session. Named in
    # the system prompt it made every session's prompt new, so the prefix's saved state was never loaded again (the
    # prefix was evaluated anew and another state saved at each start) and a fixed seed sampled other replies.
    unnamed: tuple[str, ...] = ()

    @property
    def named(self) -> tuple[str, ...]:
        """The writable places the system prompt names."""
        return tuple(path for path in self.writable if path not in self.unnamed)

    def describe(self) -> str:
        net = "network allowed" if self.network else "no network"
        return f"{self.mode}: writes only in {', '.join(self.writable)}; {net}"


@dataclass(frozen=True)
class Enforcement:
    """What this machine can enforce: Linux's Landlock ABI and network namespaces, or macOS's sandbox-exec."""

    system: str  # 'linux', 'macos' or another platform's name
    landlock_abi: int = 0
    netns: bool = False

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
        return f"Landlock ABI {self.landlock_abi} ({', '.join(layers)}), {net}"


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
        return Enforcement("linux", int(out[0]), out[1] == "1")
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return Enforcement("linux")


def build(mode: str, cwd: str, outputs: Path | None, allow_write: Sequence[str], allow_net: bool) -> Policy:
    """The policy of a mode: `workspace` writes in the working directory, the temp directory and the session's output
    folder; `read-only` only in the temp directory; both in every --allow-write path."""
    extra = []
    for path in allow_write:
        resolved = os.path.realpath(os.path.expanduser(path))
        if not os.path.exists(resolved):
            raise SandboxError(f"--allow-write {path}: no such file or folder (create it first)")
        extra.append(resolved)
    places = [tempfile.gettempdir()]
    unnamed: list[str] = []
    if mode == "workspace":
        places[:0] = [cwd]
        if outputs is not None:
            places.append(str(outputs))
            unnamed.append(os.path.realpath(outputs))
    writable = tuple(dict.fromkeys(os.path.realpath(p) for p in [*places, *extra]))
    return Policy(mode, writable, allow_net, tuple(path for path in unnamed if path not in extra))


def kernel_environment() -> dict[str, str]:
    """What a confined kernel's environment changes: IPython's folder, since the user's (~/.ipython) is not writable
    there and must not be (its startup files run in every later kernel, sandboxed or not). A confined kernel starts
    without the user's IPython profile and keeps its input history in memory. And matplotlib's folder: where its own
    (~/.cache/matplotlib) is not there yet, it warned on stderr that it could not make it and built its font cache
    anew in every session; its folder for confined kernels is one of interp's, writable to them (kernel_writable)."""
    return {"IPYTHONDIR": str(ipython_dir()), "MPLCONFIGDIR": str(matplotlib_dir())}


def matplotlib_dir() -> Path:
    """matplotlib's config and cache folder for confined kernels (made when first needed)."""
    folder = Path(platformdirs.user_cache_dir("interp")) / "matplotlib-sandbox"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def kernel_writable(policy: Policy) -> list[str]:
    """Where a kernel started confined may write: the policy's places, and the tools' folder that
    kernel_environment gives it (not said to the model: code has no business there)."""
    return [*policy.writable, os.path.realpath(matplotlib_dir())]


_IPYTHON_CONFIG = """# Written by interp for its sandboxed kernels, which cannot write here: input history in memory.
c.HistoryManager.hist_file = ":memory:"
"""


def ipython_dir() -> Path:
    """An IPython folder that a kernel can start from without writing anything (made once, in interp's cache): the
    folders IPython makes at start already there, and history in memory. Made beside and renamed into place, so
    sessions starting together never see half of one."""
    target = Path(platformdirs.user_cache_dir("interp")) / "ipython-sandbox"
    profile = target / "profile_default"
    if (profile / "ipython_kernel_config.py").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="ipython-", dir=target.parent))
    for name in ("log", "pid", "startup"):
        (staging / "profile_default" / name).mkdir(parents=True)
    (staging / "profile_default" / "security").mkdir(mode=0o700)  # the mode IPython checks for
    (staging / "profile_default" / "startup" / "README").write_text("IPython's startup folder (interp's sandbox).\n")
    (staging / "profile_default" / "ipython_kernel_config.py").write_text(_IPYTHON_CONFIG)
    staging.chmod(0o755)
    try:
        staging.rename(target)
    except OSError:  # another session made it first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def guard_options(policy: Policy, enforcement: Enforcement) -> list[str]:
    """Arguments for the kernel guard, which confines the kernel's process before the kernel runs (Linux)."""
    if enforcement.system != "linux":
        return []
    spec = {"writable": kernel_writable(policy), "network": policy.network, "netns": enforcement.netns,
            "env": kernel_environment()}
    return ["--confine", json.dumps(spec)]


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
             "(allow file-write* " + " ".join(f"(subpath {_sbpl(p)})" for p in kernel_writable(policy)),
             "  " + " ".join(f"(literal {_sbpl(d)})" for d in ("/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx"))
             + ' (regex #"^/dev/ttys[0-9]+$"))']
    if not policy.network:
        lines += ["(deny network*)", "(allow network* (local unix-socket))", "(allow network* (remote unix-socket))"]
    return "\n".join(lines) + "\n"


def in_place_source(policy: Policy) -> str:
    """Python that confines a running kernel's main thread, and every process and thread it starts from then on."""
    return (f"def __interp_confine():\n"
            f"    ns = {{'__name__': '_confine'}}\n"
            f"    exec({_CONFINE.read_text(encoding='utf-8')!r}, ns)\n"
            f"    ns['restrict']({list(policy.writable)!r}, {policy.network!r}, ns['landlock_abi']())\n"
            f"__interp_confine()\n"
            f"del __interp_confine\n")


_DENIED_PATH = re.compile(r"Permission denied: '([^']+)'|'([^']+)': Permission denied|(?:^|\s)(/[^\s:']+): "
                          r"Permission denied|cannot create (\S+): Permission denied", re.MULTILINE)
_NET_DENIED = re.compile(r"\[Errno 13\] Permission denied(?!:)|Network is unreachable|"
                         r"Temporary failure in name resolution|Name or service not known")


def explain(policy: Policy, text: str, cwd: str) -> str | None:
    """Which rule of the policy denied what `text` (a run's output and error) reports, if one did."""
    for match in _DENIED_PATH.finditer(text):
        path = os.path.realpath(os.path.join(cwd, os.path.expanduser(next(g for g in match.groups() if g))))
        if not any(path == w or path.startswith(w.rstrip("/") + "/") for w in policy.writable):
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
    in_place: bool = False  # confined while running (threads it had already started are not)
    cwd: str = field(default_factory=os.getcwd)

    @classmethod
    def configure(cls, setting: str, cwd: str, outputs: Path, allow_write: Sequence[str], allow_net: bool,
                  existing: str | None) -> Sandbox:
        """The session's sandbox from its settings, and what this OS can enforce (not probed when it is off)."""
        policy = build("read-only" if setting == "read-only" else "workspace", cwd, outputs, allow_write, allow_net)
        enforcement = probe() if setting != "off" and not existing else Enforcement(sys.platform)
        return cls(setting, policy, enforcement, existing=bool(existing), cwd=cwd)

    @classmethod
    def off(cls) -> Sandbox:
        return cls("off", Policy("workspace", ()), Enforcement(sys.platform))

    def _make_places(self) -> None:
        for path in self.policy.writable:  # the output folder is made when first needed; a rule needs it now
            os.makedirs(path, mode=0o700, exist_ok=True)

    def start(self, auto_run: bool) -> tuple[list[str], str | None]:
        """Decides whether kernels start confined; returns the notices to show once, and a refusal (a reason not to
        run at all) when auto-run is asked for and cannot be sandboxed."""
        if self.setting == "off":
            return [], None
        if self.existing:
            return ["The attached kernel (--existing) is outside interp's control: no sandbox."], None
        wanted = self.setting != "auto" or auto_run
        if not self.enforcement.available:
            reason = f"this system cannot enforce the sandbox ({self.enforcement.describe()})"
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
        return self.policy.describe() + (" (applied to the running kernel)" if self.in_place else "")

    def enable(self, python: Kernel) -> tuple[bool, list[str]]:
        """Before auto-run starts: confines the running Python kernel in place, so its variables survive (restarting
        it under the sandbox would lose them). Landlock confines the thread that runs code and all it starts from
        now on; threads already started are not covered, and no network namespace can be entered now (TCP is still
        denied). Returns whether auto-run may start, and what to tell the user."""
        if self.setting == "off" or self.existing or self.active:
            return True, []
        if not self.enforcement.available or self.enforcement.system != "linux":
            return False, [f"Auto-run needs the sandbox, which cannot be applied here "
                           f"({self.enforcement.describe()}); pass --sandbox off to auto-run without it."]
        self._make_places()
        assert python.client is not None  # the session's kernel is ready before any code runs
        reply = python.client.execute_interactive(in_place_source(self.policy), silent=True, store_history=False,
                                                  timeout=30)
        if reply["content"].get("status") != "ok":
            return False, [f"Auto-run needs the sandbox, which the kernel could not apply: "
                           f"{reply['content'].get('evalue')}; pass --sandbox off to auto-run without it."]
        self.active = self.in_place = True
        return True, [f"Sandbox on: {self.policy.describe()}. Variables are kept; threads the code had already "
                      "started are not confined."]

    def explain(self, text: str) -> str | None:
        """Which rule denied what a run reports, while the sandbox is on."""
        return explain(self.policy, text, self.cwd) if self.active else None

    def prompt(self, template: Template) -> str:
        """The sandbox's paragraph of the system prompt; empty while code is not sandboxed."""
        if not self.active:
            return ""
        net = "It can reach the network." if self.policy.network else "It has no network access."
        return template.safe_substitute(mode=self.policy.mode, writable=", ".join(self.policy.named), network=net)
