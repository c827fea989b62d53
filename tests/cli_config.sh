#!/bin/bash
# cli_config.sh — `smsim config`: prints the effective configuration, which
# loads back unchanged; --set applies; --schema is docs/config.md; bad input
# gives exit != 0, exactly one line on stderr and nothing on stdout.
# Usage (from the repo root): bash tests/cli_config.sh /path/to/smsim
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_config.sh /path/to/smsim}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"

# ok NAME ARGS... : must exit 0 with empty stderr; stdout kept in $T/out
ok() {
    local name=$1; shift
    "$SMSIM" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -eq 0 ] || fail "$name: exit $rc: $(cat "$T/err")"
    [ -s "$T/err" ] && fail "$name: unexpected stderr: $(cat "$T/err")"
    return 0
}

# bad NAME EXPECTED_STDERR ARGS... : exit != 0, empty stdout, exactly that one line
bad() {
    local name=$1 want=$2; shift 2
    "$SMSIM" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ $rc -ne 0 ] || fail "$name: exit 0"
    [ -s "$T/out" ] && fail "$name: stdout not empty"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "$name: stderr is not one line: $(cat "$T/err")"
    [ "$(cat "$T/err")" = "$want" ] || fail "$name: stderr '$(cat "$T/err")', want '$want'"
    return 0
}

# every shipped config prints, and the printout loads back to the same text
for cfg in configs/*.yaml; do
    ok "print $cfg" config --config "$cfg"
    cp "$T/out" "$T/printed.yaml"
    ok "reload $cfg" config --config "$T/printed.yaml"
    cmp -s "$T/out" "$T/printed.yaml" || fail "$cfg: printed YAML does not round-trip"
done

ok "h100" config --config configs/h100.yaml
grep -qx '  max_warps: 64  # warps' "$T/out" || fail "h100: max_warps not 64"
grep -qx '  l2_size_kb: 51200  # KiB' "$T/out" || fail "h100: l2_size_kb not 51200"

ok "--set" config --config configs/h100.yaml --set sm.max_blocks=16 --set=scheduler.policy=lrr
grep -qx '  max_blocks: 16  # blocks' "$T/out" || fail "--set: max_blocks not 16"
grep -qx '  policy: lrr' "$T/out" || fail "--set: policy not lrr"

ok "--schema" config --schema
cmp -s "$T/out" docs/config.md || fail "--schema differs from docs/config.md"

ok "--help" config --help
grep -q '^usage: smsim config' "$T/out" || fail "--help: no usage line"

# bad input
sed 's/^  max_warps: 64 .*/  max_warps: abc/' configs/h100.yaml >"$T/bad.yaml"
line=$(grep -n '^  max_warps: abc' "$T/bad.yaml" | cut -d: -f1)
bad "bad value" "$T/bad.yaml:$line:14: sm.max_warps: expected an integer, got 'abc'" \
    config --config "$T/bad.yaml"
bad "bad --set" "--set:1:14: sm.max_warps: expected an integer, got 'x'" \
    config --config configs/h100.yaml --set sm.max_warps=x
bad "unknown --set key" "--set:2:1: unknown key 'sm.max_warp' (did you mean 'sm.max_warps'?)" \
    config --config configs/h100.yaml --set sm.max_blocks=16 --set sm.max_warp=64
bad "inconsistent --set" "--set:1:14: sm.max_threads (2048) must equal sm.max_warps x sm.warp_size (48 x 32 = 1536)" \
    config --config configs/h100.yaml --set sm.max_warps=48
bad "missing file" "$T/none.yaml: cannot open: No such file or directory" \
    config --config "$T/none.yaml"
bad "no --config" "smsim: config: --config is required (see smsim config --help)" config
bad "unknown option" "smsim: config: unknown option '--bogus' (see smsim config --help)" \
    config --config configs/h100.yaml --bogus
bad "--set without value" "smsim: --set needs a value" config --config configs/h100.yaml --set
bad "--schema with --config" "smsim: config: --schema takes no --config or --set" \
    config --schema --config configs/h100.yaml

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "cli_config: all passed"
