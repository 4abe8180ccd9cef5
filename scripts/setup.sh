# Sourced by scripts/test.sh and scripts/run-main.sh: makes .venv (Python
# 3.11+), builds the Rust extension and installs the airtcp package and its
# `airtcp` command into it. Idempotent; a re-run rebuilds only what changed.
# Set PYTHON to choose the interpreter, AIRTCP_EXTRAS to add pip extras,
# AIRTCP_CARGO_PROFILE to build the extension with another cargo profile
# than release (the test command uses `ci`, shared with its cargo test).

_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$_root"

_pick_python() {
    if [ -n "${PYTHON:-}" ]; then echo "$PYTHON"; return; fi
    for p in python3.11 python3.12 python3.13 python3; do
        if command -v "$p" >/dev/null 2>&1 &&
            "$p" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$p"; return
        fi
    done
    echo "error: airtcp needs Python >= 3.11 (set PYTHON=...)" >&2
    return 1
}

if [ ! -x .venv/bin/python ]; then
    py="$(_pick_python)"
    echo "==> creating .venv with $py"
    "$py" -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip
fi
# shellcheck disable=SC1091
source .venv/bin/activate

echo "==> installing airtcp into .venv (builds the Rust extension, profile ${AIRTCP_CARGO_PROFILE:-release})"
python -m pip install -q "maturin>=1.5,<2"
# No build isolation: maturin is already here, and pip need not fetch it again.
_spec="."
if [ -n "${AIRTCP_CARGO_PROFILE:-}" ]; then
    export MATURIN_PEP517_ARGS="--profile ${AIRTCP_CARGO_PROFILE}"
fi
if [ -n "${AIRTCP_EXTRAS:-}" ]; then _spec=".[${AIRTCP_EXTRAS}]"; fi
python -m pip install -q --no-build-isolation -e "$_spec"
