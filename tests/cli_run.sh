#!/bin/bash
# cli_run.sh — `smsim --config CFG TRACE`: a trace in all three formats, the
# pictures (--grid, --timeline), -o, determinism, and bad input (one line on
# stderr, non-zero exit, nothing on stdout).
# Usage: bash tests/cli_run.sh /path/to/smsim   (from the repo root)
# The trace is $SMSIM_RUN_TRACE, else a small one written below.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_run.sh /path/to/smsim}
CFG=configs/h100.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

source "$(dirname "$0")/cli_lib.sh"

has() {
    grep -Eq -- "$1" "$TMP/out" || fail "output lacks /$1/ for: $LAST"
}

HAVE_PY=0
python3 -c 'import json, csv' >/dev/null 2>&1 && HAVE_PY=1

# Two small kernels in the native format (docs/trace-format.md): global
# loads in a loop with a barrier, then a shared-memory kernel whose name holds
# a comma and a space (CSV quoting).
TRACE=${SMSIM_RUN_TRACE:-$TMP/two.txt}
cat >"$TMP/two.txt" <<'TR'
kernel saxpy grid=264 block=256 regs=32 {
  S2R R0, SR_TID.X
  loop 8 {
    LDG.E R2, [R4]
    FFMA R6, R2, R3, R6
    BAR.SYNC 0
  }
  STG.E [R4], R6
  EXIT
}
kernel "second<int, float>" grid=(10,2) block=(64,2) regs=64 smem_static=4096 barriers=1 {
  LDS R1, [R0]
  FADD R2, R1, R1
  EXIT
}
TR

# --- bad input that needs no valid trace --------------------------------
expect_err '^smsim: missing --config' "$CFG"                 # a file as the first word
expect_err '^smsim: unknown subcommand' no-such-trace.txt --config "$CFG"
expect_err 'no-such-trace' --config "$CFG" "$TMP/no-such-trace.txt"
expect_err 'no-such-config' --config "$TMP/no-such-config.yaml" "$CFG"
expect_err '^smsim: missing TRACE' --config "$CFG"
expect_err '^smsim: option --config needs a value' --config
expect_err '^smsim: unknown option' --config "$CFG" "$CFG" --frobnicate
expect_err "^smsim: --format 'xml'" --config "$CFG" "$CFG" --format xml
expect_err "^smsim: --seed 'abc'" --config "$CFG" "$CFG" --seed abc
expect_err "^smsim: --seed '-1'" --config "$CFG" "$CFG" --seed -1
expect_err "^smsim: --seed '12x'" --config "$CFG" "$CFG" --seed 12x
expect_err "^smsim: --seed '18446744073709551616'" --config "$CFG" "$CFG" --seed 18446744073709551616
expect_err "^smsim: --carveout '101'" --config "$CFG" "$CFG" --carveout 101
expect_err "^smsim: --grid '0'" --config "$CFG" "$CFG" --grid 0
expect_err "^smsim: --blocks-per-sm '0'" --config "$CFG" "$CFG" --blocks-per-sm 0
expect_err '^smsim: --grid needs --format text' --config "$CFG" "$CFG" --grid 10 --format json
expect_err '^smsim: more than one trace' --config "$CFG" "$CFG" "$CFG"

# --help prints the run usage on stdout
run --config "$CFG" --help
[ "$rc" -eq 0 ] || fail "--help exit $rc"
has '^usage: smsim --config CFG.yaml TRACE'
has '--timeline FILE.json'
# the top-level help names every option of the run usage (issue #21)
"$SMSIM" --help >"$TMP/top" 2>&1
for o in $(grep -Eo '^  (--[a-z-]+|-o)' "$TMP/out"); do
    grep -q -- "$o\b" "$TMP/top" || fail "smsim --help does not list the run option $o"
done

if [ -z "$TRACE" ] || [ ! -f "$TRACE" ]; then
    fail "no trace to run: $TRACE"
    echo "$fails failure(s)"
    exit 1
fi

# Stop here, with one failure, if the trace does not run at all.
run --config "$CFG" "$TRACE"
if [ "$rc" -ne 0 ]; then
    fail "the trace does not run: exit $rc ($(head -c 300 "$TMP/err"))"
    echo "$fails failure(s)"
    exit 1
fi

# --- bad input with a real trace ----------------------------------------
expect_err '^smsim: --kernel 100000' --config "$CFG" "$TRACE" --kernel 100000
expect_err 'no_such_key' --config "$CFG" "$TRACE" --set gpu.no_such_key=1
expect_err "^smsim: cannot write '$TMP/no/dir/t.json'" --config "$CFG" "$TRACE" --timeline "$TMP/no/dir/t.json"
expect_err "^smsim: cannot write '$TMP/no/dir/r.txt'" --config "$CFG" "$TRACE" -o "$TMP/no/dir/r.txt"

# A kernel that cannot run, after one that can: no partial report.
{ cat "$TRACE"; printf 'kernel big grid=4 block=1024 regs=255 {\n  FADD R2, R1, R1\n  EXIT\n}\n'; } >"$TMP/bad.txt"
expect_err "^smsim: .*bad.txt: kernel [0-9]+: .*big" --config "$CFG" "$TMP/bad.txt"
expect_err "^smsim: .*bad.txt: kernel [0-9]+: .*big" --config "$CFG" "$TMP/bad.txt" -o "$TMP/partial.txt"
[ -e "$TMP/partial.txt" ] && fail "-o file written although a kernel failed"

# --- text ---------------------------------------------------------------
expect_ok --config "$CFG" "$TRACE"
has '^  .* \([0-9]+, [0-9]+, [0-9]+\)x\([0-9]+, [0-9]+, [0-9]+\), Kernel 0, Config '
for s in 'Launch Statistics' 'Occupancy' 'Scheduler Statistics' 'Warp State Statistics' \
         'Compute/Memory Throughput'; do
    has "^    Section: $s\$"
done
has '^    Metric Name +Metric Unit Metric Value$'
has '^    Achieved Occupancy +% +[0-9.,]+$'
has '^    Warp Cycles Per Issued Instruction +cycle +[0-9.,]+$'
grep -q 'Other Metrics' "$TMP/out" && fail "a metric without an ncu label"
cp "$TMP/out" "$TMP/text1"
# Same inputs, byte-identical output; options may precede the trace.
run "$TRACE" --seed 1 --config="$CFG"
[ "$rc" -eq 0 ] || fail "trace first: exit $rc ($(head -c 300 "$TMP/err"))"
cmp -s "$TMP/out" "$TMP/text1" || fail "text differs between identical runs"
# -o FILE holds exactly what stdout would.
run --config "$CFG" "$TRACE" -o "$TMP/report.txt"
[ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] || fail "-o: exit $rc or stdout not empty"
cmp -s "$TMP/report.txt" "$TMP/text1" || fail "-o FILE differs from stdout"

# --- json ---------------------------------------------------------------
expect_ok --config "$CFG" "$TRACE" --format json
has '^  "config": '
has '"smsp__average_warp_latency_per_inst_issued.ratio": '
cp "$TMP/out" "$TMP/json1"
if [ $HAVE_PY -eq 1 ]; then
    python3 -m json.tool "$TMP/json1" >/dev/null || fail "JSON report is not valid JSON"
    python3 - "$TMP/json1" <<'PY' || fail "JSON report content"
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["provenance", "config", "kernels"], list(d)
assert len(d["kernels"]) >= 1
for k in d["kernels"]:
    assert list(k) == ["index", "name", "grid", "block", "metrics"], list(k)
    m = k["metrics"]
    stalls = [v for n, v in m.items() if n.startswith("smsp__average_warps_issue_stalled_")]
    assert len(stalls) == 15, len(stalls)
    lat = m["smsp__average_warp_latency_per_inst_issued.ratio"]
    assert lat > 0
    assert abs(sum(stalls) - lat) <= 1e-9 * lat, (sum(stalls), lat)
    one, none = (m["smsp__issue_active.avg.pct_of_peak_sustained_active"],
                 m["smsp__issue_inst0.avg.pct_of_peak_sustained_active"])
    assert abs(one + none - 100) < 1e-9, (one, none)
    assert 0 < m["sm__warps_active.avg.pct_of_peak_sustained_active"] <= 100
    assert m["sm__cycles_active.avg"] <= m["sm__cycles_elapsed.avg"]
    assert m["smsp__inst_executed.sum"] > 0
    assert m["launch__grid_size"] == k["grid"][0] * k["grid"][1] * k["grid"][2]
PY
fi

# --- csv ----------------------------------------------------------------
expect_ok --config "$CFG" "$TRACE" --format=csv
nk=$(grep -c '"Kernel Name"' "$TMP/out")
[ "$nk" -eq 1 ] || fail "CSV has $nk header rows"
grep -v '^# ' "$TMP/out" | head -1 | grep -q '^"Kernel Name","Block Size","Grid Size","launch__' || fail "CSV header"
if [ $HAVE_PY -eq 1 ]; then
    python3 - "$TMP/out" "$TMP/json1" <<'PY' || fail "CSV shape"
import csv, json, sys
r = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith("# ")))
d = json.load(open(sys.argv[2]))
assert len(r) == 2 + len(d["kernels"]), len(r)
assert all(len(x) == len(r[0]) for x in r)
assert r[0][3:] == list(d["kernels"][0]["metrics"]), "CSV and JSON metric names differ"
PY
fi

# --- one kernel, pictures -----------------------------------------------
expect_ok --config "$CFG" "$TRACE" --kernel 0 --grid 40
has '^  Warp-state grid: kernel 0 '
has '^  smsp0 w00 [A-Za-z.]{40}$'
has 'S selected'
[ "$(grep -c '^  .*Kernel [0-9]*, Config ' "$TMP/out")" -eq 1 ] || fail "--kernel 0 printed more than one kernel"

expect_ok --config "$CFG" "$TRACE" --timeline "$TMP/tl.json" --timeline-cycles 2000 --timeline-sms 2
cmp -s "$TMP/out" "$TMP/text1" || fail "--timeline changed the report"
[ -s "$TMP/tl.json" ] || fail "--timeline wrote nothing"
run --config "$CFG" "$TRACE" --timeline "$TMP/tl2.json" --timeline-cycles 2000 --timeline-sms 2
cmp -s "$TMP/tl.json" "$TMP/tl2.json" || fail "timeline differs between identical runs"
if [ $HAVE_PY -eq 1 ]; then
    python3 -m json.tool "$TMP/tl.json" >/dev/null || fail "timeline is not valid JSON"
    python3 - "$TMP/tl.json" <<'PY' || fail "timeline content"
import json, sys
d = json.load(open(sys.argv[1]))
assert "displayTimeUnit" not in d  # ts and dur in cycles, as microseconds
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
w = [e for e in x if e["cat"] == "warp"]
assert w, "no warp events"
assert all(e["args"]["cycle"] < 2000 for e in w)
assert {e["pid"] for e in w} <= {0, 1}
assert any(e["cat"] == "block" for e in x)
assert (d["otherData"]["from"], d["otherData"]["to"], d["otherData"]["sms"]) == (0, 2000, [0, 1])
PY
fi

# a UTF-8 byte-order mark before the first 'kernel' is accepted (#22): the
# report equals that of the same trace without it
"$SMSIM" --config configs/h100.yaml tests/data/trace/bom.trace --format json >"$TMP/bom.json" 2>"$TMP/err" ||
    fail "a trace starting with a byte-order mark: $(cat "$TMP/err")"
tail -c +4 tests/data/trace/bom.trace >"$TMP/nobom.trace"
"$SMSIM" --config configs/h100.yaml "$TMP/nobom.trace" --format json >"$TMP/nobom.json" 2>/dev/null
cmp -s <(noprov "$TMP/bom.json") <(noprov "$TMP/nobom.json") || fail "a byte-order mark changed the report"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
