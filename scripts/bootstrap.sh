#!/bin/sh
# Install smsim's build dependencies (Debian 12 package names) and build it.
# Used by the README's first command and by .ci/run, so both do the same.
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
cd "$(dirname "$0")/.."
# SMSIM_PGO=on (default) or off: the profile-guided build below
case "${SMSIM_PGO:-on}" in
on | off) ;;
*) echo "bootstrap.sh: SMSIM_PGO='$SMSIM_PGO': expected on or off" >&2; exit 2 ;;
esac
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    build-essential cmake pkg-config libyaml-dev libgsl-dev libcmocka-dev \
    liblzma-dev zlib1g-dev gnuplot-nox parallel python3 >/dev/null
# Profile-guided build (docs/performance.md): an instrumented smsim runs the
# sample traces, then the tree is rebuilt with that profile.  SMSIM_PGO=off
# in the environment builds once, without a profile.
if [ "${SMSIM_PGO:-on}" = "off" ]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSMSIM_PGO=
else
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSMSIM_PGO=generate
    cmake --build build -j"$(nproc)" --target smsim
    sh scripts/pgo-train.sh build
    cmake -S . -B build -DSMSIM_PGO=use
fi
cmake --build build -j"$(nproc)"
