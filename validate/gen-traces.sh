#!/usr/bin/env bash
# validate/gen-traces.sh — regenerate the validation traces (validate/traces/)
# from the committed H200 data with `smsim sass2trace` (docs/sass-converter.md).
#
#   bash validate/gen-traces.sh [SMSIM [OUTDIR]]     (from anywhere; default
#                                                     build/smsim, validate/traces)
#
# For every (kernel, residency) row of validate/data/h200/kit-*/valid/NAME.raw.csv
# (cases of later kits: kit_of/csv_of below; a CSV of several kernels is
# filtered by its "Kernel Name", kname_of)
# it converts the kernel's SASS (build/*.sass) into OUTDIR/NAME/b<res>.trace
# with the launch exactly as ncu recorded it (grid, block, registers, static and
# dynamic shared memory, barriers: sass2trace --ncu reads them from the row), and checks that the trace executes ncu's
# smsp__inst_executed.sum warp-instructions (within 0.5 %), else fails.  Trip
# counts come from ncu's per-instruction counts (source/NAME-b4.sass.csv) where
# they exist, else from the constants below, read off the CUDA source and the
# SASS loop counters (the check above proves them for every point).  Memory
# pattern, footprint and addresses (addr=) come from validate/traces/NAME.annot.
# Writes OUTDIR/manifest.tsv (read by `smsim validate`).  Deterministic: running it
# twice gives byte-identical files.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SMSIM=${1:-build/smsim}
OUT=${2:-validate/traces}
KIT=validate/data/h200/kit-2026-11-29
ANNOT=validate/traces

command -v python3 >/dev/null || { echo "gen-traces: python3 is needed to read the ncu CSVs" >&2; exit 1; }
[ -x "$SMSIM" ] || { echo "gen-traces: no smsim binary at $SMSIM (build first)" >&2; exit 1; }

# case -> listing, function regex, counts CSV ("-" = none), extra sass2trace arguments.
params() {
  COUNTS=-
  EXTRA=()
  case $1 in
    ffma-ilp1) SASS=val_ffma; RE='^_Z13val_ffma_ilp1'; COUNTS=$KIT/source/ffma-ilp1-b4.sass.csv ;;
    # 8192 FFMA / ILP 2 = 4096 iterations unrolled 16x: counter += 0x10 until 0x1000.
    ffma-ilp2) SASS=val_ffma; RE='^_Z13val_ffma_ilp2'; EXTRA=(--trip 0x02e0=256) ;;
    # 8192 / 4 = 2048 iterations unrolled 16x: counter += 0x10 until 0x800.
    ffma-ilp4) SASS=val_ffma; RE='^_Z13val_ffma_ilp4'; EXTRA=(--trip 0x0500=128) ;;
    # COPY_PER_THREAD = 96 float4, unrolled 4x: counter += 4 until 0x60.
    copy)      SASS=val_stream; RE='^_Z11val_copy_f4'; EXTRA=(--trip 0x0210=24) ;;
    # VADD_PER_THREAD = 128 floats, unrolled 4x: counter += 4 until 0x80.
    vecadd)    SASS=val_stream; RE='^_Z10val_vecadd'; EXTRA=(--trip 0x02c0=32) ;;
    # STEPS = 64 dependent loads per warp: counter += 1 until 0x40.
    dchain-k0) SASS=val_dchain; RE='^_Z13val_dchain_k0'; EXTRA=(--trip 0x0140=64) ;;
    dchain-k4) SASS=val_dchain; RE='^_Z13val_dchain_k4'; COUNTS=$KIT/source/dchain-k4-b4.sass.csv ;;
    dchain-k16) SASS=val_dchain; RE='^_Z14val_dchain_k16'; EXTRA=(--trip 0x0250=64) ;;
    smem-tile) SASS=val_smem; RE='^_Z13val_smem_tile'; COUNTS=$KIT/source/smem-tile-b4.sass.csv ;;
    # ELEMS = 64 loads per thread, unrolled 8x: counter += 8 until 0x40.  After
    # the shared-memory tree `if (t < 32)` is `@P1 EXIT` (P1 = tid > 31): warps
    # 1..3 of each block leave there, warp 0 goes on to the shuffles.
    reduce)    SASS=val_smem; RE='^_Z10val_reduce'; EXTRA=(--trip 0x0220=8 --take '0x0350=warp >= 1') ;;
    sgemm)     SASS=val_sgemm; RE='^_Z9val_sgemm'; COUNTS=$KIT/source/sgemm-b4.sass.csv ;;
    # ROWS = 32 rows per thread, unrolled 16x: counter += 0x10 until 0x20.
    stencil5)  SASS=val_stencil; RE='^_Z12val_stencil5'; EXTRA=(--trip 0x0ae0=2) ;;
    # VALIDATION case of issue #19 (kit-2026-12-01): the seeds' H100 example,
    # one launch (traces/seeds_32x12k.trace has the same 27 instructions).
    seed32x12k) SASS=val_seed32x12k; RE='^_Z14val_seed32x12k' ;;
    # VALIDATION cases of issue #17, "peak then decline" (kit3-2026-12-01):
    # PASSES = 256 (counter += 1 until 0x100, back edge 0x05c0); rows per warp
    # RW = R/4 unrolled 4x (counter from 4, += 4 until 0xc / 0x14, back edge
    # 0x05b0): t4k (R = 32) 2 trips, t8k (R = 64) 4 trips.
    stencil-reuse-t4k) SASS=val_stencil_reuse; RE='^_Z17val_stencil_reuseILi32E'; EXTRA=(--trip 0x05c0=256 --trip 0x05b0=2) ;;
    stencil-reuse-t8k) SASS=val_stencil_reuse; RE='^_Z17val_stencil_reuseILi64E'; EXTRA=(--trip 0x05c0=256 --trip 0x05b0=4) ;;
    *) echo "gen-traces: unknown case $1" >&2; exit 1 ;;
  esac
}

CASES="ffma-ilp1 ffma-ilp2 ffma-ilp4 copy vecadd dchain-k0 dchain-k4 dchain-k16 smem-tile reduce sgemm stencil5"
# Cases measured by a later kit: case -> kit, and its CSV/stdout under it.
LATER_CASES="seed32x12k stencil-reuse-t4k stencil-reuse-t8k"
kit_of() {
  case $1 in
    seed32x12k) echo validate/data/h200/kit-2026-12-01 ;;
    stencil-reuse-*) echo validate/data/h200/kit3-2026-12-01 ;;
    *) echo "$KIT" ;;
  esac
}
csv_of() {
  case $1 in
    seed32x12k) echo "$(kit_of "$1")/seed/seed32x12k-ncu" ;;
    stencil-reuse-*) echo "$(kit_of "$1")/stencil/stencil-reuse-ncu" ;;
    *) echo "$KIT/valid/$1" ;;
  esac
}
# One CSV holding several kernels' launches (the stencil-reuse variants run one
# after another in one ncu file): keep only the rows whose "Kernel Name" is this
# one; "" = every row.
kname_of() {
  case $1 in
    stencil-reuse-t4k) echo 'val_stencil_reuse<32>' ;;
    stencil-reuse-t8k) echo 'val_stencil_reuse<64>' ;;
    *) echo '' ;;
  esac
}

# One line per profiled launch: ID gx gy gz bx by bz regs smem_static smem_dynamic
# barriers inst_executed blocks_per_sm (b from the LAUNCH lines, in ncu's order).
rows() {
  python3 - "$(csv_of "$1").raw.csv" "$(csv_of "$1").stdout" "$(kname_of "$1")" <<'EOF'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
head, data = rows[0], rows[2:]          # rows[1] is the units row
launches = [l for l in open(sys.argv[2]) if l.startswith('LAUNCH ')]
if len(launches) != len(data):
    sys.exit('gen-traces: %s: %d rows but %d LAUNCH lines' % (sys.argv[1], len(data), len(launches)))
def num(r, name):
    v = r[head.index(name)].replace(',', '')
    if not re.fullmatch(r'[0-9]+', v):
        sys.exit('gen-traces: %s: bad %s %r' % (sys.argv[1], name, v))
    return v
for r, l in zip(data, launches):
    if sys.argv[3] and not r[head.index('Kernel Name')].startswith('void %s(' % sys.argv[3]):
        continue
    kv = dict(w.split('=', 1) for w in l.split()[1:] if '=' in w)
    if kv['grid'] != num(r, 'launch__grid_size'):
        sys.exit('gen-traces: %s: LAUNCH grid=%s but ncu row ID %s has %s'
                 % (sys.argv[1], kv['grid'], r[head.index('ID')], num(r, 'launch__grid_size')))
    print(r[head.index('ID')], *[num(r, 'launch__%s' % k) for k in
          ('grid_dim_x', 'grid_dim_y', 'grid_dim_z', 'block_dim_x', 'block_dim_y', 'block_dim_z',
           'registers_per_thread', 'shared_mem_per_block_static', 'shared_mem_per_block_dynamic',
           'barrier_count')], num(r, 'smsp__inst_executed.sum'),
          # a LAUNCH line without b= (one launch, not a residency sweep): the
          # residency ncu's occupancy limits give
          kv['b'] if 'b' in kv else min(int(num(r, 'launch__occupancy_limit_%s' % k)) for k in
                                         ('blocks', 'registers', 'shared_mem', 'warps')))
EOF
}

mkdir -p "$OUT"
MANIFEST="$OUT/manifest.tsv"
printf 'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id\n' > "$MANIFEST.tmp"
npoints=0
for c in $CASES $LATER_CASES; do
  params "$c"
  K=$(kit_of "$c")
  rm -rf "${OUT:?}/$c"
  mkdir -p "$OUT/$c"
  rows "$c" > "$OUT/$c/.rows"
  while read -r id gx gy gz bx by bz regs ss sd bar insts b; do
    t="$OUT/$c/b$b.trace"
    cargs=()
    [ "$COUNTS" = - ] || cargs=(--counts "$COUNTS")
    # the launch (grid, block, registers, shared memory, barriers) from ncu's
    # row itself (--ncu/--ncu-id); the row's values are also in .rows (gx..bar)
    # for the LAUNCH-line check above
    if ! "$SMSIM" sass2trace --sass "$K/build/$SASS.sass" --kernel "$RE" "${cargs[@]}" \
         ${EXTRA[@]+"${EXTRA[@]}"} --annot "$ANNOT/$c.annot" \
         --ncu "$(csv_of "$c").raw.csv" --ncu-id "$id" \
         --expect-insts "$insts" --tolerance 0.5 -o "$t" 2>"$OUT/$c/.err"; then
      cat "$OUT/$c/.err" >&2
      echo "gen-traces: FAILED: $c b=$b (ncu ID $id): see the message above" >&2
      exit 1
    fi
    rm -f "$OUT/$c/.err"
    printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$b" "$t" "$(csv_of "$c").raw.csv" "$id" >> "$MANIFEST.tmp"
    npoints=$((npoints + 1))
  done < "$OUT/$c/.rows"
  rm -f "$OUT/$c/.rows"
done
mv "$MANIFEST.tmp" "$MANIFEST"
echo "gen-traces: $npoints traces, every one within 0.5 % of ncu's smsp__inst_executed.sum; manifest $MANIFEST"
