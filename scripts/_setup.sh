# Sourced by scripts/run and scripts/test: makes .venv and installs interp into it when needed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
STAMP="$VENV/.interp-installed"
WANT="$(sha256sum < "$ROOT/pyproject.toml" | cut -d' ' -f1)"

if [ ! -x "$VENV/bin/python" ]; then
    echo "interp: creating $VENV" >&2
    "$PY" -m venv "$VENV"
fi
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
    echo "interp: installing (the first time builds llama-cpp-python from source and fetches the 1.1 GB default" \
         "model: a few minutes)" >&2
    export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
    LOG="$VENV/install.log"
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[test]" >"$LOG" 2>&1; then
        grep -v "is ignored: it is neither a file nor a directory" "$LOG" >&2 || true
        echo "interp: installation failed (pip's output above, also in $LOG)" >&2
        exit 1
    fi
    # Checked from outside the repo: there, `import interp` works only if interp is really installed.
    (cd / && "$VENV/bin/python" -c "import interp, llama_cpp, jupyter_client, ipykernel") \
        || { echo "interp: installation failed: the packages do not import (see $LOG)" >&2; exit 1; }
    echo "$WANT" > "$STAMP"
fi
