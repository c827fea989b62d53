#!/bin/bash
# cli_install.sh — install and discover (issue #21 item 5): `cmake --install`
# of this build into a temporary prefix installs the binary, the
# configurations, the man page and the bash/zsh completions; the installed
# smsim finds `--config h100` by name from another directory (its
# provenance names the installed file); the man page and the completions
# carry every option of the --help texts; `smsim run` is the plain form;
# byte counts take K/M suffixes; --metrics and --csv-units none select what
# a CSV holds (Python's csv reads every metric as a float).
# Usage: bash tests/cli_install.sh BUILD/smsim   (from the repository root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_install.sh /path/to/smsim}
case $SMSIM in /*) ;; *) SMSIM=$PWD/$SMSIM ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
ROOT=$PWD
TR=$ROOT/traces/ffma_ilp1.trace

# --- cmake --install into a temporary prefix ---------------------------------
BUILD=$(dirname "$SMSIM")
P=$TMP/prefix
if ! cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1; then
    fail "cmake --install: $(tail -3 "$TMP/install.log")"
fi
for f in bin/smsim share/smsim/configs/h100.yaml share/smsim/configs/h200.yaml \
    share/man/man1/smsim.1 share/bash-completion/completions/smsim share/zsh/site-functions/_smsim; do
    [ -f "$P/$f" ] || fail "not installed: $f"
done
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere"
for name in h100 h100.yaml configs/h100.yaml; do
    "$P/bin/smsim" --config $name "$TR" --format json >"$TMP/inst.json" 2>"$TMP/err" ||
        fail "installed smsim --config $name from another directory: $(cat "$TMP/err")"
    grep -q "\"config_path\": \"$(cd "$P" && pwd -P)/share/smsim/configs/h100.yaml\"" "$TMP/inst.json" ||
        fail "--config $name is not the installed file: $(grep -o '"config_path": "[^"]*"' "$TMP/inst.json")"
done
"$P/bin/smsim" occupancy --config h200 --block-size 128 --regs 32 >/dev/null 2>"$TMP/err" ||
    fail "installed occupancy --config h200: $(cat "$TMP/err")"
"$P/bin/smsim" config --config a100 >/dev/null 2>"$TMP/err" || fail "config --config a100: $(cat "$TMP/err")"
# a file of that name in the current directory comes first
printf 'not: a configuration\n' >h100
"$P/bin/smsim" --config h100 "$TR" >/dev/null 2>"$TMP/err" && fail "a local file 'h100' was not read first"
rm h100
# a name that is nowhere: arch_load's own message, naming what was given
"$P/bin/smsim" --config nosuchgpu "$TR" >/dev/null 2>"$TMP/err" && fail "--config nosuchgpu ran"
grep -q "nosuchgpu" "$TMP/err" || fail "--config nosuchgpu: $(cat "$TMP/err")"
cd "$ROOT"

# --- the man page and the completions carry every option ---------------------
MAN=$P/share/man/man1/smsim.1
BC=$P/share/bash-completion/completions/smsim
ZC=$P/share/zsh/site-functions/_smsim
subs="run occupancy sweep saturate merge validate compare config export sass2trace bench"
for s in $subs; do
    grep -q "^\.SH \"SMSIM $(echo $s | tr a-z A-Z)\"" "$MAN" || fail "man page: no section for $s"
    for o in $("$SMSIM" $s --help | grep -oE '^  -[-a-z0-9]+' | tr -d ' '); do
        grep -q -- "$(printf '%s' "$o" | sed 's/-/\\\\-\\|-/g')" "$MAN" || grep -qF -- "$o" "$MAN" ||
            fail "man page lacks $s $o"
        grep -q "^    $s) opts=.*$o\b" "$BC" || fail "bash completion lacks $s $o"
        grep -q "^  $s) opts=(.*$o\b" "$ZC" || fail "zsh completion lacks $s $o"
    done
done
if command -v man >/dev/null && man -l "$MAN" >/dev/null 2>&1; then
    MANWIDTH=120 man -l "$MAN" 2>/dev/null | grep -q -- '--csv-units' || fail "man -l: no --csv-units"
fi
got=$(bash -c "source '$BC'; COMP_WORDS=(smsim occupancy --smem-d); COMP_CWORD=2; _smsim; echo \${COMPREPLY[*]}")
[ "$got" = "--smem-dynamic" ] || fail "bash completion of 'smsim occupancy --smem-d': '$got'"
got=$(bash -c "source '$BC'; COMP_WORDS=(smsim sat); COMP_CWORD=1; _smsim; echo \${COMPREPLY[*]}")
[ "$got" = "saturate" ] || fail "bash completion of 'smsim sat': '$got'"

# --- smsim run is the plain form ---------------------------------------------
C=configs/h100.yaml
"$SMSIM" --config $C "$TR" --format json >"$TMP/plain.json" 2>&1
"$SMSIM" run --config $C "$TR" --format json >"$TMP/run.json" 2>&1 || fail "smsim run: $(cat "$TMP/run.json")"
cmp -s "$TMP/plain.json" "$TMP/run.json" || fail "smsim run differs from the plain form"
"$SMSIM" run --help | grep -q '^usage: smsim --config CFG.yaml TRACE' || fail "smsim run --help"
"$SMSIM" --help | grep -q '^  smsim \[run\] --config' || fail "top-level help lacks [run]"

# --- sizes with suffixes -----------------------------------------------------
"$SMSIM" occupancy --config $C --block-size 128 --regs 32 --smem-dynamic 24K --smem-static 1K \
    --format json >"$TMP/k.json" 2>&1 || fail "--smem-dynamic 24K: $(cat "$TMP/k.json")"
"$SMSIM" occupancy --config $C --block-size 128 --regs 32 --smem-dynamic 24576 --smem-static 1024 \
    --format json >"$TMP/b.json" 2>&1
cmp -s "$TMP/k.json" "$TMP/b.json" || fail "24K is not 24576 bytes"
grep -q '"smem_per_block": 26624' "$TMP/k.json" || fail "24K + 1K + 1K reserved: $(grep smem_per_block "$TMP/k.json")"
expect_err "^smsim: --smem-dynamic '24Q': expected an integer in 0\.\.1073741824$" \
    occupancy --config $C --block-size 128 --regs 32 --smem-dynamic 24Q
expect_err "^smsim: --smem-dynamic '2G': expected an integer in 0\.\.1073741824$" \
    occupancy --config $C --block-size 128 --regs 32 --smem-dynamic 2G
D=tests/data/sass
run sass2trace --sass $D/ffma_ilp1.sass --kernel ilp1 --counts $D/ffma_ilp1_b4.csv --grid 2112,1,1 --block 128 --regs 16 \
    --smem-static 0 --smem-dynamic 56K
[ "$rc" -eq 0 ] && grep -q ' smem_dynamic=57344 ' "$TMP/out" ||
    fail "sass2trace --smem-dynamic 56K: $(grep -m1 smem "$TMP/out") $(cat "$TMP/err")"

# --- --metrics and --csv-units none -------------------------------------------
expect_ok --config $C "$TR" --format csv --csv-units none --metrics 'issue_active|^sm__warps_active'
python3 - "$TMP/out" <<'PY' || fail "--metrics/--csv-units none CSV"
import csv, re, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if not l.startswith("# ")))
head, body = rows[0], rows[1:]
names = head[3:]
assert names and all(re.search("issue_active|^sm__warps_active", n) for n in names), names
assert "launch__grid_size" not in names
assert len(body) == 1, len(body)          # no units row: one kernel, one row
for r in body:
    [float(v) for v in r[3:]]             # every metric a number
PY
expect_ok --config $C "$TR" --format json --metrics '^launch__grid_size$'
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["kernels"][0]["metrics"]; assert list(m)==["launch__grid_size"], m' \
    "$TMP/out" || fail "--metrics in JSON"
expect_ok --config $C "$TR" --metrics 'launch__grid_size'
grep -q 'launch__grid_size\|Grid Size' "$TMP/out" || fail "--metrics in text"
expect_err "^smsim: --metrics '\(': bad regular expression: " --config $C "$TR" --metrics '('
expect_err "^smsim: --metrics 'nomatch' matches no metric smsim reports \(docs/metrics\.md\)$" \
    --config $C "$TR" --metrics nomatch
expect_err "^smsim: --csv-units 'x': expected row or none$" --config $C "$TR" --csv-units x

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
