#!/usr/bin/env python3
"""check_trace.py: reference reader of the tracer's launch-K.smev files (format: the tracer spec,
validate/tracer/README.md) and the check of the tracer's GPU test (test/trace_test.cu).

  check_trace.py FILE.smev [--sass module-M.sass] [--expect trace_test] [--max-warps N]

Prints a summary (header, records per kind per warp, per-pc record counts and masks). With --sass the
recorded pcs are looked up in the cuobjdump listing of the kernel (kind 3 must be a global memory
instruction, 4 a shared one, 6 a BAR ...). With --expect trace_test the hand-counted expectation of
test/trace_test.cu is checked. Exit status: 0 ok, 1 expectation failed, 2 unreadable input.
Standard library only."""
# SPDX-License-Identifier: GPL-3.0-or-later
import argparse
import collections
import re
import struct
import sys

KINDS = {1: "block_enter", 2: "block_exit", 3: "global", 4: "shared", 5: "local", 6: "barrier",
         7: "syncwarp", 8: "shfl", 9: "call", 10: "ret", 14: "memcpy_async"}
MEM_KINDS = (3, 4, 5, 14)
REQUIRED = ["smev version", "kernel", "module", "grid", "block", "nregs", "shmem static", "shmem dynamic",
            "launch", "sampled blocks", "records", "overflow", "pc base"]
FLAG_READ, FLAG_WRITE, FLAG_ATOMSYS, FLAG_PREFETCH, FLAG_PDATA_NULL = 0x1, 0x2, 0x4, 0x8, 0x8000


class BadTrace(Exception):
    pass


def dims(text, key):
    parts = text.split(",")
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise BadTrace("header %s = %r is not X,Y,Z" % (key, text))
    return tuple(int(p) for p in parts)


def read_smev(path):
    """Returns (header dict, list of records (warp, kind, size, flags, pc, mask, addrs))."""
    with open(path, "rb") as f:
        data = f.read()
    marker = b"#events\n"
    end = data.find(marker)
    if end < 0:
        raise BadTrace("%s: no '#events' line" % path)
    hdr = {}
    for n, line in enumerate(data[:end].decode("ascii", "replace").splitlines(), 1):
        if " = " not in line:
            raise BadTrace("%s:%d: header line %r is not 'key = value'" % (path, n, line))
        k, v = line.split(" = ", 1)
        hdr[k.strip()] = v.strip()
    for k in REQUIRED:
        if k not in hdr:
            raise BadTrace("%s: header key '%s' missing" % (path, k))
    if hdr["smev version"] != "1":
        raise BadTrace("%s: unknown smev version %s" % (path, hdr["smev version"]))
    grid, block = dims(hdr["grid"], "grid"), dims(hdr["block"], "block")
    wpb = (block[0] * block[1] * block[2] + 31) // 32
    nwarps = grid[0] * grid[1] * grid[2] * wpb
    hdr["_grid"], hdr["_block"], hdr["_wpb"], hdr["_nwarps"] = grid, block, wpb, nwarps
    recs = []
    pos = end + len(marker)
    body = data[pos:]
    off = 0
    while off < len(body):
        if off + 16 > len(body):
            raise BadTrace("%s: truncated record header at byte %d of the events" % (path, off))
        warp, kind, size, flags, pc, mask = struct.unpack_from("<IBBHII", body, off)
        if kind not in KINDS and not (0 < kind <= 40):
            raise BadTrace("%s: record at byte %d has unknown kind %d" % (path, off, kind))
        if warp >= nwarps:
            raise BadTrace("%s: record at byte %d: warp %d outside the grid's %d warps" % (path, off, warp, nwarps))
        if pc % 16:
            raise BadTrace("%s: record at byte %d: pc 0x%x is not 16-aligned" % (path, off, pc))
        off += 16
        addrs = ()
        if kind in MEM_KINDS:
            n = bin(mask).count("1")
            if off + 8 * n > len(body):
                raise BadTrace("%s: truncated addresses of the record ending at byte %d" % (path, off))
            addrs = struct.unpack_from("<%dQ" % n, body, off)
            off += 8 * n
        recs.append((warp, kind, size, flags, pc, mask, addrs))
    if int(hdr["records"]) != len(recs):
        raise BadTrace("%s: header says %s records, file has %d" % (path, hdr["records"], len(recs)))
    return hdr, recs


def read_sass(path, kernel):
    """pc -> instruction text of `kernel` in a cuobjdump -sass listing (empty if not found)."""
    out, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\s*Function : (\S+)", line)
            if m:
                cur = m.group(1)
                continue
            if cur != kernel:
                continue
            m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*(/\*.*)?$", line)
            if m:
                out[int(m.group(1), 16)] = m.group(2).rstrip(" ;")
    return out


def opcode(ins):
    """Opcode of a SASS instruction text, without its guard predicate."""
    t = ins.split()
    if t and t[0].startswith("@"):
        t = t[1:]
    return t[0] if t else ""


def flagstr(f):
    s = "".join(c for b, c in ((FLAG_READ, "R"), (FLAG_WRITE, "W"), (FLAG_ATOMSYS, "S"), (FLAG_PREFETCH, "P")) if f & b)
    if f & FLAG_PDATA_NULL:
        s += "n"
    return s or "-"


def summary(hdr, recs, sass, max_warps):
    print("kernel %s  grid %s  block %s  regs %s  smem %s+%s  sampled %s  records %d  overflow %s  pc base %s" % (
        hdr["kernel"], hdr["grid"], hdr["block"], hdr["nregs"], hdr["shmem static"], hdr["shmem dynamic"],
        hdr["sampled blocks"], len(recs), hdr["overflow"], hdr["pc base"]))
    per_warp = collections.defaultdict(collections.Counter)
    for r in recs:
        per_warp[r[0]][r[1]] += 1
    kinds = sorted({r[1] for r in recs})
    print("records per kind per warp (%d warps with records):" % len(per_warp))
    print("  warp  " + " ".join("%12s" % KINDS.get(k, str(k)) for k in kinds))
    for i, w in enumerate(sorted(per_warp)):
        if i >= max_warps:
            print("  ... %d more warps" % (len(per_warp) - max_warps))
            break
        print("  %4d  " % w + " ".join("%12d" % per_warp[w][k] for k in kinds))
    print("per pc: kind, records, masks (count), size, flags, sass")
    by_pc = collections.OrderedDict()
    for r in sorted(recs, key=lambda r: (r[4], r[1])):
        by_pc.setdefault((r[4], r[1]), []).append(r)
    for (pc, kind), rs in by_pc.items():
        masks = collections.Counter(r[5] for r in rs)
        ms = " ".join("%08x(%d)" % (m, c) for m, c in masks.most_common(3))
        fl = ",".join(sorted({flagstr(r[3]) for r in rs}))
        print("  0x%05x %-12s %6d  %-36s size %-2d %-5s %s" % (pc, KINDS.get(kind, str(kind)), len(rs), ms, rs[0][2], fl,
                                                          sass.get(pc, "(no sass)" if sass else "")))


def global_sectors(recs):
    """32-byte sectors of the global records, as ncu counts them per warp-level
    request (l1tex__t_sectors_pipe_lsu_mem_global_op_ld/_st): distinct sectors
    touched by the active lanes of one record; a memcpy_async (LDGSTS) record's
    global source counts as a load, as ncu counts it (the cuBLAS GEMM of the
    H200 run: 394,752 sectors for 16 of 128 blocks, x 8 = ncu's 3,145,728
    + 0.4 %).  Returns (ld, st, atomic)."""
    ld = st = at = 0
    for r in recs:
        if r[1] == 14:
            size = max(r[2], 1)
            ld += len({s for a in r[6] for s in range(a // 32, (a + size - 1) // 32 + 1)})
            continue
        if r[1] != 3:
            continue
        size = max(r[2], 1)
        secs = set()
        for a in r[6]:
            secs.update(range(a // 32, (a + size - 1) // 32 + 1))
        f = r[3]
        if f & FLAG_READ and f & FLAG_WRITE:  # atomics and reductions read and write
            at += len(secs)
        elif f & FLAG_WRITE:
            st += len(secs)
        else:
            ld += len(secs)
    return ld, st, at


def check_pcs(recs, sass, errors):
    """Every recorded pc must be an instruction of the matching class in the listing."""
    classes = {3: ("LDG", "STG", "ATOMG", "ATOM", "RED", "REDG", "LD", "ST"), 4: ("LDS", "STS", "ATOMS", "LD", "ST"),
               5: ("LDL", "STL", "LD", "ST"), 6: ("BAR",), 2: ("EXIT",), 14: ("LDGSTS",)}
    bad = collections.Counter()
    for r in recs:
        kind, pc = r[1], r[4]
        if kind not in classes or kind == 1:
            continue
        op = opcode(sass.get(pc, ""))
        if not any(op == c or op.startswith(c + ".") for c in classes[kind]):
            bad[(kind, pc, sass.get(pc, "(no instruction)"))] += 1
    for (kind, pc, ins), n in sorted(bad.items()):
        errors.append("pc 0x%x of %d %s record(s) is '%s' in the listing" % (pc, n, KINDS[kind], ins))
    if not bad:
        print("pc check: every recorded pc is a matching instruction in the listing (pc base is right)")


def expect_trace_test(hdr, recs, sass, errors):
    first, count = (int(x) for x in hdr["sampled blocks"].split(":"))
    wpb = hdr["_wpb"]
    warps = set(range(first * wpb, (first + count) * wpb))
    if hdr["_grid"] != (2, 1, 1) or hdr["_block"] != (64, 1, 1):
        errors.append("launch shape %s x %s, expected 2,1,1 x 64,1,1" % (hdr["grid"], hdr["block"]))
    if hdr["overflow"] != "0":
        errors.append("overflow set")
    want = {1: 1, 2: 1, 3: 7, 4: 8, 6: 8}
    by_warp = collections.defaultdict(list)
    for r in recs:
        by_warp[r[0]].append(r)
    if set(by_warp) != warps:
        errors.append("warps with records %s, expected %s" % (sorted(by_warp), sorted(warps)))
    full = 0xffffffff
    for w in sorted(by_warp):
        rs = by_warp[w]
        cnt = collections.Counter(r[1] for r in rs)
        if dict(cnt) != want:
            errors.append("warp %d: records per kind %s, expected %s" % (w, dict(sorted(cnt.items())), want))
            continue
        if rs[0][1] != 1 or rs[-1][1] != 2:
            errors.append("warp %d: first/last record kinds %d/%d, expected block enter/exit" % (w, rs[0][1], rs[-1][1]))
        g = [r for r in rs if r[1] == 3]
        # Told apart by what they are, not by their order (the compiler may schedule them around):
        # the loop load is the pc with 4 records; the odd-lane load has mask aaaaaaaa; the store is
        # the write-only record; the atomic is the remaining one.
        pcs = collections.Counter(r[4] for r in g)
        loop = [r for r in g if pcs[r[4]] == 4]
        odd = [r for r in g if r[5] == 0xaaaaaaaa]
        st = [r for r in g if r not in loop and r not in odd and (r[3] & FLAG_WRITE) and not (r[3] & FLAG_READ)
              and not (r[3] & FLAG_PDATA_NULL)]
        at = [r for r in g if r not in loop and r not in odd and r not in st]
        if (len(loop), len(odd), len(st), len(at)) != (4, 1, 1, 1):
            errors.append("warp %d: global records split as loop %d, odd-lane %d, store %d, atomic %d; expected 4,1,1,1"
                          % (w, len(loop), len(odd), len(st), len(at)))
            continue
        if any(r[5] != full for r in rs if r not in odd):
            errors.append("warp %d: a record other than the odd-lane load has a partial mask" % w)
        for i, r in enumerate(loop):
            if r[2] != 4 or not (r[3] & FLAG_READ) or (r[3] & FLAG_WRITE):
                errors.append("warp %d: loop load %d has size %d flags %s" % (w, i, r[2], flagstr(r[3])))
            a = r[6]
            if any(a[j] - a[0] != 4 * j for j in range(len(a))):
                errors.append("warp %d: loop load %d lane addresses are not 4 B apart" % (w, i))
            if i and a[0] - loop[i - 1][6][0] != 512:
                errors.append("warp %d: loop load %d starts %d B after the previous one, expected 512"
                              % (w, i, a[0] - loop[i - 1][6][0]))
        # in[512 + g] for odd lanes; loop load 0 is in[g]: 2048 B further, odd lanes only
        exp = [loop[0][6][0] + 2048 + 4 * l for l in range(32) if l & 1]
        if list(odd[0][6]) != exp:
            errors.append("warp %d: odd-lane load addresses differ from in[512 + g]" % w)
        if any(at[0][6][j] - at[0][6][0] != 4 * j for j in range(32)):
            errors.append("warp %d: atomic record's 32 lane addresses are not counter[0..31]" % w)
        if w == min(by_warp):
            print("atomic record flags (as the API reports them): %s = 0x%x, size %d" % (flagstr(at[0][3]), at[0][3], at[0][2]))
        if any(st[0][6][j] - st[0][6][0] != 4 * j for j in range(32)) or st[0][6][0] - loop[0][6][0] == 0:
            errors.append("warp %d: store addresses are not out[g..g+31]" % w)
        sh = [r for r in rs if r[1] == 4]
        sts, lds = sh[0::2], sh[1::2]
        if any(not (r[3] & FLAG_WRITE) for r in sts) or any(not (r[3] & FLAG_READ) or (r[3] & FLAG_WRITE) for r in lds):
            errors.append("warp %d: shared records do not alternate write, read" % w)
        if len({r[4] for r in sts}) != 1 or len({r[4] for r in lds}) != 1:
            errors.append("warp %d: STS/LDS records are not one pc each" % w)
        for r in sts:
            if any(r[6][j] - r[6][0] != 4 * j for j in range(32)):
                errors.append("warp %d: STS offsets not 4 B apart" % w)
                break
        for r in lds:
            if any(r[6][0] - r[6][j] != 4 * j for j in range(32)):
                errors.append("warp %d: LDS offsets not 4 B apart descending (tile[63 - t])" % w)
                break
        bars = [r for r in rs if r[1] == 6]
        if len({r[4] for r in bars}) != 2:
            errors.append("warp %d: barriers at %d distinct pcs, expected 2" % (w, len({r[4] for r in bars})))
    if sass:
        ldg = sorted(pc for pc, ins in sass.items() if opcode(ins).startswith("LDG"))
        seen = sorted({r[4] for r in recs if r[1] == 3})
        never = [pc for pc in ldg if pc not in seen]
        print("LDG pcs in the listing: %s; never recorded: %s (the 'never' load: %s)"
              % ([hex(p) for p in ldg], [hex(p) for p in never],
                 ", ".join(sass[p] for p in never) or "compiled away or branched around"))
        if len(never) > 1:
            errors.append("%d LDG instructions never recorded, expected at most 1 (the 'never' load)" % len(never))


def main():
    ap = argparse.ArgumentParser(description="read and check a tracer launch-K.smev file")
    ap.add_argument("smev")
    ap.add_argument("--sass", help="cuobjdump -sass listing of the module (module-M.sass)")
    ap.add_argument("--expect", choices=["trace_test"], help="check the hand-counted expectation of a test program")
    ap.add_argument("--max-warps", type=int, default=8, help="warps shown in the per-warp table")
    a = ap.parse_args()
    try:
        hdr, recs = read_smev(a.smev)
        sass = read_sass(a.sass, hdr["kernel"]) if a.sass else {}
    except (BadTrace, OSError) as e:
        print("check_trace: %s" % e, file=sys.stderr)
        return 2
    if a.sass and not sass:
        print("check_trace: %s has no function %s" % (a.sass, hdr["kernel"]), file=sys.stderr)
        return 2
    summary(hdr, recs, sass, a.max_warps)
    ld, st, at = global_sectors(recs)
    print("global sectors: ld %d st %d atomic %d (sampled blocks %s)" % (ld, st, at, hdr["sampled blocks"]))
    errors = []
    if sass:
        check_pcs(recs, sass, errors)
    if a.expect == "trace_test":
        expect_trace_test(hdr, recs, sass, errors)
    for e in errors:
        print("FAIL: %s" % e)
    if a.expect:
        print("check_trace: %s" % ("FAIL (%d problems)" % len(errors) if errors else "expectation met"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
