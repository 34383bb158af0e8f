#!/usr/bin/env bash
# twentyone's autograder set-up: Gradescope runs it once, as root, when it builds the autograder's image (from
# /autograder/source); the PrairieLearn bundle's Dockerfile runs it in the image.  It installs:
#   - the system packages the grader needs, with apt-get, and only those that are missing: a C and C++
#     compiler (students' files are compiled here), binutils (addr2line names a crash's source line) and the
#     Python the wheel was built for, with its venv module;
#   - twentyone, from the wheel beside this script, into a virtual environment: $TWENTYONE_PREFIX/twentyone-venv
#     ($TWENTYONE_PREFIX is /autograder unless set).  Its dependencies come from the wheels/ folder beside this
#     script when the bundle holds one (built with --wheelhouse: no network needed), else from pip's own
#     configuration (PyPI, or the index, find-links and cache that PIP_* and pip.conf name).
# Run again, it changes nothing that is already there.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PREFIX="${TWENTYONE_PREFIX:-/autograder}"
VENV="$PREFIX/twentyone-venv"
PY_VERSION="@PY_VERSION@"
WHEEL="$HERE/@WHEEL@"

say() { echo "twentyone setup: $*"; }
find_python() {
    for candidate in "python$PY_VERSION" python3; do
        local found
        found="$(command -v "$candidate" 2>/dev/null)" || continue
        if "$found" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$PY_VERSION'.split('.'))))" \
            2>/dev/null; then
            echo "$found"
            return 0
        fi
    done
    return 1
}

missing=()
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v addr2line >/dev/null 2>&1 || missing+=(binutils)
[ -e /usr/include/stdio.h ] || missing+=(libc6-dev)
PY="$(find_python || true)"
if [ -z "$PY" ]; then
    missing+=("python$PY_VERSION" "python$PY_VERSION-venv")
elif ! "$PY" -c "import ensurepip, venv" >/dev/null 2>&1; then
    missing+=("python$PY_VERSION-venv")
fi
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
    PY="$(find_python || true)"
fi
if [ -z "$PY" ]; then
    say "error: no Python $PY_VERSION here, and apt-get could not install python$PY_VERSION: use an image that" \
        "has it, or build the bundle with that image's Python"
    exit 1
fi

if [ ! -x "$VENV/bin/twentyone" ]; then
    say "installing $(basename "$WHEEL") into $VENV"
    "$PY" -m venv "$VENV"
    if [ -d "$HERE/wheels" ]; then
        "$VENV/bin/python" -m pip install --quiet --no-index --find-links "$HERE/wheels" "$WHEEL"
    else
        "$VENV/bin/python" -m pip install --quiet "$WHEEL"
    fi
fi
"$VENV/bin/twentyone" --version
# Whether this host can confine the students' code: the line names the sandbox's layers, or what is missing.
"$VENV/bin/python" -c "from twentyone.players.sandbox.doctor import layers_line; print('twentyone setup:', layers_line())" \
    || say "warning: this host cannot confine untrusted code: every submission will be refused (see above)"
