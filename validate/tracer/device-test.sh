#!/usr/bin/env bash
# device-test.sh: the tracer's GPU test, run from the repo root on the H200 machine:
#   OUT=/some/dir bash validate/tracer/device-test.sh        (the device tool sets $OUT)
# Builds the tracer, traces test/trace_test (checked by test/check_trace.py against the hand count,
# all blocks and --blocks 1:1, with --ncu), then one launch each of PyTorch softmax, layer_norm,
# torch.matmul fp32/bf16 (cuBLAS), a torch.compile'd function (Triton) and cupy.sum, each under
# `timeout` so one failure or hang does not stop the rest. Everything goes under $OUT (compressed);
# the summary is printed at the end and kept in $OUT/summary.txt. About 4-7 minutes.
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
OUT=${OUT:-$PWD/out-tracer}
mkdir -p "$OUT"
T0=$(date +%s)
HERE=validate/tracer
export CUDA=${CUDA:-/usr/local/cuda-13.0}
export PATH=$CUDA/bin:$PATH
TR=$HERE/smsim-trace
SUM=$OUT/summary.txt
: > "$SUM"
say() { echo "$*" | tee -a "$SUM"; }
left() { echo $((460 - ($(date +%s) - T0))); }   # seconds left of a ~8 minute budget

{
  echo "date: $(date -u)"; echo "host: $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv 2>&1
  nvidia-smi 2>&1 | head -20
  echo "ncu: $(ncu --version 2>&1 | tail -1)"
  echo "nvcc: $(nvcc --version 2>&1 | tail -2 | tr '\n' ' ')"
  echo "cuobjdump: $(cuobjdump --version 2>&1 | tail -1)"
  ls -la "$CUDA/compute-sanitizer/" 2>&1 | head -20
  python3 -c 'import torch, sys; print("torch", torch.__version__, torch.version.cuda, sys.version.split()[0])' 2>&1
  python3 -c 'import triton; print("triton", triton.__version__)' 2>&1
  python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1
} > "$OUT/meta.txt" 2>&1

say "== build"
if ! make -C "$HERE" -j8 CUDA="$CUDA" > "$OUT/build.log" 2>&1; then
  say "BUILD FAILED:"; tail -n 30 "$OUT/build.log" | tee -a "$SUM"; exit 1
fi
say "build ok ($(($(date +%s) - T0)) s)"
say "host-test: $(make -s -C "$HERE" host-test CUDA="$CUDA" 2>&1 | tail -n 1)"
cuobjdump -sass "$HERE/build/trace_test" > "$OUT/trace_test.app.sass" 2>&1

# run NAME SECONDS smsim-trace-args... -- cmd...: one guarded trace; logs in $OUT/NAME/
run() {
  local name=$1 secs=$2; shift 2
  local l; l=$(left)
  [ "$l" -lt "$secs" ] && secs=$l
  if [ "$secs" -lt 15 ]; then say "== $name: SKIPPED (out of time)"; return; fi
  local d=$OUT/$name t=$(date +%s)
  mkdir -p "$d"
  timeout -k 5 "$secs" "$TR" -o "$d" "$@" > "$d/stdout.txt" 2> "$d/stderr.txt"
  local rc=$?
  say "== $name: rc $rc in $(($(date +%s) - t)) s (limit $secs)$([ $rc -eq 124 ] && echo ' TIMED OUT')"
  tail -n 2 "$d/stdout.txt" | cut -c1-200 | sed 's/^/   app: /' | tee -a "$SUM"
  grep '^smsim-trace:' "$d/stderr.txt" | grep -v 'running: env' | head -n 12 | sed 's/^/   /' | tee -a "$SUM"
  grep -i 'error\|Traceback\|FAIL' "$d/stderr.txt" "$d/stdout.txt" | grep -v '^.*smsim-trace:' | head -n 5 | sed 's/^/   !! /' | tee -a "$SUM"
  [ -f "$d/launches.tsv" ] && sed 's/^/   tsv: /' "$d/launches.tsv" | cut -c1-300 | tee -a "$SUM"
  for s in "$d"/module-*.sass; do
    [ -f "$s" ] || continue
    say "   $(basename "$s"): $(grep -c '/\*[0-9a-f]\{4\}\*/' "$s") instructions; functions: $(grep -c 'Function :' "$s")"
    grep -m 3 -A 3 'Function :' "$s" | head -n 6 | cut -c1-160 | sed 's/^/     /' | tee -a "$SUM"
  done
  for e in "$d"/launch-*.smev; do
    [ -f "$e" ] || continue
    local m; m=$(sed -n 's/^module = //p' "$e" | head -1)
    python3 $HERE/test/check_trace.py "$e" --sass "$d/${m%.cubin}.sass" --max-warps 4 > "$e.summary" 2>&1
    local crc=$?
    say "   $(basename "$e"): $(stat -c %s "$e") bytes; check_trace rc $crc"
    head -n 30 "$e.summary" | cut -c1-200 | sed 's/^/     /' | tee -a "$SUM"
  done
  [ -f "$d/ncu.csv" ] && { say "   ncu.csv: $(wc -l < "$d/ncu.csv") lines"; python3 - "$d/ncu.csv" <<'PYEOF' 2>&1 | tee -a "$SUM"; }
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr = next((r for r in rows if "Kernel Name" in r), None)
if hdr is None:
    print("     ncu.csv: no header row"); sys.exit()
want = ["ID", "Kernel Name", "launch__grid_size", "launch__block_size", "launch__registers_per_thread",
        "smsp__inst_executed.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "gpu__time_duration.sum"]
idx = [(w, hdr.index(w)) for w in want if w in hdr]
for r in rows[rows.index(hdr) + 2:]:
    if len(r) == len(hdr):
        print("     ncu: " + "  ".join("%s=%s" % (w, r[i][:60]) for w, i in idx))
PYEOF
  [ -f "$d/ncu-source.csv" ] && say "   ncu-source.csv: $(wc -l < "$d/ncu-source.csv") lines"
  [ -f "$d/ncu.stderr" ] && tail -n 3 "$d/ncu.stderr" | sed 's/^/   ncu: /' | tee -a "$SUM"
}

# -- the test program: all blocks (+ ncu), then block sampling
run trace_test 90 -k 'trace_test' --ncu -- "$HERE/build/trace_test"
if [ ! -f "$OUT/trace_test/launch-0.smev" ]; then
  # diagnosis: the same without the driver call (cuFuncGetAttribute) made inside the launch callback
  SMSIM_TRACE_NO_FUNCATTR=1 run trace_test_nofuncattr 60 -k 'trace_test' -- "$HERE/build/trace_test"
  if [ -f "$OUT/trace_test_nofuncattr/launch-0.smev" ]; then
    say "   => cuFuncGetAttribute in the launch callback is the problem: SMSIM_TRACE_NO_FUNCATTR=1 from here on"
    export SMSIM_TRACE_NO_FUNCATTR=1
  fi
fi
if [ -f "$OUT/trace_test/launch-0.smev" ]; then
  python3 $HERE/test/check_trace.py "$OUT/trace_test/launch-0.smev" --sass "$OUT/trace_test/module-0.sass" \
    --expect trace_test --max-warps 4 > "$OUT/trace_test/check.txt" 2>&1
  say "   CHECK trace_test (all blocks): rc $? -- $(tail -n 1 "$OUT/trace_test/check.txt")"
  grep 'FAIL\|pc check\|LDG pcs\|atomic record' "$OUT/trace_test/check.txt" | head -n 12 | sed 's/^/     /' | tee -a "$SUM"
  say "   memory/barrier/exit instructions of trace_test in module-0.sass:"
  grep -E 'LDG|STG|LDS|STS|BAR|RED|ATOM|EXIT|BRA' "$OUT/trace_test/module-0.sass" | cut -c1-100 | head -n 30 | sed 's/^/     /' | tee -a "$SUM"
fi
run trace_test_b1 60 -k 'trace_test' --blocks 1:1 -- "$HERE/build/trace_test"
if [ -f "$OUT/trace_test_b1/launch-0.smev" ]; then
  python3 $HERE/test/check_trace.py "$OUT/trace_test_b1/launch-0.smev" --sass "$OUT/trace_test_b1/module-0.sass" \
    --expect trace_test > "$OUT/trace_test_b1/check.txt" 2>&1
  say "   CHECK trace_test --blocks 1:1: rc $? -- $(tail -n 1 "$OUT/trace_test_b1/check.txt")"
  grep 'FAIL' "$OUT/trace_test_b1/check.txt" | head -n 6 | sed 's/^/     /' | tee -a "$SUM"
fi
# the same program with the tracer loaded but no kernel matching: must run unchanged
run trace_test_nomatch 40 -k 'no_such_kernel' -- "$HERE/build/trace_test"

# -- programs nobody here wrote (one launch each, 64 blocks sampled)
PY=$OUT/py
mkdir -p "$PY"
cat > "$PY/softmax.py" <<'PYEOF'
import torch
x = torch.randn(4096, 1024, device="cuda")
y = torch.softmax(x, dim=-1)
torch.cuda.synchronize()
print("softmax ok", float(y.sum()))
PYEOF
cat > "$PY/layernorm.py" <<'PYEOF'
import torch
x = torch.randn(4096, 1024, device="cuda")
y = torch.nn.functional.layer_norm(x, (1024,))
torch.cuda.synchronize()
print("layer_norm ok", float(y.abs().sum()))
PYEOF
cat > "$PY/matmul.py" <<'PYEOF'
import sys, torch
dt = {"fp32": torch.float32, "bf16": torch.bfloat16}[sys.argv[1]]
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(1024, 1024, device="cuda", dtype=dt)
b = torch.randn(1024, 1024, device="cuda", dtype=dt)
c = a @ b
torch.cuda.synchronize()
print("matmul", sys.argv[1], "ok", float(c.float().abs().sum()))
PYEOF
cat > "$PY/compiled.py" <<'PYEOF'
import torch
def f(x, y):
    return torch.relu(x * y + 1.0).sum(dim=-1)
g = torch.compile(f)
x = torch.randn(2048, 1024, device="cuda")
y = torch.randn(2048, 1024, device="cuda")
r = g(x, y)
torch.cuda.synchronize()
print("compiled ok", float(r.sum()))
PYEOF
cat > "$PY/cupy_sum.py" <<'PYEOF'
import cupy
x = cupy.arange(1 << 22, dtype=cupy.float32)
s = cupy.sum(x)
cupy.cuda.Device().synchronize()
print("cupy.sum ok", float(s))
PYEOF
run torch_softmax 100 -k '[Ss]oft[Mm]ax' --blocks 0:64 --ncu -- python3 "$PY/softmax.py"
run torch_layernorm 50 -k 'layer_norm|LayerNorm' --blocks 0:64 -- python3 "$PY/layernorm.py"
run torch_matmul_fp32 70 -k 'gemm|nvjet|cutlass|xmma' --blocks 0:16 -- python3 "$PY/matmul.py" fp32
run torch_matmul_bf16 70 -k 'gemm|nvjet|cutlass|xmma' --blocks 0:16 -- python3 "$PY/matmul.py" bf16
run cupy_sum 50 -k '[Rr]educe|sum' --blocks 0:64 -- python3 "$PY/cupy_sum.py"
run torch_compile 120 -k 'triton' --blocks 0:64 -- python3 "$PY/compiled.py"

# keep $OUT small: drop huge library cubins (their .sass stays), compress the rest
find "$OUT" -name '*.cubin' -size +16M -print -delete | sed 's/^/dropped (over 16 MiB): /' | tee -a "$SUM"
find "$OUT" -name '*.smev' -size +64k -exec xz -T4 -6 {} + 2>/dev/null
find "$OUT" \( -name '*.sass' -o -name '*.cubin' -o -name '*.csv' -o -name '*.ncu-rep' \) -size +256k -exec xz -T4 -6 {} + 2>/dev/null
say "== total $(($(date +%s) - T0)) s; \$OUT size $(du -sh "$OUT" | cut -f1)"
du -a "$OUT" | sort -n -r | head -n 15 | tee -a "$SUM"
# the device tool returns a limited number of files: one archive of everything
cp "$SUM" /tmp/device-test-summary.txt
tar -C "$OUT" -cJf /tmp/device-test.tar.xz . && find "$OUT" -mindepth 1 -delete &&
  mv /tmp/device-test.tar.xz /tmp/device-test-summary.txt "$OUT/"
