#!/usr/bin/env python3
"""gen_smev.py OUT.smev [VARIANT] -- write the event file of tests/test_convert_events.c
(tests/data/events/recon.sass, function _Z5reconPf: one block of 64 threads, 2 warps) in the
format of docs/tracing.md "The event file", for tests/cli_sass2trace_events.sh.

VARIANT: ok (default), or one of the broken files the error catalogue shows:
  truncated   the last record loses 5 of its 16 bytes
  badkey      header key 'nrogs' instead of 'nregs'
  warp        record 3 names warp 5 (the launch has 2)
  pc          record 3's pc is 0x200 (the function has 18 instructions)
  nopath      record 5 (warp 0's second LDG) names the @P0 STG at 0xe0 instead, which
              only the STS or the STG (both without a record there) lead to
  ldgsts      another kernel (ldgsts.sass, _Z6ldgstsPf, one warp): two memcpy_async
              (LDGSTS) records, the first 32 lanes x 4 bytes at consecutive addresses
              (4 sectors), the second lanes 0-15 64 bytes apart (16 sectors), then a
              barrier, a shared load and a global store of 32 x 4 bytes (4 sectors):
              20 global load sectors and 4 store sectors by hand
  hopper      another kernel (hopper.sass, _Z6hopperv, one warp of Hopper opcodes):
              lanes 16-31 leave by the unguarded EXIT at 0x140 first (the @P0 BRA
              taken), then lanes 0-15 (the NOP side): 22 warp-instructions by hand
SPDX-License-Identifier: GPL-3.0-or-later
"""
import struct
import sys

FULL = 0xFFFFFFFF


def rec(warp, kind, pc, mask):
    mem = kind in (3, 4, 5, 14)
    b = struct.pack("<IBBHII", warp, kind, 4 if mem else 0, 1 if mem else 0, pc, mask)
    if mem:
        k = 0
        for lane in range(32):
            if mask >> lane & 1:
                b += struct.pack("<Q", 0x7F0000001000 + 0x1000 * warp + 4 * k)
                k += 1
    return b


def rec_at(warp, kind, size, flags, pc, mask, addrs):
    """A record with the given per-lane addresses (one per active lane)."""
    assert len(addrs) == bin(mask).count("1")
    b = struct.pack("<IBBHII", warp, kind, size, flags, pc, mask)
    return b + b"".join(struct.pack("<Q", a) for a in addrs)


def one_warp(out, kernel, recs):
    head = ("smev version = 1\nkernel = %s\nmodule = module-1.cubin\ngrid = 1,1,1\n"
            "block = 32,1,1\nnregs = 168\nshmem static = 0\nshmem dynamic = 1024\nlaunch = 0\n"
            "sampled blocks = 0:1\nrecords = %d\noverflow = 0\npc base = 0x7f12340000\n"
            "#events\n" % (kernel, len(recs)))
    with open(out, "wb") as f:
        f.write(head.encode() + b"".join(recs))


def main():
    out = sys.argv[1]
    variant = sys.argv[2] if len(sys.argv) > 2 else "ok"
    if variant == "ldgsts":
        g = 0x7F0000001000
        one_warp(out, "_Z6ldgstsPf", [
            rec(0, 1, 0x0, FULL),
            rec_at(0, 14, 4, 1, 0x10, FULL, [g + 4 * k for k in range(32)]),
            rec_at(0, 14, 4, 1, 0x20, 0x0000FFFF, [g + 0x1000 + 64 * k for k in range(16)]),
            rec(0, 6, 0x50, FULL),
            rec_at(0, 4, 16, 1, 0x60, FULL, [16 * k for k in range(32)]),
            rec_at(0, 3, 4, 2, 0x70, FULL, [g + 0x2000 + 4 * k for k in range(32)]),
            rec(0, 2, 0x80, FULL)])
        return
    if variant == "hopper":
        one_warp(out, "_Z6hopperv", [rec(0, 1, 0x0, FULL), rec(0, 2, 0x140, 0xFFFF0000),
                                     rec(0, 2, 0x140, 0x0000FFFF)])
        return
    recs = [rec(0, 1, 0x0, FULL), rec(1, 1, 0x0, FULL), rec(0, 3, 0x60, FULL),
            rec(1, 3, 0x60, FULL), rec(0, 3, 0x60, FULL), rec(0, 3, 0x60, FULL),
            rec(1, 3, 0x60, FULL), rec(0, 4, 0xB0, FULL), rec(1, 3, 0xD0, FULL),
            rec(0, 2, 0xF0, FULL), rec(1, 3, 0xE0, 0x0000FFFF), rec(1, 2, 0xF0, FULL)]
    if variant == "warp":
        recs[2] = rec(5, 3, 0x60, FULL)
    elif variant == "pc":
        recs[2] = rec(0, 3, 0x200, FULL)
    elif variant == "nopath":
        recs[4] = rec(0, 3, 0xE0, FULL)
    head = ("smev version = 1\nkernel = _Z5reconPf\nmodule = module-1.cubin\ngrid = 1,1,1\n"
            "block = 64,1,1\nnregs = 16\nshmem static = 256\nshmem dynamic = 0\nlaunch = 0\n"
            "sampled blocks = 0:1\nrecords = %d\noverflow = 0\npc base = 0x7f12340000\n"
            "#events\n" % len(recs))
    if variant == "badkey":
        head = head.replace("nregs", "nrogs")
    data = head.encode() + b"".join(recs)
    if variant == "truncated":
        data = data[:-5]
    with open(out, "wb") as f:
        f.write(data)


main()
