# Defined inside the Python kernel at start: runs a shell block with live output, in the kernel's working
# directory, and carries a `cd` made by the block back into the kernel, so Python and shell share one directory.
def __interp_shell(script):
    import os
    import subprocess
    import sys
    import tempfile

    class ShellError(Exception):
        pass

    fd, cwd_file = tempfile.mkstemp(prefix="interp-cwd-")
    os.close(fd)
    wrapped = f"trap 'pwd > {cwd_file}' EXIT\n{script}\n"
    proc = subprocess.Popen(
        ["bash", "-c", wrapped], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )
    try:
        while chunk := os.read(proc.stdout.fileno(), 65536):
            sys.stdout.write(chunk.decode("utf-8", errors="replace"))
            sys.stdout.flush()
        proc.wait()
    except KeyboardInterrupt:
        proc.kill()
        proc.wait()
        raise
    finally:
        with open(cwd_file) as f:
            new_cwd = f.read().strip()
        os.unlink(cwd_file)
        if new_cwd and os.path.isdir(new_cwd):
            os.chdir(new_cwd)
    if proc.returncode:
        raise ShellError(f"exit status {proc.returncode}")
