"""The places interp keeps for its kernels (their private folders, IPython's and matplotlib's folders for confined
kernels) and the places sandboxed code may never write (interp's own, IPython's and Jupyter's folders)."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import platformdirs
from jupyter_core.paths import jupyter_config_dir, jupyter_data_dir


def protected() -> list[str]:
    """Places confined code must never write, even inside a writable place: interp's own settings, data, caches and
    installation, and IPython's and Jupyter's folders, whose startup files and kernelspecs run in later kernels that
    are not confined."""
    places = [platformdirs.user_config_dir("interp"), platformdirs.user_data_dir("interp"),
              platformdirs.user_cache_dir("interp"), str(runtime_root()), *installed(),
              os.environ.get("IPYTHONDIR") or os.path.expanduser("~/.ipython"), jupyter_config_dir(),
              jupyter_data_dir()]
    return list(dict.fromkeys(os.path.realpath(p) for p in places))


def installed() -> list[str]:
    """Where interp itself lies: its environment (sys.prefix) and its package."""
    return [os.path.realpath(sys.prefix), os.path.realpath(Path(__file__).parent.parent)]


_UID = os.getuid() if hasattr(os, "getuid") else 0  # Windows has no user IDs: a folder there is the user's own


def inside(path: str, places: Sequence[str]) -> bool:
    """Whether `path` is one of `places` or lies below one."""
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in places)


def _private_folder(path: Path) -> Path:
    """`path` as a folder of this user's alone (made if need be); a fresh one beside it when something else holds the
    name (another user's folder, or a link planted in a shared temp directory)."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=True)
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == _UID:
        return path
    return Path(tempfile.mkdtemp(prefix=path.name + "-", dir=path.parent))


_SOCKET_ROOM = 70  # of a socket's 107 bytes, what the temp directory may take (its folders and name take the rest)


def runtime_root() -> Path:
    """Where the kernels' private folders (connection file and sockets) are made. On Linux one place for all of the
    user's sessions, whatever XDG_RUNTIME_DIR or TMPDIR says (a confined kernel is shown only its own folder there, so
    sessions started with and without them must agree): the runtime folder the system made for the user
    (/run/user/UID), else /tmp/interp-UID. Elsewhere a folder of the user's in the temp directory."""
    if sys.platform.startswith("linux"):
        system = Path(f"/run/user/{_UID}")
        with contextlib.suppress(OSError):
            info = os.lstat(system)
            if stat.S_ISDIR(info.st_mode) and info.st_uid == _UID:
                return _private_folder(system / "interp")
        return _private_folder(Path("/tmp") / f"interp-{_UID}")
    temp = tempfile.gettempdir()
    if len(temp) > _SOCKET_ROOM and os.path.isdir("/tmp"):  # a socket's path holds at most 107 bytes
        temp = "/tmp"
    return _private_folder(Path(temp) / f"interp-{_UID}")


def kernel_environment() -> dict[str, str]:
    """What a confined kernel's environment changes: IPython's folder, since the user's (~/.ipython) is not writable
    there and must not be (its startup files run in every later kernel, sandboxed or not). A confined kernel starts
    without the user's IPython profile and keeps its input history in memory. And matplotlib's folder: where its own
    (~/.cache/matplotlib) is not there yet, it warned on stderr that it could not make it and built its font cache
    anew in every session; its folder for confined kernels is in the temp directory, writable to them."""
    return {"IPYTHONDIR": str(ipython_dir()), "MPLCONFIGDIR": str(matplotlib_dir())}


def matplotlib_dir() -> Path:
    """matplotlib's config and cache folder for confined kernels (made when first needed), kept across sessions."""
    return _private_folder(Path(tempfile.gettempdir()) / f"interp-matplotlib-{_UID}")


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
