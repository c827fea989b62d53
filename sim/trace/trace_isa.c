/* trace_isa.c — SASS opcode table: base name -> kind, pipe, space, dependency.
 *
 * Pipe assignment follows the Nsight Compute "Pipelines" descriptions (Kernel
 * Profiling Guide, section "Metrics Decoder"/pipelines) and the Volta..Hopper
 * whitepapers:
 *   - fma:  FP32 FADD/FMUL/FFMA, FP16x2 HADD2/HMUL2/HFMA2, and the integer
 *           multiplier IMAD/IMUL/IDP ("fmaheavy"): on Volta+ IMAD (and its
 *           IMAD.MOV/IMAD.IADD/IMAD.SHL idioms) issues to the FMA pipe.
 *   - alu:  integer add/logic/shift/compare, FP32 compare/min-max/select
 *           (FSETP, FMNMX, FSEL), moves, predicate logic, the uniform
 *           datapath (U* ops, modelled on the ALU pipe: smsim has no separate
 *           uniform pipe), F2FP/I2FP packing conversions.
 *   - mufu: the "XU" unit: MUFU.* transcendentals and the data-type
 *           conversions F2F, F2I, I2F, FRND (ncu: "XU ... int-to-float and
 *           float-to-int type conversions"); variable latency.
 *   - fp64: DFMA/DADD/DMUL/DSETP/DMNMX.
 *   - tensor: HMMA/IMMA/DMMA/BMMA, Hopper warpgroup xGMMA, Blackwell UTC*MMA.
 *   - lsu:  every memory instruction, and SHFL (an MIO operation).
 *   - cbu:  branches, barriers, EXIT, NOP-like control.
 * Dependency class: global/local/texture/surface accesses -> long scoreboard;
 * shared/constant accesses, SHFL, S2R/S2UR, MATCH, SYNCS -> short scoreboard
 * (ncu: short_scoreboard = "MIO ... shared memory, special math, ..."
 * long_scoreboard = "L1TEX (local, global, surface, texture)"); everything
 * else defers to the pipe's configured dependency (TR_DEP_PIPE).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdlib.h>
#include <string.h>
#include "arch/arch.h"
#include "trace/trace_isa.h"

struct isa_row {
    const char *name; /* base name, upper case                                 */
    uint8_t kind;     /* enum tr_kind                                          */
    uint8_t pipe;     /* enum arch_pipe                                        */
    uint8_t space;    /* enum tr_space                                         */
    uint8_t dep;      /* enum tr_dep                                           */
    uint8_t ndst;     /* leading operands that may be destinations             */
    uint8_t regs;     /* default registers of the main destination             */
};

#define A_ TR_K_ALU
#define L_ TR_K_LOAD
#define S_ TR_K_STORE
#define M_ TR_K_ATOMIC
#define PIPE TR_DEP_PIPE
#define SHORT TR_DEP_SHORT
#define LONG TR_DEP_LONG

/* Sorted by name (strcmp order) for bsearch; a test checks the order. */
static const struct isa_row rows[] = {
    {"ACQBULK",  TR_K_NOP,     PIPE_LSU,    TR_SP_NONE,   PIPE,  0, 1},
    {"ARRIVES",  TR_K_NOP,     PIPE_LSU,    TR_SP_NONE,   PIPE,  0, 1},
    {"ATOM",     M_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  2, 1}, /* generic: assumed global */
    {"ATOMG",    M_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  2, 1},
    {"ATOMS",    M_,           PIPE_LSU,    TR_SP_SHARED, SHORT, 2, 1},
    {"BAR",      TR_K_BARRIER, PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"BGMMA",    A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 4},
    {"BMMA",     A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 4},
    {"BMOV",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"BMSK",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"BPT",      TR_K_NOP,     PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"BRA",      TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"BREAK",    TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"BREV",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"BRX",      TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"BSSY",     TR_K_NOP,     PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"BSYNC",    TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"CALL",     TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"CCTL",     TR_K_NOP,     PIPE_LSU,    TR_SP_NONE,   PIPE,  0, 1},
    {"CGAERRBAR", TR_K_MEMBAR, PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1}, /* ERRBAR of the cluster */
    {"CS2R",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 2}, /* CS2R.32: 1 */
    {"DADD",     A_,           PIPE_FP64,   TR_SP_NONE,   PIPE,  1, 2},
    {"DEPBAR",   TR_K_MEMBAR,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"DFMA",     A_,           PIPE_FP64,   TR_SP_NONE,   PIPE,  1, 2},
    {"DMMA",     A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 2},
    {"DMNMX",    A_,           PIPE_FP64,   TR_SP_NONE,   PIPE,  1, 2},
    {"DMUL",     A_,           PIPE_FP64,   TR_SP_NONE,   PIPE,  1, 2},
    {"DSETP",    A_,           PIPE_FP64,   TR_SP_NONE,   PIPE,  2, 1},
    {"ELECT",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"ENDCOLLECTIVE", TR_K_NOP, PIPE_CBU,   TR_SP_NONE,   PIPE,  0, 1}, /* closes a collective (warp-uniform) region */
    {"ERRBAR",   TR_K_MEMBAR,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"EXIT",     TR_K_EXIT,    PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"F2F",      A_,           PIPE_MUFU,   TR_SP_NONE,   PIPE,  1, 1},
    {"F2FP",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"F2I",      A_,           PIPE_MUFU,   TR_SP_NONE,   PIPE,  1, 1},
    {"F2IP",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"FADD",     A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"FADD32I",  A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"FCHK",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"FENCE",    TR_K_MEMBAR,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"FFMA",     A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"FFMA32I",  A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"FLO",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"FMNMX",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"FMUL",     A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"FMUL32I",  A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"FRND",     A_,           PIPE_MUFU,   TR_SP_NONE,   PIPE,  1, 1},
    {"FSEL",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"FSET",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"FSETP",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"FSWZADD",  A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"HADD2",    A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"HFMA2",    A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"HGMMA",    A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 4},
    {"HMMA",     A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 4}, /* .F16 accumulator: 2 */
    {"HMNMX2",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"HMUL2",    A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"HSET2",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"HSETP2",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"I2F",      A_,           PIPE_MUFU,   TR_SP_NONE,   PIPE,  1, 1},
    {"I2FP",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"I2I",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"I2IP",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"IABS",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"IADD",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"IADD3",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  3, 1},
    {"IADD32I",  A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"IDP",      A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"IGMMA",    A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 4},
    {"IMAD",     A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  2, 1}, /* .WIDE: 2 */
    {"IMAD32I",  A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"IMMA",     A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 4},
    {"IMNMX",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"IMUL",     A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"IMUL32I",  A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"ISCADD",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"ISCADD32I",A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"ISETP",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"JMP",      TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"JMX",      TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"LD",       L_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  1, 1}, /* generic: assumed global */
    {"LDC",      L_,           PIPE_LSU,    TR_SP_CONST,  SHORT, 1, 1},
    {"LDG",      L_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  1, 1},
    {"LDGDEPBAR",TR_K_NOP,     PIPE_LSU,    TR_SP_NONE,   PIPE,  0, 1},
    {"LDGSTS",   L_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1}, /* async copy: no register result */
    {"LDL",      L_,           PIPE_LSU,    TR_SP_LOCAL,  LONG,  1, 1},
    {"LDS",      L_,           PIPE_LSU,    TR_SP_SHARED, SHORT, 1, 1},
    {"LDSM",     L_,           PIPE_LSU,    TR_SP_SHARED, SHORT, 1, 1}, /* .2: 2, .4: 4 */
    {"LEA",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"LEPC",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 2},
    {"LOP",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"LOP3",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"LOP32I",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"MATCH",    A_,           PIPE_ALU,    TR_SP_NONE,   SHORT, 2, 1},
    {"MEMBAR",   TR_K_MEMBAR,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"MOV",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"MOV32I",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"MUFU",     A_,           PIPE_MUFU,   TR_SP_NONE,   PIPE,  1, 1},
    {"NANOSLEEP",TR_K_NOP,     PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"NOP",      TR_K_NOP,     PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"P2R",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"PLOP3",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"PMTRIG",   TR_K_NOP,     PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"POPC",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"PRMT",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"PSETP",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"QGMMA",    A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  1, 4},
    {"QSPC",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"R2P",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"R2UR",     A_,           PIPE_ALU,    TR_SP_NONE,   SHORT, 2, 1},
    {"RED",      M_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1}, /* no result */
    {"REDG",     M_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1},
    {"REDUX",    A_,           PIPE_ALU,    TR_SP_NONE,   SHORT, 1, 1},
    {"RET",      TR_K_BRANCH,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"S2R",      A_,           PIPE_ALU,    TR_SP_NONE,   SHORT, 1, 1},
    {"S2UR",     A_,           PIPE_ALU,    TR_SP_NONE,   SHORT, 1, 1},
    {"SEL",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"SGXT",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"SHF",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"SHFL",     A_,           PIPE_LSU,    TR_SP_NONE,   SHORT, 2, 1},
    {"SHL",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"SHR",      A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"ST",       S_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1}, /* generic: assumed global */
    {"STAS",     S_,           PIPE_LSU,    TR_SP_SHARED, SHORT, 0, 1}, /* store to a cluster's (distributed) shared memory */
    {"STG",      S_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1},
    {"STL",      S_,           PIPE_LSU,    TR_SP_LOCAL,  LONG,  0, 1},
    {"STS",      S_,           PIPE_LSU,    TR_SP_SHARED, SHORT, 0, 1},
    {"STSM",     S_,           PIPE_LSU,    TR_SP_SHARED, SHORT, 0, 1},
    {"SUATOM",   M_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"SULD",     L_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"SURED",    M_,           PIPE_LSU,    TR_SP_TEX,    LONG,  0, 1},
    {"SUST",     S_,           PIPE_LSU,    TR_SP_TEX,    LONG,  0, 1},
    {"SYNCS",    A_,           PIPE_LSU,    TR_SP_NONE,   SHORT, 1, 1}, /* mbarrier ops (Hopper+) */
    {"TEX",      L_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"TLD",      L_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"TLD4",     L_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"TMML",     L_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"TXD",      L_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"TXQ",      L_,           PIPE_LSU,    TR_SP_TEX,    LONG,  1, 1},
    {"UBLKCP",   L_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1},
    {"UBMSK",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"UBREV",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"UCGABAR_ARV", TR_K_NOP,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1}, /* cluster barrier: not modelled */
    {"UCGABAR_WAIT", TR_K_NOP, PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"UFLO",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"UIADD3",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  3, 1},
    {"UIMAD",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1}, /* uniform datapath */
    {"UISETP",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"ULDC",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1}, /* uniform constant load */
    {"ULEA",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"ULOP",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"ULOP3",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"ULOP32I",  A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"UMOV",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"UP2UR",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"UPLOP3",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"UPOPC",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"UPRMT",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"USEL",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"USGXT",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"USHF",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"UTCBAR",   TR_K_NOP,     PIPE_TENSOR, TR_SP_NONE,   PIPE,  0, 1},
    {"UTCHMMA",  A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  0, 1}, /* Blackwell: result in tensor memory */
    {"UTCIMMA",  A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  0, 1},
    {"UTCQMMA",  A_,           PIPE_TENSOR, TR_SP_NONE,   PIPE,  0, 1},
    {"UTMACMDFLUSH", TR_K_NOP, PIPE_LSU,    TR_SP_NONE,   PIPE,  0, 1}, /* TMA command flush */
    {"UTMALDG",  L_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1}, /* TMA: into shared, no register */
    {"UTMAPF",   L_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1},
    {"UTMASTG",  S_,           PIPE_LSU,    TR_SP_GLOBAL, LONG,  0, 1},
    {"VIADD",    A_,           PIPE_FMA,    TR_SP_NONE,   PIPE,  1, 1},
    {"VIADDMNMX",A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"VIMNMX",   A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"VIMNMX3",  A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  1, 1},
    {"VOTE",     A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"VOTEU",    A_,           PIPE_ALU,    TR_SP_NONE,   PIPE,  2, 1},
    {"WARPGROUP",TR_K_MEMBAR,  PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1}, /* .ARRIVE/.DEPBAR: wait for wgmma */
    {"WARPSYNC", TR_K_NOP,     PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
    {"YIELD",    TR_K_NOP,     PIPE_CBU,    TR_SP_NONE,   PIPE,  0, 1},
};

enum { NROWS = (int)(sizeof rows / sizeof rows[0]) };

int tr_isa_count(void) { return NROWS; }

const char *tr_isa_name(int i)
{
    return (i >= 0 && i < NROWS) ? rows[i].name : NULL;
}

size_t tr_isa_base_len(const char *opcode)
{
    const char *dot = strchr(opcode, '.');
    return dot ? (size_t)(dot - opcode) : strlen(opcode);
}

static const struct isa_row *find_row(const char *base, size_t len)
{
    int lo = 0, hi = NROWS - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strncmp(rows[mid].name, base, len);
        if (c == 0 && rows[mid].name[len] != '\0')
            c = 1; /* row name longer than the base: it sorts after */
        if (c == 0)
            return &rows[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* Does the modifier list (text after the base, starting at '.') hold `m`? */
static int has_mod(const char *mods, const char *m)
{
    size_t n = strlen(m);
    for (const char *p = mods; p && *p; p = strchr(p + 1, '.')) {
        if (*p != '.')
            continue;
        if (!strncmp(p + 1, m, n) && (p[1 + n] == '.' || p[1 + n] == '\0'))
            return 1;
    }
    return 0;
}

/* First type modifier (F16/F32/F64/S32/U64/...) in the modifier list: for
 * conversions it names the destination type. */
static const char *first_type(const char *mods)
{
    for (const char *p = mods; p && *p; p = strchr(p + 1, '.')) {
        if (*p != '.')
            continue;
        const char *t = p + 1;
        if ((t[0] == 'F' || t[0] == 'S' || t[0] == 'U') && t[1] >= '0' && t[1] <= '9')
            return t;
        if (!strncmp(t, "BF16", 4))
            return t;
    }
    return NULL;
}

static int type_is_64(const char *t)
{
    return t && t[1] == '6' && t[2] == '4' && (t[3] == '.' || t[3] == '\0');
}

int tr_isa_decode(const char *opcode, struct tr_inst *out, struct tr_isa_info *info)
{
    size_t blen = tr_isa_base_len(opcode);
    const char *mods = opcode + blen;
    const struct isa_row *r = find_row(opcode, blen);

    memset(out, 0, sizeof *out);
    memset(info, 0, sizeof *info);
    size_t olen = strlen(opcode);
    if (olen >= sizeof out->opcode)
        olen = sizeof out->opcode - 1;
    memcpy(out->opcode, opcode, olen);
    out->opcode[olen] = '\0';
    out->conflict = 1;
    out->latency = -1;
    out->active = 0xffffffffu;
    out->pattern = TR_PAT_COALESCED;
    out->wbar = out->rbar = out->depbar_sb = TR_SB_NONE; /* control bits: none */
    out->opr[0] = out->opr[1] = out->opr[2] = TR_OPR_NONE;

    if (!r) {
        out->kind = TR_K_ALU;
        out->pipe = PIPE_ALU;
        out->space = TR_SP_NONE;
        out->dep = TR_DEP_PIPE;
        info->known = 0;
        info->ndst_ops = 1;
        info->dst_regs = 1;
        return 0;
    }
    out->kind = r->kind;
    out->pipe = r->pipe;
    /* GH100/GA10x: FMA-heavy runs IMAD, IDP and FP32; FMA-lite FP32 only;
     * FP16x2 is dual-issued to both (NVIDIA forum answer on the fmaheavy /
     * fmalite pipes, forums.developer.nvidia.com/t/302018/7).  Measured on
     * the H200: IMAD issues at half FFMA's rate (docs/calibration.md).
     * IMAD.WIDE holds FMA-heavy twice as long and VIADD runs there (kit8
     * misl1p, ncu's sm__inst_executed_pipe_fmaheavy and its active cycles:
     * docs/calibration.md "FMA-heavy: IMAD.WIDE and VIADD"). */
    if (r->pipe == PIPE_FMA) {
        if (blen == 4 && !strncmp(opcode, "IMAD", 4) && has_mod(mods, "WIDE"))
            out->fma_path = TR_FMA_WIDE;
        else if ((blen == 5 && !strncmp(opcode, "VIADD", 5)) ||
                 (blen == 4 && (!strncmp(opcode, "IMAD", 4) || !strncmp(opcode, "IMUL", 4))) ||
            (blen == 7 && (!strncmp(opcode, "IMAD32I", 7) || !strncmp(opcode, "IMUL32I", 7))) ||
            (blen == 3 && !strncmp(opcode, "IDP", 3)))
            out->fma_path = TR_FMA_HEAVY;
        else if (opcode[0] == 'H')
            out->fma_path = TR_FMA_BOTH;
    }
    out->space = r->space;
    out->dep = r->dep;
    info->known = 1;
    info->ndst_ops = r->ndst;
    int regs = r->regs;
    int mem = r->space != TR_SP_NONE;
    info->is_memory = mem;

    /* Width-changing modifiers. */
    int width = 4;
    if (has_mod(mods, "128"))
        regs = 4, width = 16;
    else if (has_mod(mods, "64"))
        regs = 2, width = 8;
    else if (has_mod(mods, "U16") || has_mod(mods, "S16"))
        width = 2;
    else if (has_mod(mods, "U8") || has_mod(mods, "S8"))
        width = 1;

    if (!strncmp(opcode, "IMAD", blen) && blen == 4 && has_mod(mods, "WIDE"))
        regs = 2;
    if (blen == 4 && !strncmp(opcode, "CS2R", 4) && has_mod(mods, "32"))
        regs = 1;
    if (blen == 4 && !strncmp(opcode, "LDSM", 4)) {
        regs = has_mod(mods, "4") ? 4 : has_mod(mods, "2") ? 2 : 1;
        width = 4 * regs;
    }
    if (blen == 4 && !strncmp(opcode, "HMMA", 4)) {
        const char *t = first_type(mods);
        regs = (t && !strncmp(t, "F16", 3)) ? 2 : 4;
    }
    if ((blen == 3 && (!strncmp(opcode, "F2F", 3) || !strncmp(opcode, "F2I", 3) ||
                       !strncmp(opcode, "I2F", 3) || !strncmp(opcode, "I2I", 3))) ||
        (blen == 4 && !strncmp(opcode, "FRND", 4))) {
        /* The first type names the destination, except that a lone type of
         * the other kind names the source: I2F.U64 R7, R8 converts a 64-bit
         * integer into an F32 (calib_write.sass of the H200 kit has it with
         * an odd destination), F2I.F64.TRUNC a double into an S32. */
        const char *t = first_type(mods);
        int src_only = t && ((!strncmp(opcode, "I2F", 3) && t[0] != 'F' && t[0] != 'B') ||
                             (!strncmp(opcode, "F2I", 3) && (t[0] == 'F' || t[0] == 'B')));
        regs = !src_only && type_is_64(t) ? 2 : 1;
    }
    info->dst_regs = regs;
    if (mem) {
        out->width = (uint16_t)width;
        if (r->space == TR_SP_CONST)
            out->pattern = TR_PAT_BROADCAST;
    }
    return 1;
}
