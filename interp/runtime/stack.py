"""The analyst's libraries interp installs for its kernel, what a kernel's Python has of them, and importing them
ahead of the first request that needs them."""

from __future__ import annotations

import subprocess

# Distribution names, in the order --info lists them.
ANALYST = ("numpy", "pandas", "matplotlib", "scipy", "scikit-learn", "statsmodels", "seaborn", "openpyxl", "pyarrow")
# Imported in the background once a REPL's kernel is ready: pandas (with numpy) takes a second or more to import, and
# data requests nearly always begin with it.
WARM = ("pandas",)

_VERSIONS = ("import importlib.metadata as m\n"
             "for name in {names!r}:\n"
             "    try:\n        print(name, m.version(name))\n"
             "    except m.PackageNotFoundError:\n        print(name, '-')\n")


def versions(python: str) -> dict[str, str | None]:
    """The version of each analyst's library that `python` has (None where it has none); empty when it cannot
    tell. Read from the packages' metadata, isolated and confined as the interpreter check is (kernel_choice)."""
    from interp.runtime.kernel_choice import SITE_PATHS
    from interp.runtime.sandbox import isolated

    try:
        out = subprocess.run(isolated([python, "-I", "-S", "-c", SITE_PATHS + _VERSIONS.format(names=ANALYST)]),
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    found = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    return {name: None if found.get(name, "-") == "-" else found[name] for name in ANALYST}


def lines(python: str) -> list[str]:
    """What --info says of the kernel's libraries."""
    found = versions(python)
    if not found:
        return [f"kernel libraries: unknown ({python} did not answer)"]
    have = [f"{name} {version}" for name, version in found.items() if version]
    missing = [name for name, version in found.items() if not version]
    return ["kernel libraries: " + (", ".join(have) or "none of the analyst's")] + (
        [f"not in the kernel: {', '.join(missing)}"] if missing else [])
