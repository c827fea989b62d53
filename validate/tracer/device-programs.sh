#!/bin/bash
# device-programs.sh: on the GPU machine, from the repo root: record, profile and rebuild launch 0 of each
# program of validate/data/h200/tracer-2026-12-02/py/ (whole launches; the fp32 GEMM 16 blocks),
# simulate it, compare with ncu ($OUT/results.tsv), and run the CI validation subset beside it
# ($OUT/ci.txt). SMSIM: a static smsim build to run there (default build/smsim).
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
R=$PWD; S=${SMSIM:-$R/build/smsim}; W=/tmp/tr2; rm -rf $W; mkdir -p $W/py
( cd validate/tracer && make -s CUDA=/usr/local/cuda-13.0 >/dev/null 2>&1 ) || { echo "tracer build failed"; exit 1; }
cp validate/data/h200/tracer-2026-12-02/py/*.py $W/py/
T=$R/validate/tracer/smsim-trace
( $S validate validate/data/h200 --max-insts 60000000 --thresholds validate/thresholds.tsv --format text --jobs 6 > $OUT/ci.txt 2> $OUT/ci.err; echo "rc=$?" >> $OUT/ci.err ) &
run() { local n=$1 s=$2; shift 2; echo "== $n"; timeout $s $T --smsim $S "$@" > $W/$n.log 2>&1; echo "rc $?"; grep -E "launch 0:|rebuilt|warp-instructions|error|Error" $W/$n.log | head -5; }
run trace_test 120 -k trace_test --ncu -o $W/trace_test -- $R/validate/tracer/build/trace_test
run softmax 200 -k '[Ss]oft[Mm]ax' --ncu --buffer 1024 -o $W/softmax -- python3 $W/py/softmax.py
run layernorm 200 -k 'layer_norm|LayerNorm' --ncu --buffer 1024 -o $W/layernorm -- python3 $W/py/layernorm.py
run cupy_sum 150 -k '[Rr]educe|sum' --ncu --buffer 1024 -o $W/cupy_sum -- python3 $W/py/cupy_sum.py
run torch_compile 200 -k 'triton' --ncu --buffer 1024 -o $W/torch_compile -- python3 $W/py/compiled.py
run matmul_bf16 150 -k 'gemm|nvjet|cutlass|xmma' --ncu -o $W/matmul_bf16 -- python3 $W/py/matmul.py bf16
run matmul_fp32 150 -k 'gemm|nvjet|cutlass|xmma' --ncu --blocks 0:16 -o $W/matmul_fp32 -- python3 $W/py/matmul.py fp32
echo -e "program\tsampled\twarps_traced\twarps_grid\tsmsim_insts\tncu_insts\tinsts_err_pct\tsec_ld\tncu_ld\tsec_st\tncu_st\tsmsim_cycles\tncu_cycles" > $OUT/results.tsv
for d in trace_test softmax layernorm cupy_sum torch_compile matmul_bf16 matmul_fp32; do
  D=$W/$d; [ -f $D/launch-0.smev ] || { echo "$d: no recording"; continue; }
  python3 validate/tracer/test/check_trace.py $D/launch-0.smev --sass $D/module-0.sass > $D/check.txt 2>&1
  $S --config configs/h200.yaml $D/trace-0/kernelslist.g --format csv > $D/smsim.csv 2> $D/smsim.err
  $S compare --ncu $D/ncu.csv --config configs/h200.yaml $D/trace-0/kernelslist.g > $D/compare.txt 2>&1
  python3 - "$D" "$d" >> $OUT/results.tsv <<'PY'
import csv,sys,re
D,name=sys.argv[1],sys.argv[2]
def rows(p):
    return [r for r in csv.reader(open(p)) if r and not r[0].startswith('#')]
n=rows(D+'/ncu.csv'); h=n[0]; v=n[2]
g=lambda k: float(v[h.index(k)].replace(',','')) if k in h else float('nan')
try:
    s=rows(D+'/smsim.csv'); sh=s[0]; sv=s[2]; si=float(sv[sh.index('smsp__inst_executed.sum')]); sc=float(sv[sh.index('sm__cycles_elapsed.avg')])
except Exception as e:
    si=sc=float('nan')
hdr=open(D+'/launch-0.smev','rb').read(4096).split(b'#events')[0].decode()
samp=re.search(r'sampled blocks = (\d+):(\d+)',hdr)
gd=[int(x) for x in re.search(r'grid = ([\d,]+)',hdr).group(1).split(',')]; bd=[int(x) for x in re.search(r'block = ([\d,]+)',hdr).group(1).split(',')]
wpb=(bd[0]*bd[1]*bd[2]+31)//32; blocks=gd[0]*gd[1]*gd[2]; nb=int(samp.group(2))
traced=min(nb,blocks)*wpb; allw=blocks*wpb
ni=g('smsp__inst_executed.sum'); scale=allw/traced
m=re.search(r'global sectors: ld (\d+) st (\d+)',open(D+'/check.txt').read())
ld,st=(int(m.group(1)),int(m.group(2))) if m else (-1,-1)
err=(si*scale-ni)/ni*100 if ni==ni and si==si else float('nan')
print('\t'.join(str(x) for x in [name, samp.group(0).split('= ')[1], traced, allw, int(si) if si==si else 'nan', int(ni) if ni==ni else 'nan', '%.3f'%err, ld, int(g('l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum')), st, int(g('l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum')), sc, g('sm__cycles_elapsed.avg')]))
PY
done
cat $OUT/results.tsv
wait
tail -3 $OUT/ci.err
# bring back: small artefacts
cd $W && find . -name '*.smev' -size +8M -delete; find . -name '*.cubin' -delete; find . -name 'ncu.ncu-rep' -delete
tar cJf $OUT/tr2.tar.xz . 2>/dev/null; ls -la $OUT
