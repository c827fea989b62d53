#!/usr/bin/env python3
"""test_check_trace.py: CPU-side test of check_trace.py (no GPU). Writes the .smev that
test/trace_test.cu should produce (hand-built, per the spec) with a matching fake SASS listing,
checks that check_trace.py accepts it, then breaks one thing at a time and checks each is caught
(the mutation check). Run: python3 validate/tracer/test/test_check_trace.py"""
# SPDX-License-Identifier: GPL-3.0-or-later
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "check_trace.py")
KERNEL = "_Z10trace_testPKfPfPiii"
FULL, ODD = 0xffffffff, 0xaaaaaaaa
# fake listing: pc -> instruction (offsets as cuobjdump prints them)
SASS = {0x000: "MOV R1, c[0x0][0x28]", 0x080: "LDG.E.CONSTANT R4, desc[UR4][R2.64]", 0x090: "STS [R5], R4",
        0x0a0: "BAR.SYNC.DEFER_BLOCKING 0x0", 0x0b0: "LDS R6, [R7]", 0x0c0: "BAR.SYNC.DEFER_BLOCKING 0x0",
        0x100: "@P0 LDG.E.CONSTANT R8, desc[UR4][R2.64+0x800]", 0x120: "@P1 LDG.E.CONSTANT R9, desc[UR4][R2.64+0xa00]",
        0x140: "RED.E.ADD.STRONG.GPU desc[UR4][R10.64], R11", 0x150: "STG.E desc[UR4][R12.64], R0", 0x160: "EXIT"}


def rec(warp, kind, pc, mask, size=0, flags=0, addrs=()):
    b = struct.pack("<IBBHII", warp, kind, size, flags, pc, mask)
    return b + struct.pack("<%dQ" % len(addrs), *addrs)


def warp_records(w, IN=0x7f0000000000, CNT=0x7f0000100000, OUT=0x7f0000200000):
    g0 = (w // 2) * 64 + (w % 2) * 32
    r = [rec(w, 1, 0x0, FULL)]
    for i in range(4):
        r.append(rec(w, 3, 0x080, FULL, 4, 1, [IN + 4 * (i * 128 + g0 + l) for l in range(32)]))
        r.append(rec(w, 4, 0x090, FULL, 4, 2, [4 * ((w % 2) * 32 + l) for l in range(32)]))
        r.append(rec(w, 6, 0x0a0, FULL))
        r.append(rec(w, 4, 0x0b0, FULL, 4, 1, [4 * (63 - ((w % 2) * 32 + l)) for l in range(32)]))
        r.append(rec(w, 6, 0x0c0, FULL))
    r.append(rec(w, 3, 0x100, ODD, 4, 1, [IN + 4 * (512 + g0 + l) for l in range(32) if l & 1]))
    r.append(rec(w, 3, 0x140, FULL, 4, 3 | 0x8000, [CNT + 4 * l for l in range(32)]))
    r.append(rec(w, 3, 0x150, FULL, 4, 2, [OUT + 4 * (g0 + l) for l in range(32)]))
    r.append(rec(w, 2, 0x160, FULL))
    return r


def write(path, recs, nrec=None, sampled="0:2", extra_hdr=""):
    hdr = ("smev version = 1\nkernel = %s\nmodule = module-0.cubin\ngrid = 2,1,1\nblock = 64,1,1\nnregs = 16\n"
           "shmem static = 256\nshmem dynamic = 0\nlaunch = 0\nsampled blocks = %s\nrecords = %d\noverflow = 0\n"
           "pc base = 0x7f1234560000\n%s#events\n" % (KERNEL, sampled, len(recs) if nrec is None else nrec, extra_hdr))
    with open(path, "wb") as f:
        f.write(hdr.encode() + b"".join(recs))


def interleave(per_warp):
    """Round-robin interleaving of the warps' records (program order kept per warp)."""
    out, i = [], 0
    while any(i < len(p) for p in per_warp):
        out += [p[i] for p in per_warp if i < len(p)]
        i += 1
    return out


def run(path, sass):
    p = subprocess.run([sys.executable, CHECK, path, "--sass", sass, "--expect", "trace_test"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def main():
    d = tempfile.mkdtemp(prefix="check_trace_")
    sass = os.path.join(d, "module-0.sass")
    with open(sass, "w") as f:
        f.write("\n\tcode for sm_90\n\t\tFunction : %s\n" % KERNEL)
        for pc, ins in sorted(SASS.items()):
            f.write("        /*%04x*/                   %s ;  /* 0x000000000000 */\n" % (pc, ins))
    good = [warp_records(w) for w in range(4)]
    cases = []  # (name, records, kwargs, expected rc)
    cases.append(("good", interleave(good), {}, 0))
    cases.append(("good, block 1 sampled", interleave(good[2:]), {"sampled": "1:1"}, 0))
    m = [list(x) for x in good]; del m[1][3]
    cases.append(("a barrier missing", interleave(m), {}, 1))
    m = [list(x) for x in good]; m[2][21] = rec(2, 3, 0x100, 0xaaaaaaab, 4, 1, [0] * 17)
    cases.append(("odd-lane mask wrong", interleave(m), {}, 1))
    m = [list(x) for x in good]; m[0][1] = rec(0, 3, 0x090, FULL, 4, 1, [0x7f0000000000 + 4 * l for l in range(32)])
    cases.append(("global pc on an STS (pc base wrong)", interleave(m), {}, 1))
    m = [list(x) for x in good]; m[3][6] = rec(3, 3, 0x080, FULL, 4, 1, [0x7f0000000000 + 8 * l for l in range(32)])
    cases.append(("loop load not coalesced", interleave(m), {}, 1))
    cases.append(("block 0 recorded but only 1:1 sampled", interleave(good), {"sampled": "1:1"}, 1))
    cases.append(("record count in header wrong", interleave(good), {"nrec": 99}, 2))
    m = [list(x) for x in good]; m[0][0] = rec(0, 1, 0x8, FULL)
    cases.append(("pc not 16-aligned", interleave(m), {}, 2))
    m = [list(x) for x in good]; m[0][0] = rec(8, 1, 0x0, FULL)
    cases.append(("warp outside the grid", interleave(m), {}, 2))
    trunc = interleave(good)
    trunc[-1] = trunc[-1][:10]
    cases.append(("truncated record", trunc, {}, 2))
    bad = 0
    for name, recs, kw, want in cases:
        path = os.path.join(d, "t.smev")
        write(path, recs, **kw)
        rc, out = run(path, sass)
        ok = rc == want
        bad += not ok
        print("%-4s %-42s rc %d (want %d)" % ("ok" if ok else "FAIL", name, rc, want))
        if not ok:
            print(out)
    # a bad header: unknown version
    path = os.path.join(d, "v.smev")
    with open(path, "wb") as f:
        f.write(b"smev version = 2\n#events\n")
    rc, _ = run(path, sass)
    print("%-4s %-42s rc %d (want 2)" % ("ok" if rc == 2 else "FAIL", "unknown version", rc))
    bad += rc != 2
    print("test_check_trace: %s" % ("FAIL" if bad else "all %d cases ok" % (len(cases) + 1)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
