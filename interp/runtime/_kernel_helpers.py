# Defined inside the Python kernel at start, then moved among its builtins (see the end): interp's own helpers there.


def __interp_import(name):
    """A module imported for interp's own work in the kernel (importing pandas ahead, reading a file's preview,
    carrying variables across), never from the working directory: code may have left a module of that name there, and
    interp's work runs before anyone confirms anything. A module already imported is taken as it is."""
    import importlib
    import os
    import sys

    if name in sys.modules:
        return sys.modules[name]
    here = os.path.realpath(os.getcwd())
    saved = sys.path[:]
    sys.path[:] = [p for p in saved if os.path.realpath(p or ".") != here]
    try:
        return importlib.import_module(name)
    finally:
        sys.path[:] = saved


# Runs a shell block with live output, in the kernel's working directory, and carries a `cd` made by the block back
# into the kernel, so Python and shell share one directory.
def __interp_shell(script):
    import os
    import shlex
    import signal
    import subprocess
    import sys
    import tempfile

    class ShellError(Exception):
        pass

    fd, cwd_file = tempfile.mkstemp(prefix="interp-cwd-")
    os.close(fd)
    wrapped = f"trap {shlex.quote('pwd > ' + shlex.quote(cwd_file))} EXIT\n{script}\n"
    # Its own process group (in the kernel's session, where interp's cleanup finds it), so Ctrl-C ends the
    # whole pipeline.
    group = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    proc = subprocess.Popen(
        ["bash", "-c", wrapped], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, **group
    )
    try:
        __interp_relay(proc)
    except KeyboardInterrupt:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        proc.stdout.close()
        with open(cwd_file) as f:
            new_cwd = f.read().strip()
        os.unlink(cwd_file)
        if new_cwd and os.path.isdir(new_cwd):
            os.chdir(new_cwd)
    if proc.returncode:
        raise ShellError(f"exit status {proc.returncode}")


def __interp_relay(proc):
    """Copies the shell's output to the kernel's stdout as it comes, until the shell exits: not until the pipe
    closes, since a job it left in the background (`sleep 99 &`) holds the pipe open."""
    import codecs
    import os
    import select
    import sys

    out = proc.stdout.fileno()
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def relay():
        chunk = os.read(out, 65536)
        sys.stdout.write(decoder.decode(chunk))
        sys.stdout.flush()
        return bool(chunk)

    while proc.poll() is None:
        if select.select([out], [], [], 0.1)[0] and not relay():
            break
    for _ in range(64):  # what is already in the pipe, without waiting for background jobs
        if not (select.select([out], [], [], 0)[0] and relay()):
            break
    proc.wait()


def __interp_state(most, width):
    """What the session's namespace holds, for interp to tell the model at each request: at most `most` names the
    user's code bound (no module, nothing private or IPython's own), each with what it is in a line of at most `width`
    characters: a frame's size and columns with their dtypes, a series's length and dtype, an array's shape, a
    container's length, a function's signature, a fitted model's class. Read without calling the objects' own code
    where that can be helped (no repr of an object of the user's class): a JSON list of [name, kind, detail]."""
    import inspect
    import json
    import types

    ip = get_ipython()  # noqa: F821 - defined in the kernel
    hidden = set(ip.user_ns_hidden) | {"In", "Out", "exit", "quit", "get_ipython"}
    found = []
    for name, value in list(ip.user_ns.items()):
        if len(found) >= most:
            break
        if name.startswith("_") or name in hidden or isinstance(value, types.ModuleType):
            continue
        try:
            kind, detail = __interp_describe(value, inspect, width)
        except Exception:
            kind, detail = type(value).__name__, ""
        found.append([name, kind, detail[:width]])
    return json.dumps(found)


def __interp_describe(value, inspect, width):
    """A value's kind and a line about it (see __interp_state)."""
    kind = type(value).__name__
    module = type(value).__module__ or ""
    if module.startswith("pandas") and kind == "DataFrame":
        columns = [f"{column} ({dtype})" for column, dtype in list(value.dtypes.items())[:40]]
        more = f", ... {value.shape[1] - 40} more" if value.shape[1] > 40 else ""
        return kind, f"{value.shape[0]} rows x {value.shape[1]} columns: {', '.join(columns)}{more}"
    if module.startswith("pandas") and kind == "Series":
        return kind, f"{len(value)} values, dtype {value.dtype}" + (f", named {value.name!r}" if value.name is not None
                                                                     else "")
    if module.startswith("numpy") and kind == "ndarray":
        return kind, f"shape {value.shape}, dtype {value.dtype}"
    if isinstance(value, (bool, int, float, complex)) or value is None:
        return kind, repr(value)
    if isinstance(value, (str, bytes)):
        shown = repr(value[:width])
        return kind, shown if len(value) <= width else f"{len(value)} characters: {shown}"
    if type(value) in (list, tuple, set, frozenset, dict):
        keys = f"; keys {', '.join(repr(k) for k in list(value)[:10])}" if isinstance(value, dict) else ""
        return kind, f"{len(value)} items{keys}"
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return "function", f"{value.__name__}{inspect.signature(value)}"
    if inspect.isclass(value):
        return "class", value.__name__
    if hasattr(type(value), "fit") and hasattr(type(value), "get_params"):  # a scikit-learn estimator
        fitted = any(k.endswith("_") and not k.startswith("_") for k in vars(value))
        return kind, "fitted" if fitted else "not fitted"
    return kind, ""


# The helpers live among the builtins, not in the user's namespace: `%reset` or `del` in the code does not remove them,
# and they are not the code's variables (carried, listed, told to the model).
def __interp_install():
    import builtins

    for name, value in list(globals().items()):
        if name.startswith("__interp_") and callable(value):
            setattr(builtins, name, value)
            del globals()[name]


__interp_install()
