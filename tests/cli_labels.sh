#!/usr/bin/env bash
# cli_labels.sh — every ctest test of the build carries exactly one of the
# labels quick, accuracy, slow (tests/CMakeLists.txt says which and why), so
# `ctest -L quick` is the whole quick set and nothing falls between labels.
# Reads the build's own test list (ctest --show-only=json-v1) in the
# directory of the smsim binary it is given.
# Usage: bash tests/cli_labels.sh /path/to/build/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -euo pipefail
SMSIM=${1:?usage: cli_labels.sh /path/to/build/smsim}
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
B=$(dirname "$SMSIM")
[ -f "$B/CTestTestfile.cmake" ] || { echo "no CTestTestfile.cmake in $B: skipped"; exit 77; }
ctest --test-dir "$B" --show-only=json-v1 | python3 -c '
import json, sys
known = {"quick", "accuracy", "slow"}
bad = 0
tests = json.load(sys.stdin)["tests"]
for t in tests:
    labels = []
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            labels = p["value"]
    mine = [l for l in labels if l in known]
    if len(mine) != 1:
        print("FAIL: test %s has labels %s, want exactly one of quick, accuracy, slow"
              % (t["name"], labels or "none"))
        bad = 1
if not tests:
    print("FAIL: no tests listed")
    bad = 1
sys.exit(bad)
'
echo "cli_labels: ok"
