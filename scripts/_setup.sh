# Sourced by scripts/run and scripts/test: makes .venv and installs interp into it when needed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="${PYTHON:-python3}"
STAMP="$VENV/.interp-installed"
WANT="$(cat "$ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)"

if [ ! -x "$VENV/bin/python" ]; then
    echo "interp: creating $VENV" >&2
    "$PY" -m venv "$VENV"
fi
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
    echo "interp: installing (the first time builds llama-cpp-python from source: a few minutes)" >&2
    export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e "$ROOT[test]" 2>&1 \
        | grep -v "is ignored: it is neither a file nor a directory" >&2 || true
    "$VENV/bin/python" -c "import interp, llama_cpp, jupyter_client, ipykernel" \
        || { echo "interp: installation failed" >&2; exit 1; }
    echo "$WANT" > "$STAMP"
fi
