#!/bin/bash
# cli_python.sh — the Python package python/ (issue #21 item 10): installed
# with pip from the repository (no package index: --no-index
# --no-build-isolation, setuptools and pandas from the system) into a
# temporary directory, then python/examples/quickstart.py runs every
# function on this build's smsim and checks what it gets.  Skipped (77)
# when no Python with pandas is found; without pip the package is used
# from python/ as it is.
# Usage: bash tests/cli_python.sh /path/to/smsim   (from the repository root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_python.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PY=
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null && "$p" -c 'import pandas' 2>/dev/null; then
        PY=$p
        break
    fi
done
[ -n "$PY" ] || { echo "no python3 with pandas: skipped"; exit 77; }
site=$PWD/python
if "$PY" -m pip --version >/dev/null 2>&1 && "$PY" -c 'import setuptools' 2>/dev/null; then
    cp -r python "$TMP/src" # the build's scratch files stay out of the tree
    if ! "$PY" -m pip install --quiet --no-index --no-build-isolation --no-deps \
        --target "$TMP/site" "$TMP/src" >"$TMP/pip.log" 2>&1; then
        echo "FAIL: pip install of python/: $(tail -5 "$TMP/pip.log")"
        exit 1
    fi
    [ -f "$TMP/site/smsim/__init__.py" ] || { echo "FAIL: pip installed no smsim package"; exit 1; }
    site=$TMP/site
fi
if ! SMSIM=$SMSIM PYTHONPATH=$site "$PY" python/examples/quickstart.py >"$TMP/out" 2>&1; then
    echo "FAIL: python/examples/quickstart.py ($site):"
    tail -20 "$TMP/out"
    exit 1
fi
tail -1 "$TMP/out"
