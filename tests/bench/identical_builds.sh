#!/usr/bin/env bash
# Do two builds give byte-identical reports on the validation traces?
#   bash tests/bench/identical_builds.sh OLD_SMSIM NEW_SMSIM [THREADS...] 
# Runs every launch of validate/traces/manifest.tsv as `smsim validate` runs
# it (configs/h200.yaml, --blocks-per-sm from the manifest, --carveout 100),
# OLD once on one thread, NEW at each of THREADS (default: 1 2 3), and
# compares the JSON reports byte for byte.  CASES=REGEX limits the cases.
# Prints one line per difference and "N identical, M differ"; exit 1 if any
# differ.  (A development check for engine refactors: ~40 CPU-minutes for
# all 94 launches at three thread counts.)
# SPDX-License-Identifier: GPL-3.0-or-later
set -euo pipefail
OLD=${1:?usage: identical_builds.sh OLD NEW [THREADS...]}
NEW=${2:?usage: identical_builds.sh OLD NEW [THREADS...]}
shift 2
THREADS=${*:-1 2 3}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
same=0 diff=0
while IFS=$'\t' read -r case bps trace _ _; do
    [ "$case" = case ] && continue
    [[ -n "${CASES:-}" && ! "$case" =~ $CASES ]] && continue
    opts=(--config configs/h200.yaml "$trace" --blocks-per-sm "$bps" --carveout 100 --format json)
    "$OLD" "${opts[@]}" -o "$tmp/old.json"
    for th in $THREADS; do
        "$NEW" "${opts[@]}" --threads "$th" -o "$tmp/new.json"
        if cmp -s "$tmp/old.json" "$tmp/new.json"; then
            same=$((same + 1))
        else
            echo "DIFFER: $case b$bps ($trace) at --threads $th"
            diff=$((diff + 1))
        fi
    done
done < validate/traces/manifest.tsv
echo "$same identical, $diff differ"
[ "$diff" -eq 0 ]
