# Defined inside the Python kernel at start: interp's own helpers there.


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
