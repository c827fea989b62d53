#!/bin/sh
# The training run of the profile-guided build (CMakeLists.txt, SMSIM_PGO):
# the sample traces of traces/ on the H100 config, one thread.  Not the
# `smsim bench` workloads, so the benchmark is not the training set
# (docs/performance.md).  Usage: scripts/pgo-train.sh BUILD_DIR
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
# stale profiles of an earlier build would be merged into this one's
find "$B" -name '*.gcda' -delete
for t in traces/*.trace; do
    "$B/smsim" --config configs/h100.yaml "$t" >/dev/null
done
