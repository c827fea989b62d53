#!/bin/bash
# cli_export_xz.sh — `smsim export --accelsim DIR --xz` (issue #21 item 10):
# kernel-N.traceg.xz files and a kernel list naming them; each decompresses
# (xz, when installed) to exactly the plain export's .traceg, two exports are
# the same bytes, and smsim reads the compressed export back to the plain
# export's report.
# Usage: bash tests/cli_export_xz.sh /path/to/smsim   (from the repository root)
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
SMSIM=${1:?usage: cli_export_xz.sh /path/to/smsim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
source "$(dirname "$0")/cli_lib.sh"
C=configs/h100.yaml
T=tests/data/trace/counts.trace
# three kernels, so the list has three names
for k in a b c; do sed "s/^kernel counts/kernel counts_$k/" $T; done >"$TMP/three.trace"

run export --accelsim "$TMP/plain" "$TMP/three.trace"
[ "$rc" -eq 0 ] || fail "plain export: $(cat "$TMP/err")"
run export --accelsim "$TMP/xz" --xz "$TMP/three.trace"
[ "$rc" -eq 0 ] || fail "export --xz: $(cat "$TMP/err")"
[ "$(cat "$TMP/out")" = "wrote 3 kernels to $TMP/xz/kernelslist.g" ] || fail "export --xz said: $(cat "$TMP/out")"
printf 'kernel-1.traceg.xz\nkernel-2.traceg.xz\nkernel-3.traceg.xz\n' | cmp -s - "$TMP/xz/kernelslist.g" ||
    fail "kernel list: $(cat "$TMP/xz/kernelslist.g")"
[ "$(ls "$TMP/xz" | wc -l)" -eq 4 ] || fail "files left in the export: $(ls "$TMP/xz")"
for i in 1 2 3; do
    f=$TMP/xz/kernel-$i.traceg.xz
    [ "$(head -c 6 "$f" | od -An -tx1 | tr -d ' \n')" = fd377a585a00 ] || fail "$f is not xz"
    if command -v xz >/dev/null; then
        xz -dc "$f" | cmp -s - "$TMP/plain/kernel-$i.traceg" || fail "$f does not decompress to the plain export"
    fi
done
run export --accelsim "$TMP/xz2" --xz "$TMP/three.trace"
for i in 1 2 3; do
    cmp -s "$TMP/xz/kernel-$i.traceg.xz" "$TMP/xz2/kernel-$i.traceg.xz" || fail "two --xz exports differ"
done
"$SMSIM" --config $C "$TMP/plain/kernelslist.g" --format json >"$TMP/p.json" 2>"$TMP/err" ||
    fail "the plain export does not run: $(cat "$TMP/err")"
"$SMSIM" --config $C "$TMP/xz/kernelslist.g" --format json >"$TMP/x.json" 2>"$TMP/err" ||
    fail "the --xz export does not run: $(cat "$TMP/err")"
cmp -s <(noprov "$TMP/p.json") <(noprov "$TMP/x.json") || fail "the --xz export's report differs"
[ "$(grep -c '"name": "counts_' "$TMP/x.json")" -eq 3 ] || fail "the --xz report lacks kernels"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
