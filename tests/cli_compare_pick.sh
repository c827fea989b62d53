#!/bin/bash
# cli_compare_pick.sh — `smsim compare --ncu` on a report of several launches:
# the message lists them (ID ranges with kernel names) and names both ways to
# pick one, --ncu-id ID and --ncu-kernel REGEX (matched against "Kernel Name";
# both given: both must hold); a Source page given as --ncu says what it is.
# tests/data/ncu/compare3.raw.csv is tests/data/ncu/compare.raw.csv (two
# launches of tiny_ilp1, IDs 0 and 1) with a third row, ID 2, a copy of ID 1's
# numbers under the name "tiny_other(float *)".
# Usage: bash tests/cli_compare_pick.sh /path/to/smsim   (from the repo root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_compare_pick.sh /path/to/smsim}
CSV=tests/data/ncu/compare3.raw.csv
TR=tests/data/validate/tiny_ilp1_b1.trace
BASE=(compare --ncu "$CSV" --config configs/h200.yaml "$TR")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

expect_err "^smsim: $CSV: 3 launches: choose one with --ncu-id ID or --ncu-kernel REGEX \(the \"ID\" and \"Kernel Name\" columns\): IDs 0-1 'tiny_ilp1', ID 2 'tiny_other'$" \
    "${BASE[@]}"
expect_ok "${BASE[@]}" --ncu-kernel '^tiny_other'
grep -q "vs ncu ID 2 'tiny_other(float \*)'" "$TMP/out" || fail "--ncu-kernel tiny_other: $(head -1 "$TMP/out")"
expect_err "^smsim: $CSV: 2 launches with a Kernel Name matching 'ilp1': choose one with --ncu-id ID or --ncu-kernel REGEX .*: IDs 0-1 'tiny_ilp1'$" \
    "${BASE[@]}" --ncu-kernel ilp1
expect_ok "${BASE[@]}" --ncu-kernel ilp1 --ncu-id 1
grep -q "vs ncu ID 1 'tiny_ilp1(float \*, float, float)'" "$TMP/out" || fail "--ncu-kernel ilp1 --ncu-id 1"
expect_err "^smsim: $CSV: no launch with ID 2 and a Kernel Name matching 'ilp1' \(3 launches: IDs 0-1 'tiny_ilp1', ID 2 'tiny_other'\)$" \
    "${BASE[@]}" --ncu-kernel ilp1 --ncu-id 2
expect_err "^smsim: --ncu-kernel '\(': bad regular expression" "${BASE[@]}" --ncu-kernel '('
# the Source page (per instruction) is not the raw page of launches
expect_err "^tests/data/sass/nested.csv:1:1: this is ncu's Source page \(per instruction: a \"Kernel Name\" line, then Address, Source, ...\), not the raw page of launches: give it to compare --source or sass2trace --counts" \
    compare --ncu tests/data/sass/nested.csv --config configs/h200.yaml "$TR"
if [ "$fails" -ne 0 ]; then echo "$fails failed"; exit 1; fi
echo "cli_compare_pick: all passed"
