#!/bin/bash
# cli_sass2trace_gen.sh — the committed validation traces are exactly what
# validate/gen-traces.sh makes from the committed H200 data (every point
# checked against ncu's smsp__inst_executed.sum by the script itself), and the
# manifest has the agreed format.
# Usage: bash tests/cli_sass2trace_gen.sh /path/to/smsim   (from the repo root)
# Skipped (77) only when python3, which the script uses to read ncu's CSVs, is absent.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_sass2trace_gen.sh /path/to/smsim}
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
if ! bash validate/gen-traces.sh "$SMSIM" "$TMP/traces" >"$TMP/log" 2>&1; then
    tail -5 "$TMP/log"
    fail "gen-traces.sh failed"
fi
n=$(grep -c ': ok$' "$TMP/log")
[ "$n" -eq 111 ] || fail "expected 111 checked points, got $n"
for f in validate/traces/*/*.trace; do
    cmp -s "$f" "$TMP/traces/${f#validate/traces/}" || fail "$f is not what gen-traces.sh makes"
done
[ "$(ls "$TMP"/traces/*/*.trace | wc -l)" -eq "$(ls validate/traces/*/*.trace | wc -l)" ] ||
    fail "number of traces differs"
sed "s#$TMP/traces#validate/traces#" "$TMP/traces/manifest.tsv" | cmp -s - validate/traces/manifest.tsv ||
    fail "manifest differs"
[ "$(head -1 validate/traces/manifest.tsv)" = "$(printf 'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id')" ] ||
    fail "manifest header"
awk -F'\t' 'NR > 1 && (NF != 5 || system("test -f " $3) || system("test -f " $4)) { exit 1 }' \
    validate/traces/manifest.tsv || fail "manifest row with a missing file or wrong column count"

if [ "$fails" -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "cli_sass2trace_gen: all passed"
