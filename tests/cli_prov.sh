#!/bin/bash
# cli_prov.sh — provenance in every output (issue #21 item 4, docs/json.md):
# each JSON document of each subcommand has a first member "provenance" with
# the schema version, smsim's version, the subcommand, the configuration
# file and the FNV-1a 64 hash of the effective configuration (the bytes
# `smsim config` prints for the same --config/--set, hashed here in Python),
# every --set in order, the seed and the trace; each CSV the same fields as
# leading "# key: value" lines that pandas skips (read_csv(comment='#')).
# The provenance is the same at every --threads, and a plot's title names
# the overrides.
# Usage: bash tests/cli_prov.sh /path/to/smsim   (from the repository root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_prov.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }

C=configs/h100.yaml
TR=tests/data/study/ffma_ilp1.trace
SET=(--set gpu.sm_count=2 --set memory.dram_latency=900)
ver=$("$SMSIM" --version | sed 's/^smsim //')
# ok ARGS...: exit 0 and nothing on stderr (the output may be a file)
ok() {
    run "$@"
    [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ] || fail "exit $rc for: $* ($(head -c 300 "$TMP/err"))"
}

# check FILE FORMAT SUBCOMMAND CONFIG TRACE SEED [SET...]: the provenance of
# FILE (json or csv) is exactly these values (TRACE/SEED "-": null/absent)
check() {
    local file=$1 fmt=$2 sub=$3 cfg=$4 tr=$5 seed=$6
    shift 6
    "$SMSIM" config --config "$cfg" "$@" >"$TMP/cfg.yaml" || { fail "config $cfg $*"; return; }
    python3 - "$file" "$fmt" "$sub" "$cfg" "$tr" "$seed" "$ver" "$TMP/cfg.yaml" "$@" <<'PY' ||
import json, sys
f, fmt, sub, cfg, tr, seed, ver, cfgyaml = sys.argv[1:9]
sets = [a for a in sys.argv[9:] if a != "--set"]
h = 0xcbf29ce484222325
for b in open(cfgyaml, "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
want = {"schema": 1, "smsim": None, "subcommand": sub, "config_path": cfg,
        "config_hash": "fnv1a64:%016x" % h, "overrides": sets,
        "seed": None if seed == "-" else int(seed), "trace": None if tr == "-" else tr}
text = open(f).read()
if fmt == "json":
    assert text.startswith('{\n  "provenance": {'), text[:60]
    p = json.loads(text)["provenance"]
    assert list(p)[:8] == list(want), list(p)
else:
    lines = text.split("\n")
    head = [l for l in lines if l.startswith("# ")]
    assert lines[:len(head)] == head, "comment lines are not all leading"
    kv = [l[2:].split(": ", 1) for l in head]
    p = {"overrides": [v for k, v in kv if k == "set"]}
    for k, v in kv:
        if k != "set":
            p[k] = int(v) if k in ("schema", "seed") else v
    p.setdefault("seed", None)
    p.setdefault("trace", None)
# the version: `git describe` at build time, or the project version
assert p["smsim"].startswith(ver), (p["smsim"], ver)
want["smsim"] = p["smsim"]
for k, v in want.items():
    assert p[k] == v, (k, p[k], v)
PY
        fail "provenance of $sub ($fmt): $file"
}

# run: the report in both formats, and the timeline, stall profile and
# per-instruction CSV
for fmt in json csv; do
    ok --config $C "$TR" "${SET[@]}" --seed 7 --format $fmt --timeline "$TMP/tl.json" \
        --stall-profile 100 --stall-csv "$TMP/sp.csv" -o "$TMP/run.$fmt"
    check "$TMP/run.$fmt" $fmt run $C "$TR" 7 "${SET[@]}"
done
check "$TMP/tl.json" json run $C "$TR" 7 "${SET[@]}"
check "$TMP/sp.csv" csv run $C "$TR" 7 "${SET[@]}"
S=validate/traces/dchain-k4/b1.trace
ok --config configs/h200.yaml $S --source-csv "$TMP/src.csv" -o "$TMP/x"
check "$TMP/src.csv" csv run configs/h200.yaml $S 1
# the same at every thread count (no --threads, no time in it)
for th in 2 3; do
    expect_ok --config $C "$TR" "${SET[@]}" --seed 7 --format json --threads $th
    cmp -s "$TMP/out" "$TMP/run.json" || fail "the report at --threads $th differs"
done

# sweep and merge (merge carries the sweep's provenance from its manifest)
for fmt in json csv; do
    expect_ok sweep --config $C "$TR" "${SET[@]}" --vary pipes.fma.latency=4,8 --format $fmt
    check "$TMP/out" $fmt sweep $C "$TR" 1 "${SET[@]}"
done
run sweep --config $C "$TR" "${SET[@]}" --vary pipes.fma.latency=4,8 --emit-jobs "$TMP/jobs.txt" \
    --job-dir "$TMP/jobs"
check "$TMP/jobs/manifest.json" json sweep $C "$TR" 1 "${SET[@]}"
sh "$TMP/jobs.txt" || fail "the jobs"
for fmt in json csv; do
    expect_ok merge --sweep-manifest "$TMP/jobs/manifest.json" "$TMP"/jobs/point-*.json --format $fmt
    check "$TMP/out" $fmt merge $C "$TR" 1 "${SET[@]}"
done
grep -q "\"manifest\": \"$TMP/jobs/manifest.json\"" "$TMP/out" 2>/dev/null ||
    grep -q "^# manifest: $TMP/jobs/manifest.json$" "$TMP/out" || fail "merge names its manifest"

# saturate; its plot's title names the overrides (a baseline and a
# --set memory.dram_latency=... plot differ)
expect_ok saturate --config $C "$TR" "${SET[@]}" --format json --jobs 2
check "$TMP/out" json saturate $C "$TR" 1 "${SET[@]}"
if command -v gnuplot >/dev/null; then
    run saturate --config $C "$TR" --set gpu.sm_count=2 --jobs 2 --plot "$TMP/base.svg"
    run saturate --config $C "$TR" "${SET[@]}" --jobs 2 --plot "$TMP/set.svg"
    grep -q 'saturate: .* \[gpu.sm_count=2\]<' "$TMP/base.svg" || fail "baseline plot title"
    grep -q 'saturate: .* \[gpu.sm_count=2, memory.dram_latency=900\]<' "$TMP/set.svg" ||
        fail "the plot title lacks the overrides"
    run sweep --config $C "$TR" "${SET[@]}" --vary pipes.fma.latency=4,8 --plot "$TMP/sw.svg"
    grep -q 'memory.dram_latency=900\]<' "$TMP/sw.svg" || fail "the sweep plot title lacks the overrides"
    run validate tests/data/validate --manifest tests/data/validate/manifest.tsv --set gpu.sm_count=2 \
        --plot "$TMP/val.svg"
    grep -q 'vs smsim (.*) \[gpu.sm_count=2\]<' "$TMP/val.svg" || fail "the validate plot title lacks the overrides"
fi

# occupancy, one point and --vary (the same member names)
for fmt in json csv; do
    expect_ok occupancy --config $C --block-size 128 --regs 32 --set gpu.sm_count=2 --format $fmt
    check "$TMP/out" $fmt occupancy $C - - --set gpu.sm_count=2
    cp "$TMP/out" "$TMP/occ1.$fmt"
    expect_ok occupancy --config $C --block-size 128 --regs 32 --set gpu.sm_count=2 --vary regs --format $fmt
    check "$TMP/out" $fmt occupancy $C - - --set gpu.sm_count=2
    cp "$TMP/out" "$TMP/occv.$fmt"
done
python3 - "$TMP/occ1.json" "$TMP/occv.json" <<'PY' || fail "occupancy --vary names differ from a point's"
import json, sys
one, vary = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
for p in vary["points"]:
    for k in list(p)[1:]:
        assert k in one, k
PY

# validate (the data directory and manifest named too)
D=tests/data/validate
expect_ok validate $D --manifest $D/manifest.tsv --set gpu.sm_count=2 --format json
check "$TMP/out" json validate configs/h200.yaml - 1 --set gpu.sm_count=2
grep -q "\"data_dir\": \"$D\", \"manifest\": \"$D/manifest.tsv\"" "$TMP/out" ||
    fail "validate names its data"

# compare, against ncu's raw page and its Source page
for fmt in json csv; do
    expect_ok compare --ncu tests/data/ncu/compare.raw.csv --ncu-id 1 --config configs/h200.yaml \
        $D/tiny_ilp1_b1.trace --format $fmt
    check "$TMP/out" $fmt compare configs/h200.yaml $D/tiny_ilp1_b1.trace 1
    expect_ok compare --source "$TMP/src.csv" --config configs/h200.yaml $S --format $fmt
    check "$TMP/out" $fmt compare configs/h200.yaml $S 1
done

# pandas reads the CSV (when installed)
if python3 -c 'import pandas' 2>/dev/null; then
    python3 - "$TMP/run.csv" "$TMP/occv.csv" <<'PY' || fail "pandas cannot read the CSV"
import sys, pandas
d = pandas.read_csv(sys.argv[1], comment="#")
assert list(d.columns[:3]) == ["Kernel Name", "Block Size", "Grid Size"], list(d.columns)
v = pandas.read_csv(sys.argv[2], comment="#")
assert v.columns[0] == "regs" and len(v) == 255, (v.columns, len(v))
PY
fi

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
