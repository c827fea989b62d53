#!/bin/bash
# cli_source.sh — per-instruction attribution (issue #21): --source-csv in the
# shape of ncu's Source page export, and `smsim compare --source` against the
# committed H200 SourceCounters exports.  (1) On a trace without addresses,
# the rows (keyed by trace line) add up to the report's issued count,
# thread-instructions and stall totals; (2) on traces sass2trace made from
# the profiled launches, every instruction's issued count equals ncu's
# exactly; (3) smsim's CSV reads back as a Source export; (4) bad joins
# are refused with one line.
# SPDX-License-Identifier: GPL-3.0-or-later
SMSIM=${1:-build/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
C=configs/h100.yaml
SRC=validate/data/h200/kit-2026-11-29/source

# 1. totals on counts.trace (6 blocks x 3 warps, no addresses)
T=tests/data/trace/counts.trace
expect_ok --config $C "$T" --format json --source-csv "$TMP/c.csv"
cp "$TMP/out" "$TMP/c.rep.json"
python3 - "$TMP/c.csv" "$TMP/c.rep.json" <<'PY' || fail "--source-csv totals"
import csv, json, sys
lines = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith("# ")))
assert lines[0][0] == "Kernel Name" and lines[0][1] == "counts", lines[0]
head = lines[1]
assert head[:6] == ["Address", "Source", "Warp Stall Sampling (All Samples)", "# Samples",
                    "Instructions Executed", "Thread Instructions Executed"], head
rows = [dict(zip(head, r)) for r in lines[2:]]
rep = json.loads(open(sys.argv[2]).read())["kernels"][0]["metrics"]
issued = rep["smsp__inst_executed.sum"]
assert sum(int(r["Instructions Executed"]) for r in rows) == issued
assert sum(int(r["Thread Instructions Executed"]) for r in rows) == rep["smsp__thread_inst_executed.sum"]
assert all(r["Address"] == "-" for r in rows)          # the trace gives no addresses
assert [int(r["Trace Line"]) for r in rows] == sorted(int(r["Trace Line"]) for r in rows)
col = {"selected": "stall_selected", "not_selected": "stall_not_selected", "wait": "stall_wait",
       "long_scoreboard": "stall_long_sb", "short_scoreboard": "stall_short_sb",
       "math_pipe_throttle": "stall_math", "mio_throttle": "stall_mio", "lg_throttle": "stall_lg",
       "barrier": "stall_barrier", "membar": "stall_membar",
       "branch_resolving": "stall_branch_resolving", "no_instruction": "stall_no_inst",
       "dispatch_stall": "stall_dispatch", "drain": "stall_drain"}
for s, c in col.items():
    tot = sum(int(r[c]) for r in rows)
    ratio = rep["smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s]
    assert abs(tot - ratio * issued) <= 1e-9 * max(1, tot), (s, tot, ratio * issued)
for r in rows:
    assert int(r["stall_selected"]) == int(r["Instructions Executed"]), r
    assert int(r["Warp Stall Sampling (All Samples)"]) == sum(int(r[c]) for c in col.values())
# the MUFU only warp 0 of blocks 0..2 runs: 2 trips x 3 blocks = 6
mufu = [r for r in rows if r["Source"] == "MUFU.EX2"]
assert len(mufu) == 1 and int(mufu[0]["Instructions Executed"]) == 6, mufu
PY
run --config $C "$T" --format json
cmp -s "$TMP/out" "$TMP/c.rep.json" || fail "--source-csv changed the report"

# 1b. hand-checked attribution on the one-warp kernel (tests/cli_stallprof.sh
#     derives its timeline): a stall is charged to the instruction the warp
#     waits to issue: the 8 fetch cycles and the 39 x 3 FFMA waits to the
#     (one static) FFMA, the 31 cycles waiting for the load to the FADD
#     that uses it, none to the LDG or EXIT; 199 warp-cycles in all
expect_ok --config $C tests/data/trace/stallprof.trace --source-csv "$TMP/one.csv"
python3 - "$TMP/one.csv" <<'PY' || fail "one-warp attribution"
import csv, sys
lines = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith("# ")))
rows = [dict(zip(lines[1], r)) for r in lines[2:]]
got = [(r["Source"], r["Instructions Executed"], r["stall_no_inst"], r["stall_wait"],
        r["stall_long_sb"], r["Warp Stall Sampling (All Samples)"]) for r in rows]
want = [("FFMA", "40", "8", "117", "0", "165"), ("LDG.E", "1", "0", "0", "0", "1"),
        ("FADD", "1", "0", "0", "31", "32"), ("EXIT", "1", "0", "0", "0", "1")]
assert got == want, got
PY

# 2. sass2trace traces of the profiled launches: issued counts agree exactly
expect_ok compare --source "$SRC/smem-tile-b4.sass.csv" --config configs/h200.yaml \
    validate/traces/smem-tile/b4.trace --format json
python3 - "$TMP/out" <<'PY' || fail "smem-tile: per-instruction issued counts differ from ncu"
import json, sys
d = json.load(open(sys.argv[1]))
bad = [r for r in d["rows"] if r["issued"] != r["issued_ncu"]]
assert not bad and d["issued_agree"] == d["instructions"] == 144, (d["instructions"], bad[:5])
assert abs(sum(r["samples_pct"] for r in d["rows"]) - 100) < 1e-6
PY
# the text view says so in its second line, and flags no row
expect_ok compare --source "$SRC/dchain-k4-b4.sass.csv" --config configs/h200.yaml \
    validate/traces/dchain-k4/b4.trace
grep -q '^  issued: 48 of 48 instructions agree exactly (smsim 6665472, ncu 6665472 warp-instructions)$' \
    "$TMP/out" || fail "compare --source text: $(sed -n 2p "$TMP/out")"
grep -q 'issued differ' "$TMP/out" && fail "compare --source text flags a row"

# 3. smsim's own CSV is a Source export: compared with itself, all agree
run --config configs/h200.yaml validate/traces/dchain-k4/b1.trace \
    --source-csv "$TMP/d.csv" -o "$TMP/d.rep"
[ "$rc" -eq 0 ] || fail "--source-csv with -o: exit $rc ($(cat "$TMP/err"))"
python3 - "$TMP/d.csv" "$SRC/dchain-k4-b4.sass.csv" <<'PY' || fail "smsim CSV vs ncu columns"
import csv, sys
a = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith("# ")))[1]
b = list(csv.reader(l for l in open(sys.argv[2]) if not l.startswith("# ")))[1]
missing = [c for c in a if c not in b and c != "Trace Line"]
assert not missing, missing       # every column but smsim's own is one of ncu's
PY
expect_ok compare --source "$TMP/d.csv" --config configs/h200.yaml \
    validate/traces/dchain-k4/b1.trace --format csv
python3 - "$TMP/out" <<'PY' || fail "smsim's CSV against itself"
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("# ")))
assert rows and all(r["Issued"] == r["Issued ncu"] and r["Samples %"] == r["Samples % ncu"]
                    and r["Top stall"] == r["Top stall ncu"] for r in rows)
PY

# 4. joins that cannot be made
expect_err "^smsim: offset 0x00[0-9a-f]{2} is '.*' in .*smem-tile-b4\.sass\.csv but '.*' in validate/traces/dchain-k4/b4\.trace:[0-9]+ \(another kernel or binary\?\)$" \
    compare --source "$SRC/smem-tile-b4.sass.csv" --config configs/h200.yaml validate/traces/dchain-k4/b4.trace
expect_err "^smsim: tests/data/trace/counts\.trace: the trace gives no instruction addresses" \
    compare --source "$SRC/dchain-k4-b4.sass.csv" --config $C "$T"
expect_err "^smsim: compare: --ncu and --source are two comparisons \(give one\)$" \
    compare --source "$SRC/dchain-k4-b4.sass.csv" --ncu "$SRC/dchain-k4-b4.raw.csv" --config $C "$T"
printf '"Kernel Name","k",\n"Source","Address"\n' >"$TMP/bad.csv"
expect_err "^$TMP/bad\.csv:2:1: expected the header of ncu's Source page export" \
    compare --source "$TMP/bad.csv" --config $C "$T"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
