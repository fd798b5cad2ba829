"""Confines the calling process and all it will start, through the Linux kernel: Landlock and a network namespace.

Standard library only, and no imports from interp: the kernel guard runs this file (it starts with `python -I`, which
cannot import interp), in the kernel's process between fork and exec; a kernel already running gets it as source.

- Files: Landlock handles every write right (write, truncate, create, remove, rename and link); reads and execution
  stay unhandled, so they are allowed everywhere. Rules grant the write rights under each writable path, plus the
  device files every program writes to (/dev/null, terminals, /dev/shm). A denied write fails with EACCES.
- Network, unless allowed: Landlock (ABI 4+) denies every TCP bind and connect (EACCES, "Permission denied"), and
  abstract unix sockets outside the sandbox (ABI 6+); a new user and network namespace, where the OS lets an
  unprivileged process make one, leaves no interface but a down loopback, which stops UDP and ICMP too. Unix sockets
  with a path in the filesystem are not network: they stay reachable (Jupyter's IPC channels are such sockets).
- Signals (ABI 6+): code cannot signal processes outside the sandbox (interp, the user's other programs).
- Mounts, where the OS lets an unprivileged process make a user namespace: in a mount namespace of its own, every
  filesystem is read-only but the writable places, so metadata writes that Landlock does not handle (chmod, chown,
  utime, xattrs) fail outside them too; the protected places (interp's own folders, IPython's and Jupyter's) are
  read-only even inside a writable place; the folder of every session's kernel channels is hidden but this kernel's.
"""

from __future__ import annotations

import ctypes
import os
import stat

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_NEWNS = 0x10000000, 0x40000000, 0x00020000
_MS_RDONLY, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 1 << 12, 1 << 14, 1 << 18
_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1

# Landlock's write rights (linux/landlock.h): REFER came with ABI 2, TRUNCATE with 3; only these two apply to a file.
_WRITE_FILE, _REMOVE_DIR, _REMOVE_FILE, _MAKE_CHAR, _MAKE_DIR = 1 << 1, 1 << 4, 1 << 5, 1 << 6, 1 << 7
_MAKE_REG, _MAKE_SOCK, _MAKE_FIFO, _MAKE_BLOCK, _MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
_REFER, _TRUNCATE = 1 << 13, 1 << 14
_FILE_RIGHTS = _WRITE_FILE | _TRUNCATE
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1
# Written by nearly every program: harmless sinks, terminals, and POSIX shared memory (multiprocessing's locks).
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                ("userns_fd", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _check(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers; 0 when it has none or it is disabled."""
    result = _libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(result), 0)


def _write_rights(abi: int) -> int:
    rights = (_WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE_CHAR | _MAKE_DIR | _MAKE_REG | _MAKE_SOCK | _MAKE_FIFO
              | _MAKE_BLOCK | _MAKE_SYM)
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    return rights


def restrict(writable: list[str], network: bool, abi: int) -> None:
    """Applies Landlock to the calling thread and all it starts from now on: writes only under `writable` (and the
    usual devices); unless `network`, no TCP and no abstract unix sockets outside; no signals outside."""
    handled = _write_rights(abi)
    size = ctypes.sizeof(ctypes.c_uint64) * (3 if abi >= 6 else 2 if abi >= 4 else 1)
    attr = _RulesetAttr(handled, 0, 0)
    if not network and abi >= 4:
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
    if abi >= 6:
        attr.scoped = _SCOPE_SIGNAL | (0 if network else _SCOPE_ABSTRACT_UNIX)
    ruleset = _check(_libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)),
                     "landlock_create_ruleset")
    try:
        for path in [*writable, *DEVICES]:
            _allow_writes(ruleset, path, handled)
        _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(_libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def _allow_writes(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a path that does not exist (no /dev/tty in a container) needs no rule
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        _check(_libc.syscall(_ADD_RULE, ruleset, ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                             ctypes.c_uint32(0)), f"landlock_add_rule({path})")
    finally:
        os.close(fd)


def enter_namespaces(network: bool, mounts: bool) -> None:
    """Moves the calling process, which must have one thread, into a new user namespace with the same user and group
    IDs, and new network (no interface but a loopback that stays down) and mount namespaces as asked. Raises OSError
    where the OS forbids it."""
    uid, gid = os.getuid(), os.getgid()
    flags = _CLONE_NEWUSER | (_CLONE_NEWNET if network else 0) | (_CLONE_NEWNS if mounts else 0)
    _check(_libc.unshare(flags), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        fd = os.open(f"/proc/self/{name}", os.O_WRONLY)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)
    if mounts:  # nothing done here may reach the namespace interp runs in
        _check(_libc.mount(None, b"/", None, ctypes.c_ulong(_MS_REC | _MS_PRIVATE), None), "mount(private)")


def _set_readonly(path: str, readonly: bool, recursive: bool) -> None:
    attr = _MountAttr(_MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else _MOUNT_ATTR_RDONLY, 0, 0)
    _check(_libc.syscall(_MOUNT_SETATTR, ctypes.c_int(_AT_FDCWD), os.fsencode(path),
                         ctypes.c_uint(_AT_RECURSIVE if recursive else 0), ctypes.byref(attr),
                         ctypes.c_size_t(ctypes.sizeof(attr))), f"mount_setattr({path})")


def _bind(source: str, target: str) -> None:
    _check(_libc.mount(os.fsencode(source), os.fsencode(target), None, ctypes.c_ulong(_MS_BIND | _MS_REC), None),
           f"mount(bind {target})")


def _depth(path: str) -> int:
    return path.rstrip("/").count("/")


def _hide(folder: str, name: str | None, keep_fd: int | None) -> None:
    """Covers `folder` with an empty tmpfs that holds only `name`, bound to the folder `keep_fd` opens (nothing at
    all without them)."""
    _check(_libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", ctypes.c_ulong(0), b"mode=0700"),
           f"mount(tmpfs {folder})")
    if name is None or keep_fd is None:
        return
    place = os.path.join(folder, name)
    os.mkdir(place, 0o700)
    _bind(f"/proc/self/fd/{keep_fd}", place)
    _set_readonly(place, False, recursive=False)


def _between(protected: list[str], writable: list[str]) -> set[str]:
    """The folders strictly between a writable place and a protected place inside it (`~/.config` between `~` and
    `~/.config/interp`)."""
    found = set()
    for place in protected:
        for root in writable:
            if place.startswith(root.rstrip("/") + "/"):
                parent = os.path.dirname(place)
                while len(parent) > len(root.rstrip("/")) and parent.startswith(root.rstrip("/") + "/"):
                    found.add(parent)
                    parent = os.path.dirname(parent)
    return found


def seal(writable: list[str], protected: list[str], hidden: str | None, own: str | None) -> None:
    """In the calling process's own mount namespace: everything read-only, then the writable places writable again
    (shallowest first), then the protected places read-only again; `hidden` (a folder) covered by an empty one that
    holds only `own`, a folder of its that stays reachable (nothing, without `own`). Each folder between a writable
    place and a protected place in it is made a mount point too: a mount point cannot be renamed or removed (EBUSY),
    so code cannot move the protected place away with its parent and put a folder of its own in its place."""
    own_fd = os.open(own, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) if hidden and own else None
    open_places = sorted({os.path.realpath(p) for p in [*writable, "/dev/shm", "/dev/pts"] if os.path.isdir(p)},
                         key=_depth)
    shut = sorted({os.path.realpath(p) for p in protected if os.path.isdir(p)}, key=_depth)
    try:
        _set_readonly("/", True, recursive=True)
        for path in [*open_places, *sorted(_between(shut, open_places), key=_depth)]:
            _bind(path, path)
            _set_readonly(path, False, recursive=False)
        for path in shut:
            _bind(path, path)
            _set_readonly(path, True, recursive=True)
        if hidden and os.path.isdir(hidden):
            _hide(hidden, os.path.basename(own) if own else None, own_fd)
    finally:
        if own_fd is not None:
            os.close(own_fd)
    os.chdir(os.getcwd())  # the working directory was entered below the mounts made here: enter it through them


def confine(spec: dict) -> None:
    """Applies a spec made by interp/runtime/sandbox.py: {"writable": [...], "network": bool, "netns": bool,
    "mounts": bool, "protected": [...], "hidden": PATH, "own": PATH}."""
    abi = landlock_abi()
    if abi < 1:
        raise OSError("Landlock is not available")
    network_ns = not spec["network"] and bool(spec.get("netns"))
    mounts = bool(spec.get("mounts"))
    if network_ns or mounts:
        enter_namespaces(network_ns, mounts)
    if mounts:
        seal(spec["writable"], spec.get("protected", []), spec.get("hidden"), spec.get("own"))
    restrict(spec["writable"], spec["network"], abi)


def _probe_mounts() -> int:
    """Whether a process can seal its filesystems (seal's steps, on the root alone, in a throwaway child)."""
    pid = os.fork()
    if pid == 0:
        try:
            enter_namespaces(network=False, mounts=True)
            _set_readonly("/", True, recursive=True)
            os._exit(0)
        except BaseException:
            os._exit(1)
    return int(os.waitpid(pid, 0)[1] == 0)


def probe() -> str:
    """What this machine can enforce, as 'ABI NETNS MOUNTS' (run in a child process: it makes namespaces to find
    out)."""
    mounts = _probe_mounts()
    try:
        enter_namespaces(network=True, mounts=False)
        netns = 1
    except OSError:
        netns = 0
    return f"{landlock_abi()} {netns} {mounts}"


if __name__ == "__main__":
    print(probe())
