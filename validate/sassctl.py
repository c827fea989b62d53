#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Decode the control field of sm_90 SASS (issue #18) for the calib3 kit's checks.

Input: `cuobjdump -sass` text (the authoritative form, used on the GPU machine) or a
cubin (ELF; used where no cuobjdump exists: then only the few opcodes below are named).
ctrl = hi >> 41: bits 0-3 stall, 4 yield, 5-7 write counter, 8-10 read counter,
11-16 wait mask, 17-20 reuse (one bit per operand slot a, b, c, +1).

  sassctl.py list FILE [FUNC_SUBSTR]   one line per instruction: func pc op operands ctrl fields
  sassctl.py banks FILE FUNC_SUBSTR... FFMA/FMUL/FADD/MUFU of each function's hottest (last
                                        backward-branch) loop: register banks (reg % 2), reuse
"""
import re
import signal
import struct
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)

OPS = {0x223: "FFMA", 0x423: "FFMA", 0x623: "FFMA", 0x823: "FFMA", 0xA23: "FFMA",
       0x220: "FMUL", 0x420: "FMUL", 0x620: "FMUL", 0x820: "FMUL",
       0x221: "FADD", 0x421: "FADD", 0x621: "FADD", 0x821: "FADD",
       0x308: "MUFU", 0x381: "LDG", 0x386: "STG", 0x947: "BRA", 0x94D: "EXIT",
       0x918: "NOP", 0x805: "CS2R", 0x919: "S2R", 0x210: "IADD3", 0x810: "IADD3",
       0x20C: "ISETP", 0x80C: "ISETP", 0x984: "LDS", 0x988: "STS", 0xB82: "LDC",
       0x224: "IMAD", 0x424: "IMAD", 0x624: "IMAD", 0x824: "IMAD", 0x202: "MOV", 0x802: "MOV"}


def ctrl_fields(hi):
    c = hi >> 41
    return {"stall": c & 15, "yield": (c >> 4) & 1, "wcnt": (c >> 5) & 7, "rcnt": (c >> 8) & 7,
            "wait": (c >> 11) & 63, "reuse": (c >> 17) & 15}


def fmt_ctrl(f):
    return "stall=%d yield=%d wcnt=%s rcnt=%s wait=0x%02x reuse=%s" % (
        f["stall"], f["yield"], "-" if f["wcnt"] == 7 else f["wcnt"],
        "-" if f["rcnt"] == 7 else f["rcnt"], f["wait"], format(f["reuse"], "04b")[::-1])


def from_text(path):
    """yields (func, pc, text, lo, hi)"""
    return from_lines(open(path, errors="replace").read().splitlines())


def functions(lines):
    """mangled name -> [(pc, instruction text)] of a `cuobjdump -sass` listing (its lines)"""
    fns = {}
    for func, pc, text, _lo, _hi in from_lines(lines):
        fns.setdefault(func, []).append((pc, text))
    return fns


def function_of(path, prefix):
    """[(pc, instruction text)] of the one function of the listing at path whose
    mangled name starts with prefix (the calibration scripts' kernel templates)"""
    hits = [v for k, v in functions(open(path, errors="replace").read().splitlines()).items()
            if k and k.startswith(prefix)]
    if len(hits) != 1:
        raise SystemExit(f"{path}: {len(hits)} functions start with {prefix}, expected 1")
    return hits[0]


def from_lines(lines):
    """yields (func, pc, text, lo, hi) of a listing's lines"""
    func = None
    i = 0
    while i < len(lines):
        l = lines[i]
        m = re.search(r"Function : (\S+)", l)
        if m:
            func = m.group(1)
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);\s+/\* 0x([0-9a-f]{16}) \*/", l)
        if m and i + 1 < len(lines):
            m2 = re.search(r"/\* 0x([0-9a-f]{16}) \*/", lines[i + 1])
            if m2:
                yield func, int(m.group(1), 16), m.group(2).strip(), int(m.group(3), 16), int(m2.group(1), 16)
                i += 2
                continue
        i += 1


def from_cubin(path):
    b = open(path, "rb").read()
    if b[:4] != b"\x7fELF":
        raise SystemExit("not ELF")
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    secs = []
    for k in range(shnum):
        name, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", b, shoff + k * shentsize)
        secs.append((name, off, size))
    stroff = secs[shstrndx][1]
    for name, off, size in secs:
        n = b[stroff + name:b.index(b"\0", stroff + name)].decode()
        if not n.startswith(".text."):
            continue
        func = n[len(".text."):]
        for pc in range(0, size, 16):
            lo, hi = struct.unpack_from("<QQ", b, off + pc)
            op = lo & 0xFFF
            mn = OPS.get(op, "op%03x" % op)
            d, a, bb, c = (lo >> 16) & 255, (lo >> 24) & 255, (lo >> 32) & 255, hi & 255
            r = lambda x: "RZ" if x == 255 else "R%d" % x
            form = op >> 9
            if mn in ("FFMA", "FMUL", "FADD"):
                if form == 1:  # R R R
                    ops = [r(d), r(a), r(bb)] + ([r(c)] if mn == "FFMA" else [])
                elif form == 2:  # R R imm
                    ops = [r(d), r(a)] + ([r(c)] if mn == "FFMA" else []) + ["imm"]
                elif form == 3:  # R R c[]
                    ops = [r(d), r(a), "c[?]"] + ([r(c)] if mn == "FFMA" else [])
                else:
                    ops = [r(d), r(a), "?", r(c)]
                txt = mn + " " + ", ".join(ops)
            elif mn == "MUFU":
                txt = "MUFU.f%d %s, %s" % ((hi >> 10) & 15, r(d), r(bb))
            else:
                txt = mn
            yield func, pc, txt, lo, hi


def load(path):
    with open(path, "rb") as f:
        head = f.read(4)
    return list(from_cubin(path) if head == b"\x7fELF" else from_text(path))


REG = re.compile(r"(-?\|?)R(\d+)(\.reuse)?")


def banks(insts, keys):
    for key in keys:
        fn = [x for x in insts if x[0] and key in x[0]]
        funcs = sorted(set(x[0] for x in fn))
        for f in funcs:
            body = [x for x in fn if x[0] == f]
            # the hottest loop: the last backward BRA's target .. itself
            lo_pc, hi_pc = None, None
            for (_, pc, t, lo, hi) in body:
                m = re.match(r"(@!?U?P\d+\s+)?BRA\s+(?:`\(\.L_x_\d+\)|0x([0-9a-f]+))", t)
                if m and m.group(2):
                    tgt = int(m.group(2), 16)
                    if tgt < pc:
                        lo_pc, hi_pc = tgt, pc
            if lo_pc is None:  # cubin mode (branch targets not decoded): the whole function
                lo_pc, hi_pc = 0, 1 << 30
            n = {"n": 0, "reuse": 0}
            sig = {}
            ex = []
            for (_, pc, t, lo, hi) in body:
                if not (lo_pc <= pc <= hi_pc):
                    continue
                m = re.match(r"(FFMA|FMUL|FADD|MUFU)\S*\s+(.*)", t)
                if not m:
                    continue
                if m.group(1) != "MUFU" and ("imm" in t or "c[" in t or "UR" in t or re.search(r", -?[0-9]", t)):
                    continue  # only all-register forms: their sources use the register-file ports
                regs = [int(x[1]) for x in REG.findall(m.group(2))]
                srcs = regs[1:]
                cf = ctrl_fields(hi)
                n["n"] += 1
                if cf["reuse"]:
                    n["reuse"] += 1
                # bank signature: sources per bank (largest first) / distinct source registers
                per = sorted([sum(1 for r in srcs if r % 2 == k) for k in (0, 1)], reverse=True)
                key = "%s:%s/%dreg" % (m.group(1), "+".join(str(x) for x in per if x), len(set(srcs)))
                sig[key] = sig.get(key, 0) + 1
                if len(ex) < 4:
                    ex.append("%s [%s]" % (t, fmt_ctrl(cf)))
            print("BANKS func=%s loop=0x%x-0x%x ops=%d with_reuse=%d banks(sources per bank/distinct regs)=%s"
                  % (f, lo_pc, hi_pc if hi_pc < (1 << 30) else 0, n["n"], n["reuse"],
                     ",".join("%s*%d" % (k, v) for k, v in sorted(sig.items()))))
            for e in ex:
                print("  e.g. " + e)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    insts = load(sys.argv[2])
    if sys.argv[1] == "list":
        key = sys.argv[3] if len(sys.argv) > 3 else ""
        for (f, pc, t, lo, hi) in insts:
            if key in (f or ""):
                print("%s 0x%04x %-60s %s" % (f, pc, t, fmt_ctrl(ctrl_fields(hi))))
    elif sys.argv[1] == "banks":
        banks(insts, sys.argv[3:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
