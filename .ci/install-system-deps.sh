#!/usr/bin/env bash
# Install what the notebooks' pictures and the real-browser check need
# beyond the Python packages: the `dot` program (graphviz pictures),
# Debian's Chromium and the Python `playwright` package that drives it
# (tests/browser).  Safe to run again: apt-get and pip skip what is there.
#
# Usage: .ci/install-system-deps.sh [VENV]     (default VENV: .venv)
#
# Without root or without apt-get (a developer's laptop) the system
# packages are skipped quietly; the browser check then skips itself.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv}"

have_all() {
    command -v dot >/dev/null 2>&1 && command -v chromium >/dev/null 2>&1
}

if have_all; then
    :
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends graphviz chromium \
        >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$VENV"
fi
PY="$VENV/bin/python"
if ! "$PY" -c 'import playwright' >/dev/null 2>&1; then
    # Only the Python package: `playwright install` cannot download
    # browsers here; the tests use /usr/bin/chromium instead.
    "$PY" -m pip install --quiet playwright
fi
