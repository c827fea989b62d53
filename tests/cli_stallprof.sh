#!/bin/bash
# cli_stallprof.sh — --stall-profile BIN (issue #21): per-bin warp-state
# counts as CSV and a stacked-area SVG.  (1) Hand-checked bins of a one-warp
# kernel; (2) on a kernel of 18 warps over 6 SMs, every bin's states add up
# to the resident warps x the bin's cycles (residency from the timeline's
# warp events), and the totals equal the report's stall totals; (3) the SVG
# is well-formed and names the states; (4) bad options; (5) the report is
# unchanged.
# SPDX-License-Identifier: GPL-3.0-or-later
SMSIM=${1:-build/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
C=configs/h100.yaml

# 1. one warp on an H100: resident from cycle 0 to 199.  The first
#    instruction is fetched after 8 cycles (no_instruction), then 40
#    dependent FFMAs issue every 4 cycles (fma latency 4: selected 1 + wait
#    3) at 8, 12, ..., 164; the LDG issues at 165 and its use waits 31
#    cycles (long_scoreboard) to 197; FADD at 197, EXIT at 198.  Bins of 50:
#      [0,50):    selected 11 (8..48), no_instruction 8, wait 31
#      [50,100):  selected 12 (52..96), wait 38
#      [100,150): selected 13 (100..148), wait 37
#      [150,199): selected 7 (152..164, 165, 197, 198), wait 11, long_sb 31
expect_ok --config $C tests/data/trace/stallprof.trace --stall-profile 50 --stall-csv "$TMP/one.csv"
cat >"$TMP/one.want" <<'EOF'
kernel,cycle_from,cycle_to,selected,not_selected,wait,long_scoreboard,short_scoreboard,math_pipe_throttle,mio_throttle,lg_throttle,barrier,membar,branch_resolving,no_instruction,dispatch_stall,drain,imc_miss
0,0,50,11,0,31,0,0,0,0,0,0,0,0,8,0,0,0
0,50,100,12,0,38,0,0,0,0,0,0,0,0,0,0,0,0
0,100,150,13,0,37,0,0,0,0,0,0,0,0,0,0,0,0
0,150,199,7,0,11,31,0,0,0,0,0,0,0,0,0,0,0
EOF
cmp -s <(noprov "$TMP/one.csv") "$TMP/one.want" || fail "one-warp bins: $(diff "$TMP/one.want" <(noprov "$TMP/one.csv"))"

# 2. 6 blocks of 3 warps (counts.trace), bins of 7 cycles (not a divisor of
#    anything in the kernel), with the timeline of every SM as the witness
T=tests/data/trace/counts.trace
expect_ok --config $C "$T" --format json --stall-profile 7 --stall-csv "$TMP/c.csv" \
    --stall-svg "$TMP/c.svg" --timeline "$TMP/c.json" --timeline-sms 132 --timeline-cycles 1000000
cp "$TMP/out" "$TMP/c.rep.json"
python3 - "$TMP/c.csv" "$TMP/c.json" "$TMP/c.rep.json" <<'PY' || fail "multi-warp bins or totals"
import csv, json, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("# ")))
tl = json.load(open(sys.argv[2]))
rep = json.load(open(sys.argv[3]))["kernels"][0]["metrics"]
states = list(rows[0].keys())[3:]
assert len(states) == 15, states
# residency per warp track from the timeline: [first start, last end)
tracks = {}
for e in tl["traceEvents"]:
    if e["ph"] == "X" and e["cat"] == "warp":
        key = (e["pid"], e["tid"], e["args"]["block"], e["args"]["warp"])
        a, b = tracks.get(key, (e["ts"], e["ts"] + e["dur"]))
        tracks[key] = (min(a, e["ts"]), max(b, e["ts"] + e["dur"]))
assert len(tracks) == 18, len(tracks)
for r in rows:
    lo, hi = int(r["cycle_from"]), int(r["cycle_to"])
    want = sum(max(0, min(hi, b) - max(lo, a)) for a, b in tracks.values())
    got = sum(int(r[s]) for s in states)
    assert got == want, (lo, hi, got, want)
# totals: selected = issued instructions; each state = its stall ratio x issue cycles
tot = {s: sum(int(r[s]) for r in rows) for s in states}
issued = rep["smsp__inst_executed.sum"]
assert tot["selected"] == issued, (tot["selected"], issued)
for s in states:
    ratio = rep["smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s]
    assert abs(tot[s] - ratio * issued) <= 1e-9 * max(1, tot[s]), (s, tot[s], ratio * issued)
PY

# 3. the picture: well-formed SVG, one layer per state that occurs
python3 - "$TMP/c.svg" "$TMP/c.csv" <<'PY' || fail "stall-profile SVG"
import csv, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
layers = [p.find(ns + "title").text for p in root.iter(ns + "polygon")]
rows = list(csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("# ")))
used = [s for s in list(rows[0].keys())[3:] if sum(int(r[s]) for r in rows)]
assert layers == used, (layers, used)
PY

# 4. the report is unchanged, and the files are deterministic
run --config $C "$T" --format json
cmp -s "$TMP/out" "$TMP/c.rep.json" || fail "--stall-profile changed the report"
run --config $C "$T" --stall-profile 7 --stall-svg "$TMP/c2.svg"
cmp -s "$TMP/c.svg" "$TMP/c2.svg" || fail "the SVG differs between identical runs"

# 5. bad options: one line, no file
expect_err "^smsim: --stall-profile needs --stall-csv FILE.csv or --stall-svg FILE.svg" \
    --config $C "$T" --stall-profile 10
expect_err "^smsim: --stall-csv needs --stall-profile BIN" --config $C "$T" --stall-csv "$TMP/x.csv"
expect_err "^smsim: --stall-profile '0': expected an integer in 1\.\." --config $C "$T" \
    --stall-profile 0 --stall-csv "$TMP/x.csv"
expect_err "^smsim: cannot write '$TMP/no/x.svg'" --config $C "$T" --stall-profile 10 \
    --stall-csv "$TMP/x.csv" --stall-svg "$TMP/no/x.svg"
[ -e "$TMP/x.csv" ] && fail "a refused run wrote its stall CSV"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
