#!/bin/bash
# cli_timeline.sh — --timeline loads intact in Perfetto (issue #21): the
# events are replayed through Perfetto's JSON import rule (ts and dur each
# turned into integer nanoseconds: llround(us * 1000) for a fraction,
# us * 1000 for an integer, and with "displayTimeUnit": "ns" the value
# itself as nanoseconds), then per track (pid, tid) a slice that starts
# inside the previous one must end inside it (else Perfetto drops or
# mis-nests it), and smsim's tracks must not nest at all (one state, block
# or kernel at a time).  Then the window and SM selection, and .json.gz.
# SPDX-License-Identifier: GPL-3.0-or-later
SMSIM=${1:-build/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }

cat >"$TMP/replay.py" <<'PY'
import gzip, json, math, sys
path = sys.argv[1]
raw = open(path, "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
d = json.loads(raw)
# Perfetto before 2023 ignored displayTimeUnit for ts (microseconds, the
# format's unit); later ones read ts as nanoseconds when it says "ns": both
# rules are replayed (the second only when the file declares it)
modes = [False] + ([True] if d.get("displayTimeUnit") == "ns" else [])

def to_ns(v, ns_unit):
    # Perfetto's json::CoerceToTs (trace_processor/importers/json): an integer
    # is exact, a double is rounded to the nearest nanosecond
    if isinstance(v, int):
        return v if ns_unit else v * 1000
    return int(math.floor(v + 0.5)) if ns_unit else int(math.floor(v * 1000.0 + 0.5))

fail = 0
for ns_unit in modes:
    tracks = {}
    for e in d["traceEvents"]:
        if e.get("ph") != "X":
            continue
        s = to_ns(e["ts"], ns_unit)
        tracks.setdefault((e["pid"], e["tid"]), []).append((s, s + to_ns(e["dur"], ns_unit)))
    bad = nested = empty = total = 0
    for key, ev in tracks.items():
        ev.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for s, t in ev:
            total += 1
            if t <= s:
                empty += 1
            while stack and stack[-1] <= s:
                stack.pop()
            if stack and t > stack[-1]:
                bad += 1          # starts inside the open slice, ends after it
                continue
            if stack:
                nested += 1       # inside another slice of the same track
            stack.append(t)
    print("%s: %d slices, %d improperly nested, %d nested, %d empty" %
          ("ts in ns" if ns_unit else "ts in us", total, bad, nested, empty))
    fail |= bool(bad or nested or empty or total == 0)
sys.exit(fail)
PY

# 1. the replay rule on real runs: an H200 (1980 MHz: 0.505 ns per cycle)
#    on the smem-tile validation trace (barriers, many short states) and an
#    H100 on a sample trace; plain, windowed, selected SMs and gzip
T=validate/traces/smem-tile/b1.trace
expect_ok --config configs/h200.yaml "$T" --timeline "$TMP/a.json" --timeline-cycles 3000 \
    --timeline-sms 2
python3 "$TMP/replay.py" "$TMP/a.json" >"$TMP/r" || fail "h200 timeline: Perfetto replay: $(cat "$TMP/r")"
expect_ok --config configs/h200.yaml "$T" --timeline "$TMP/b.json.gz" --timeline-from 2000 \
    --timeline-to 3500 --timeline-sms 1,5-6
python3 "$TMP/replay.py" "$TMP/b.json.gz" >"$TMP/r" || fail "windowed .json.gz: Perfetto replay: $(cat "$TMP/r")"
expect_ok --config configs/h100.yaml traces/ffma_ilp1.trace --timeline "$TMP/c.json" --timeline-cycles 5000
python3 "$TMP/replay.py" "$TMP/c.json" >"$TMP/r" || fail "h100 timeline: Perfetto replay: $(cat "$TMP/r")"

# 2. what the window and the selection keep (gzip round trip included)
python3 - "$TMP/b.json.gz" <<'PY' || fail "window/selection content"
import gzip, json, sys
d = json.loads(gzip.open(sys.argv[1]).read())
x = [e for e in d["traceEvents"] if e["ph"] == "X"]
w = [e for e in x if e["cat"] == "warp"]
assert w, "no warp events"
assert {e["pid"] for e in w} == {1, 5, 6}, {e["pid"] for e in w}
assert all(2000 <= e["ts"] and e["ts"] + e["dur"] <= 3500 for e in x if e["cat"] != "kernel")
assert min(e["ts"] for e in w) == 2000 and max(e["ts"] + e["dur"] for e in w) == 3500
assert all(isinstance(e["ts"], int) and isinstance(e["dur"], int) for e in x)
o = d["otherData"]
assert (o["from"], o["to"], o["sms"]) == (2000, 3500, [1, 5, 6]), o
assert "displayTimeUnit" not in d
PY
# the .json.gz holds the bytes the .json would
expect_ok --config configs/h200.yaml "$T" --timeline "$TMP/b.json" --timeline-from 2000 \
    --timeline-to 3500 --timeline-sms 1,5-6
gzip -dc "$TMP/b.json.gz" | cmp -s - "$TMP/b.json" || fail ".json.gz does not decompress to the .json"
# the same window given by --timeline-cycles
expect_ok --config configs/h200.yaml "$T" --timeline "$TMP/b2.json" --timeline-from 2000 \
    --timeline-cycles 1500 --timeline-sms 1,5-6
cmp -s "$TMP/b.json" "$TMP/b2.json" || fail "--timeline-cycles 1500 differs from --timeline-to 3500"
# a timeline never changes the report
run --config configs/h200.yaml "$T"
cp "$TMP/out" "$TMP/plain"
run --config configs/h200.yaml "$T" --timeline "$TMP/d.json.gz"
cmp -s "$TMP/out" "$TMP/plain" || fail "--timeline changed the report"

# 3. bad windows and selections: one line each
expect_err "^smsim: --timeline-to 100 is not after --timeline-from 200$" \
    --config configs/h100.yaml traces/ffma_ilp1.trace --timeline "$TMP/e.json" \
    --timeline-from 200 --timeline-to 100
expect_err "^smsim: --timeline-to and --timeline-cycles both give the window's end" \
    --config configs/h100.yaml traces/ffma_ilp1.trace --timeline "$TMP/e.json" \
    --timeline-to 100 --timeline-cycles 10
expect_err "^smsim: --timeline-sms '3-1': expected N \(the first N SMs\) or a list" \
    --config configs/h100.yaml traces/ffma_ilp1.trace --timeline "$TMP/e.json" --timeline-sms 3-1
expect_err "^smsim: --timeline-sms: SM 200 is not on the GPU \(.* has 132 SMs: 0\.\.131\)$" \
    --config configs/h100.yaml traces/ffma_ilp1.trace --timeline "$TMP/e.json" --timeline-sms 0,200
[ -e "$TMP/e.json" ] && fail "a refused run wrote its timeline"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
