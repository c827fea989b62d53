/* trace_accelsim.c — Accel-Sim kernel traces (kernelslist.g, .traceg[.xz]).
 *
 * Opening reads only the kernel list and each kernel's header.  When the
 * engine starts a thread block (warp_begin of its first warp), the block's
 * section is skimmed — lines are found with memchr and only the 'warp =' /
 * 'insts =' lines are read — to learn where each warp's instruction lines
 * are.  Each warp then reads its own lines through a small private window
 * (AS_WARP_BUF bytes, refilled with pread): once to validate them when it
 * starts (an error must surface at warp_begin, where the engine reports it),
 * once more as the engine asks for its instructions.  Memory is therefore
 * (running warps x a few KB) + the static code + one bit per block id,
 * whatever the size of the file or of a block.  .xz files are decoded once
 * into an unlinked temporary file (trace_accelsim_io.c) and read the same way.
 *
 * Sections are met in file order by one forward skimmer; a section passed
 * over before its block is asked for is remembered (offset and line) until
 * it runs.  The engine starts blocks in increasing order, which is the order
 * the tracer writes them, so that list stays empty and each section is
 * skimmed once.
 *
 * Threads (trace_kernel.mt_safe): warp_begin/next/end may run on several
 * threads at once on distinct warps.  The kernel's mutex guards the block
 * tables, the skimmer, the source and errors; the per-instruction path takes
 * no lock (its cursor is private, statics are looked up without one).  An
 * error is reported once and then sticks: its message is the first error in
 * file order (found by one validating pass from the top), so it does not
 * depend on which thread met which error first.
 *
 * Format: docs/accelsim.md (the syntax as the NVBit tracer writes it and
 * Accel-Sim's trace parser reads it).  Instruction-line parsing and static
 * instructions live in trace_accelsim_inst.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "trace/trace_accelsim.h"
#include "trace/trace_accelsim_int.h"

/* ---- shared per-list state (warned opcodes) ----------------------------- */

static void shared_unref(struct as_shared *sh)
{
    if (!sh)
        return;
    pthread_mutex_lock(&sh->mu);
    int left = --sh->refs;
    pthread_mutex_unlock(&sh->mu);
    if (left > 0)
        return;
    for (int i = 0; i < sh->nwarned; i++)
        free(sh->warned[i]);
    free(sh->warned);
    pthread_mutex_destroy(&sh->mu);
    free(sh);
}

/* ---- messages ------------------------------------------------------------ */

#define KERR(k, err, line, col, ...) as_fmt_err(err, (k)->path, line, col, __VA_ARGS__)

/* The message of a failed line read. */
static int lr_err(const struct as_kernel *k, const struct as_lr *r, char *err)
{
    const char *m = k->src ? as_src_error(k->src) : NULL;
    if (r->err[0])
        snprintf(err, TRACE_ERR_MAX, "%s: %s", k->path, r->err);
    else
        snprintf(err, TRACE_ERR_MAX, "%s", m ? m : "read error");
    return -1;
}

static void bytes_add(struct as_kernel *k, int64_t n)
{
    uint64_t now = __atomic_add_fetch(&k->bytes_now, (uint64_t)n, __ATOMIC_RELAXED);
    uint64_t peak = __atomic_load_n(&k->bytes_peak, __ATOMIC_RELAXED);
    while (now > peak &&
           !__atomic_compare_exchange_n(&k->bytes_peak, &peak, now, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
        ;
}

/* ---- small parsers ------------------------------------------------------- */

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Strict unsigned decimal at s (up to a non-digit); -1 if none/overflow. */
static int dec_u64(const char *s, const char **end, uint64_t *v)
{
    uint64_t x = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    while (*p >= '0' && *p <= '9') {
        if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*p - '0');
        p++;
    }
    *end = p;
    *v = x;
    return 0;
}

static int hex_u64(const char *s, const char **end, uint64_t *v)
{
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    uint64_t x = 0;
    int n = 0;
    for (;; p++, n++) {
        int d = as_hexval((unsigned char)*p);
        if (d < 0)
            break;
        if (n >= 16)
            return -1;
        x = x << 4 | (uint64_t)d;
    }
    if (n == 0)
        return -1;
    *end = p;
    *v = x;
    return 0;
}

/* ---- header -------------------------------------------------------------- */

enum {
    H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_BINARY, H_STREAM, H_SHBASE,
    H_LOCBASE, H_NVBIT, H_VERSION, H_LINEINFO, H_SM_BARRIERS, H_SM_DYN, H_COUNT
};

static const char *const hkeys[H_COUNT] = {
    "kernel name", "kernel id", "grid dim", "block dim", "shmem", "nregs", "binary version",
    "cuda stream id", "shmem base_addr", "local mem base_addr", "nvbit version",
    "accelsim tracer version", "enable lineinfo", "smsim barriers", "smsim shmem dynamic"
};

/* Required header keys (the tracer writes all of these). */
static const int hreq[] = {H_NAME, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_BINARY, H_VERSION};

/* "(x,y,z)" with each 1..2^31-1. */
static int parse_dims(const char *s, uint32_t d[3], const char **bad)
{
    const char *p = skip_ws(s);
    if (*p != '(') {
        *bad = p;
        return -1;
    }
    p++;
    for (int i = 0; i < 3; i++) {
        uint64_t v;
        const char *e;
        p = skip_ws(p);
        if (dec_u64(p, &e, &v) || v < 1 || v > 0x7fffffff) {
            *bad = p;
            return -1;
        }
        p = e;
        d[i] = (uint32_t)v;
        p = skip_ws(p);
        if (*p != (i < 2 ? ',' : ')')) {
            *bad = p;
            return -1;
        }
        p++;
    }
    p = skip_ws(p);
    if (*p) {
        *bad = p;
        return -1;
    }
    return 0;
}

/* Whole-value integer in [lo, hi]. */
static int parse_int(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
    const char *p = skip_ws(s), *e;
    if (dec_u64(p, &e, v) || *skip_ws(e) || *v < lo || *v > hi)
        return -1;
    return 0;
}

static int parse_header(struct as_kernel *k, struct as_lr *r, char *err)
{
    int seen[H_COUNT] = {0};
    uint64_t shmem = 0, smdyn = 0, barriers = 1, nregs = 0, nregs_line = 0;
    size_t nregs_col = 0;
    struct tr_launch *l = &k->base.launch;
    const char *line;
    size_t len;
    for (;;) {
        line = as_lr_next(r, k->src, &len);
        if (!line) {
            if (r->failed)
                return lr_err(k, r, err);
            k->body_off = as_lr_tell(r);
            k->body_line = r->lineno + 1;
            break;
        }
        uint64_t ln = r->lineno;
        const char *p = skip_ws(line);
        if (!*p)
            continue;
        if (*p == '#') { /* "#traces format = ..." starts the body */
            k->body_off = r->loff;
            k->body_line = ln;
            break;
        }
        size_t col = (size_t)(p - line) + 1;
        if (*p != '-')
            return KERR(k, err, ln, col, "expected a '-key = value' header line or the "
                                      "'#traces format' line, got '%.40s'", p);
        const char *eq = strstr(p, " = ");
        const char *eq2 = strchr(p, '=');
        if (!eq2)
            return KERR(k, err, ln, col, "header line without '=': '%.40s'", p);
        if (!eq || eq2 < eq)
            eq = eq2;
        size_t klen = (size_t)(eq - (p + 1));
        while (klen > 0 && (p[klen] == ' ' || p[klen] == '\t'))
            klen--;
        const char *val = skip_ws(eq2 + 1);
        size_t vcol = (size_t)(val - line) + 1;
        int h = -1;
        for (int i = 0; i < H_COUNT; i++)
            if (strlen(hkeys[i]) == klen && !strncmp(p + 1, hkeys[i], klen))
                h = i;
        if (h < 0)
            continue; /* unknown keys are tolerated (newer tracers add some) */
        if (seen[h])
            return KERR(k, err, ln, col, "'-%s' given twice (first at line %llu)", hkeys[h],
                          (unsigned long long)seen[h]);
        seen[h] = (int)ln;
        uint64_t v;
        const char *bad = NULL;
        switch (h) {
        case H_NAME: {
            size_t n = strlen(val);
            while (n > 0 && (val[n - 1] == ' ' || val[n - 1] == '\t'))
                n--;
            if (n == 0)
                return KERR(k, err, ln, vcol, "-kernel name is empty");
            if (n >= sizeof l->name)
                n = sizeof l->name - 1; /* long mangled names are cut for reports */
            memcpy(l->name, val, n);
            l->name[n] = '\0';
            break;
        }
        case H_ID:
            if (parse_int(val, 0, UINT32_MAX, &v))
                return KERR(k, err, ln, vcol, "-kernel id must be an integer >= 0, got '%.40s'", val);
            break;
        case H_GRID:
        case H_BLOCK:
            if (parse_dims(val, h == H_GRID ? l->grid : l->block, &bad))
                return KERR(k, err, ln, (size_t)(bad - line) + 1,
                              "-%s must be (x,y,z) with each 1..2147483647, got '%.40s'",
                              hkeys[h], val);
            /* block indices are 32-bit (as in the native reader): a product
             * that wrapped would simulate a few blocks and succeed */
            if (h == H_GRID &&
                (uint64_t)l->grid[0] * l->grid[1] > UINT32_MAX / l->grid[2])
                return KERR(k, err, ln, vcol, "-grid dim has more than 4294967295 blocks");
            if (h == H_BLOCK &&
                (uint64_t)l->block[0] * l->block[1] > UINT32_MAX / l->block[2])
                return KERR(k, err, ln, vcol, "-block dim has more than 4294967295 threads");
            break;
        case H_SHMEM:
            if (parse_int(val, 0, 0x7fffffff, &shmem))
                return KERR(k, err, ln, vcol, "-shmem must be bytes 0..2147483647, got '%.40s'", val);
            break;
        case H_NREGS:
            /* checked after the loop: -binary version decides how */
            if (parse_int(val, 0, UINT64_MAX, &nregs))
                return KERR(k, err, ln, vcol, "-nregs must be 1..255, got '%.40s'", val);
            nregs_line = ln;
            nregs_col = vcol;
            break;
        case H_BINARY:
            /* 0: NVBit could not query the kernel (seen in real traces of
             * tracer version 5, with -nregs garbage too) */
            if (parse_int(val, 0, 999, &v) || (v > 0 && v < 10))
                return KERR(k, err, ln, vcol,
                              "-binary version must be the SASS version (70, 75, 80, 86, "
                              "89, 90, 100, 120, ...), got '%.40s'", val);
            k->binary_version = (int)v;
            if (v == 0)
                fprintf(k->sh->warn, "%s:%llu:%zu: warning: -binary version = 0: the tracer "
                        "could not read the kernel's attributes (one SASS table serves every "
                        "version; -nregs is not trusted)\n", k->path, (unsigned long long)ln,
                        vcol);
            break;
        case H_STREAM:
            if (parse_int(val, 0, UINT64_MAX, &v))
                return KERR(k, err, ln, vcol, "-cuda stream id must be an integer >= 0, got '%.40s'", val);
            break;
        case H_SHBASE:
        case H_LOCBASE: {
            const char *e;
            if (hex_u64(val, &e, &v) || *skip_ws(e))
                return KERR(k, err, ln, vcol, "-%s must be a hex address, got '%.40s'", hkeys[h], val);
            break;
        }
        case H_NVBIT:
            break;
        case H_VERSION:
            if (parse_int(val, 0, 1000, &v) || v < 3 || v > 5)
                return KERR(k, err, ln, vcol,
                              "-accelsim tracer version '%.40s' is not supported (3, 4 or 5)", val);
            k->version = (int)v;
            break;
        case H_LINEINFO:
            if (parse_int(val, 0, 1, &v))
                return KERR(k, err, ln, vcol, "-enable lineinfo must be 0 or 1, got '%.40s'", val);
            k->lineinfo = (int)v;
            break;
        case H_SM_BARRIERS:
            if (parse_int(val, 0, 16, &barriers))
                return KERR(k, err, ln, vcol, "-smsim barriers must be 0..16, got '%.40s'", val);
            break;
        case H_SM_DYN:
            if (parse_int(val, 0, 0x7fffffff, &smdyn))
                return KERR(k, err, ln, vcol, "-smsim shmem dynamic must be bytes, got '%.40s'", val);
            break;
        }
    }
    if (nregs >= 1 && nregs <= 255) {
        l->regs = (int)nregs;
    } else if (seen[H_NREGS] && (!seen[H_BINARY] || k->binary_version != 0)) {
        return KERR(k, err, nregs_line, nregs_col, "-nregs must be 1..255, got '%llu'",
                    (unsigned long long)nregs);
    } else if (seen[H_NREGS]) {
        k->nregs_bad = nregs + 1; /* estimated from the first block (open_kernel) */
        k->nregs_line = nregs_line;
    }
    for (size_t i = 0; i < sizeof hreq / sizeof hreq[0]; i++)
        if (!seen[hreq[i]])
            return KERR(k, err, k->body_line, 1, "header has no '-%s = ...' line", hkeys[hreq[i]]);
    if (smdyn > shmem)
        return KERR(k, err, (uint64_t)seen[H_SM_DYN], 1,
                      "-smsim shmem dynamic (%llu) exceeds -shmem (%llu)",
                      (unsigned long long)smdyn, (unsigned long long)shmem);
    l->smem_dynamic = (int)smdyn;
    l->smem_static = (int)(shmem - smdyn);
    l->barriers = (int)barriers;
    k->wpb = tr_warps_per_block(l);
    k->blocks = tr_grid_blocks(l);
    if (k->wpb > 64)
        return KERR(k, err, (uint64_t)seen[H_BLOCK], 1,
                      "-block dim has %u threads: more than 2048", k->wpb * 32);
    return 0;
}

/* ---- block ids: met (bitmap) and passed over (hash map) ------------------- */

/* Test and set bit `id` of *bits (grown as needed).  1 if it was set, 0 if
 * not, -1 when out of memory. */
static int bit_set(uint8_t **bits, uint64_t *cap, uint32_t id)
{
    uint64_t byte = id / 8;
    if (byte >= *cap) {
        uint64_t c = *cap ? *cap : 64;
        while (c <= byte)
            c *= 2;
        uint8_t *p = realloc(*bits, c);
        if (!p)
            return -1;
        memset(p + *cap, 0, c - *cap);
        *bits = p;
        *cap = c;
    }
    int was = (*bits)[byte] >> (id % 8) & 1;
    (*bits)[byte] |= (uint8_t)(1u << (id % 8));
    return was;
}

static int bit_get(const uint8_t *bits, uint64_t cap, uint32_t id)
{
    return id / 8 < cap && (bits[id / 8] >> (id % 8) & 1);
}

static uint32_t id_hash(uint32_t id)
{
    return id * 2654435761u;
}

static struct as_pend *pend_find(const struct as_kernel *k, uint32_t id)
{
    if (!k->cappend)
        return NULL;
    uint64_t m = k->cappend - 1;
    for (uint64_t i = id_hash(id) & m;; i = (i + 1) & m) {
        if (!k->pend[i].used)
            return NULL;
        if (k->pend[i].id == id)
            return &k->pend[i];
    }
}

static int pend_add(struct as_kernel *k, uint32_t id, uint64_t off, uint64_t line)
{
    if ((k->npend + 1) * 2 > k->cappend) {
        uint64_t c = k->cappend ? k->cappend * 2 : 64;
        struct as_pend *p = calloc(c, sizeof *p);
        if (!p)
            return -1;
        for (uint64_t i = 0; i < k->cappend; i++)
            if (k->pend[i].used) {
                uint64_t j = id_hash(k->pend[i].id) & (c - 1);
                while (p[j].used)
                    j = (j + 1) & (c - 1);
                p[j] = k->pend[i];
            }
        free(k->pend);
        k->pend = p;
        k->cappend = c;
    }
    uint64_t m = k->cappend - 1, i = id_hash(id) & m;
    while (k->pend[i].used)
        i = (i + 1) & m;
    k->pend[i].id = id;
    k->pend[i].used = 1;
    k->pend[i].off = off;
    k->pend[i].line = line;
    k->npend++;
    return 0;
}

/* Remove *e (linear probing: move later entries of its run back). */
static void pend_del(struct as_kernel *k, struct as_pend *e)
{
    uint64_t m = k->cappend - 1, i = (uint64_t)(e - k->pend), j = i;
    k->pend[i].used = 0;
    for (;;) {
        j = (j + 1) & m;
        if (!k->pend[j].used)
            break;
        uint64_t h = id_hash(k->pend[j].id) & m;
        /* can entry j move to the hole at i? (h not cyclically in (i, j]) */
        if ((i <= j) ? (h <= i || h > j) : (h <= i && h > j)) {
            k->pend[i] = k->pend[j];
            k->pend[j].used = 0;
            i = j;
        }
    }
    k->npend--;
}

/* ---- sections ------------------------------------------------------------ */

/* Is the line the keyword `kw` (then blanks or a space-separated rest)? */
static int is_kw(const char *p, const char *kw)
{
    size_t n = strlen(kw);
    return !strncmp(p, kw, n) && (p[n] == '\0' || p[n] == ' ' || p[n] == '\t');
}

/* "name = N" with N decimal: 0, -1 when the line is not "name =", -2 when
 * the value is bad (*valp: where it starts). */
static int kv_u64(const char *p, const char *name, uint64_t *v, const char **valp)
{
    size_t n = strlen(name);
    if (strncmp(p, name, n))
        return -1;
    const char *q = skip_ws(p + n);
    if (*q != '=')
        return -1;
    q = skip_ws(q + 1);
    *valp = q;
    const char *e;
    if (dec_u64(q, &e, v) || *skip_ws(e))
        return -2;
    return 0;
}

static int dup_error(struct as_kernel *k, uint32_t id, uint64_t ln, char *err);

/* The highest register a parsed line names, or writes when its opcode
 * widens the destination (.64 / .WIDE: 2 registers, .128: 4), into
 * k->maxreg (estimating -nregs). */
static void track_regs(struct as_kernel *k, const struct as_line *pl)
{
    for (int i = 0; i < pl->ns; i++)
        if (pl->sreg[i] < 255 && pl->sreg[i] > k->maxreg)
            k->maxreg = pl->sreg[i];
    if (pl->nd == 0 || pl->dreg[0] >= 255)
        return;
    char opc[80];
    snprintf(opc, sizeof opc, "%.*s.", (int)pl->opclen, pl->opc);
    int top = pl->dreg[0] + (strstr(opc, ".128.") ? 3 : strstr(opc, ".64.") || strstr(opc, ".WIDE.") ? 1 : 0);
    if (top > 254)
        top = 254;
    if (top > k->maxreg)
        k->maxreg = top;
}

/* Read one thread-block section from r: its id, the offset and line of its
 * '#BEGIN_TB', and each warp's lines (k->spans).  `validate`: also parse
 * every instruction line (the error pass).  `bits`: block ids met so far
 * (a second section of one id is an error), or NULL.  Returns 0, 1 at the
 * end of the file (no section), -1 with the message in err. */
static int skim_section(struct as_kernel *k, struct as_lr *r, int validate, uint8_t **bits,
                        uint64_t *bitcap, uint32_t *idp, uint64_t *offp, uint64_t *linep,
                        char *err)
{
    char *line;
    size_t len;
    uint64_t ln;
    /* Find #BEGIN_TB, skipping blanks and '#' comments between sections. */
    for (;;) {
        line = as_lr_next(r, k->src, &len);
        if (!line)
            return r->failed ? lr_err(k, r, err) : 1;
        ln = r->lineno;
        const char *p = skip_ws(line);
        if (!*p)
            continue;
        if (is_kw(p, "#BEGIN_TB"))
            break;
        if (is_kw(p, "#END_TB"))
            return KERR(k, err, ln, (size_t)(p - line) + 1, "'#END_TB' without '#BEGIN_TB'");
        if (*p == '#')
            continue;
        return KERR(k, err, ln, (size_t)(p - line) + 1,
                    "expected '#BEGIN_TB' (a thread block), got '%.40s'", p);
    }
    uint64_t begin_line = ln;
    *offp = r->loff;
    *linep = ln;
    /* thread block = x,y,z */
    uint32_t xyz[3];
    for (;;) {
        line = as_lr_next(r, k->src, &len);
        if (!line)
            return r->failed ? lr_err(k, r, err)
                   : KERR(k, err, r->lineno, 1,
                          "file ends inside the thread block that starts at line %llu "
                          "(truncated?)", (unsigned long long)begin_line);
        ln = r->lineno;
        const char *p = skip_ws(line);
        if (!*p)
            continue;
        const char *q = p;
        int ok = !strncmp(q, "thread block", 12);
        if (ok) {
            q = skip_ws(q + 12);
            ok = *q == '=';
            q = skip_ws(q + 1);
        }
        if (!ok)
            return KERR(k, err, ln, (size_t)(p - line) + 1,
                        "expected 'thread block = x,y,z' after '#BEGIN_TB', got '%.40s'", p);
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            const char *e;
            q = skip_ws(q);
            if (dec_u64(q, &e, &v) || v >= k->base.launch.grid[i])
                return KERR(k, err, ln, (size_t)(q - line) + 1,
                            "thread block index %c must be 0..%u (the grid is (%u,%u,%u))",
                            "xyz"[i], k->base.launch.grid[i] - 1, k->base.launch.grid[0],
                            k->base.launch.grid[1], k->base.launch.grid[2]);
            xyz[i] = (uint32_t)v;
            q = skip_ws(e);
            if (i < 2 && *q++ != ',')
                return KERR(k, err, ln, (size_t)(q - line), "expected ',' in 'thread block = x,y,z'");
        }
        if (*q)
            return KERR(k, err, ln, (size_t)(q - line) + 1,
                        "unexpected '%.20s' after 'thread block = x,y,z'", q);
        break;
    }
    const uint32_t *g = k->base.launch.grid;
    uint64_t lid = xyz[0] + (uint64_t)g[0] * (xyz[1] + (uint64_t)g[1] * xyz[2]);
    if (lid > UINT32_MAX)
        return KERR(k, err, ln, 1, "thread block %u,%u,%u: more than 2^32 blocks in the grid",
                    xyz[0], xyz[1], xyz[2]);
    uint32_t id = (uint32_t)lid;
    *idp = id;
    if (bits) {
        int was = bit_set(bits, bitcap, id);
        if (was < 0)
            return KERR(k, err, ln, 1, "out of memory");
        if (was)
            return dup_error(k, id, ln, err);
    }

    struct as_wspan *sp = k->spans;
    memset(sp, 0, k->wpb * sizeof *sp);
    uint8_t wseen[64] = {0};
    int64_t cur = -1;      /* warp being read                          */
    uint64_t left = 0;     /* its instruction lines still to come      */
    uint64_t declared = 0; /* its insts = N                            */
    int want_insts = 0;    /* a 'warp = W' line waits for 'insts = N'  */
    uint64_t warp_line = 0;
    struct as_line pl;
    uint64_t addr[32];
    for (;;) {
        line = as_lr_next(r, k->src, &len);
        if (!line) {
            if (r->failed)
                return lr_err(k, r, err);
            if (left)
                return KERR(k, err, r->lineno, 1,
                            "file ends after %llu of the %llu instructions of warp %lld "
                            "('insts = %llu' at line %llu; truncated?)",
                            (unsigned long long)(declared - left), (unsigned long long)declared,
                            (long long)cur, (unsigned long long)declared,
                            (unsigned long long)warp_line);
            return KERR(k, err, r->lineno, 1,
                        "file ends inside the thread block that starts at line %llu "
                        "(no '#END_TB'; truncated?)", (unsigned long long)begin_line);
        }
        ln = r->lineno;
        const char *p = line;
        if (*p == ' ' || *p == '\t')
            p = skip_ws(p);
        if (!*p)
            continue;
        if (left) {
            /* the hot case: an instruction line (it starts with a digit) */
            if ((*p == '#' || *p == 'w') &&
                (is_kw(p, "#END_TB") || is_kw(p, "#BEGIN_TB") ||
                 (!strncmp(p, "warp", 4) && (p[4] == ' ' || p[4] == '=' || p[4] == '\t'))))
                return KERR(k, err, ln, (size_t)(p - line) + 1,
                            "warp %lld has %llu instruction lines but 'insts = %llu' (line %llu) "
                            "declares %llu", (long long)cur, (unsigned long long)(declared - left),
                            (unsigned long long)declared, (unsigned long long)warp_line,
                            (unsigned long long)declared);
            if (left == declared) {
                sp[cur].off = r->loff;
                sp[cur].line = ln;
            }
            if (validate && as_parse_line(k, line, ln, &pl, addr, err))
                return -1;
            if (validate && k->nregs_bad)
                track_regs(k, &pl);
            if (--left == 0)
                sp[cur].end = as_lr_tell(r);
            continue;
        }
        size_t col = (size_t)(p - line) + 1;
        if (want_insts) {
            uint64_t n;
            const char *v;
            int rc = kv_u64(p, "insts", &n, &v);
            if (rc == -1)
                return KERR(k, err, ln, col, "expected 'insts = N' after 'warp = %lld', got '%.40s'",
                            (long long)cur, p);
            if (rc == -2 || n > UINT32_MAX)
                return KERR(k, err, ln, (size_t)(v - line) + 1,
                            "'insts' must be an instruction count 0..4294967295, got '%.40s'", v);
            want_insts = 0;
            warp_line = ln;
            declared = left = n;
            sp[cur].n = (uint32_t)n;
            continue;
        }
        if (is_kw(p, "#END_TB"))
            break;
        if (!strncmp(p, "warp", 4) && (p[4] == ' ' || p[4] == '=' || p[4] == '\t')) {
            uint64_t w;
            const char *v;
            int rc = kv_u64(p, "warp", &w, &v);
            if (rc || w >= k->wpb)
                return KERR(k, err, ln, rc == -1 ? col : (size_t)(v - line) + 1,
                            "'warp = W' needs W in 0..%u (a block of %u threads), got '%.40s'",
                            k->wpb - 1, k->wpb * 32, rc == -1 ? p : v);
            if (wseen[w])
                return KERR(k, err, ln, col, "warp %llu appears twice in the thread block at line %llu",
                            (unsigned long long)w, (unsigned long long)begin_line);
            wseen[w] = 1;
            cur = (int64_t)w;
            want_insts = 1;
            continue;
        }
        if (!strncmp(p, "thread block", 12))
            return KERR(k, err, ln, col, "second 'thread block' line in the thread block at line %llu",
                        (unsigned long long)begin_line);
        if (!strncmp(p, "cluster", 7))
            continue; /* cluster id/cta/rank (Accel-Sim 2 tracer): not modelled */
        if (is_kw(p, "#BEGIN_TB"))
            return KERR(k, err, ln, col,
                        "'#BEGIN_TB' before the '#END_TB' of the thread block at line %llu",
                        (unsigned long long)begin_line);
        if (cur >= 0 && as_hexval((unsigned char)*p) >= 0)
            return KERR(k, err, ln, col,
                        "instruction line after the %llu declared by 'insts = %llu' of warp %lld",
                        (unsigned long long)declared, (unsigned long long)declared, (long long)cur);
        return KERR(k, err, ln, col, "expected 'warp = W' or '#END_TB', got '%.40s'", p);
    }
    if (want_insts)
        return KERR(k, err, ln, 1, "'warp = %lld' has no 'insts = N' line", (long long)cur);
    return 0;
}

static int src_ready(struct as_kernel *k, char *err)
{
    if (k->src)
        return 0;
    k->src = as_src_open(k->path, err);
    return k->src ? 0 : -1;
}

/* Find the first section of block `id` from the top (a second pass).  0
 * with its offset and line, 1 if there is none, -1 on an error. */
static int find_section(struct as_kernel *k, uint32_t id, uint64_t *off, uint64_t *line, char *err)
{
    struct as_lr r = {0};
    if (as_lr_init(&r, AS_SKIM_BUF, k->body_off, UINT64_MAX, k->body_line - 1, 1))
        return KERR(k, err, k->body_line, 1, "out of memory");
    int rc;
    for (;;) {
        uint32_t got;
        rc = skim_section(k, &r, 0, NULL, NULL, &got, off, line, err);
        if (rc != 0 || got == id)
            break;
    }
    as_lr_free(&r);
    return rc;
}

static int dup_error(struct as_kernel *k, uint32_t id, uint64_t ln, char *err)
{
    uint64_t off, first;
    const uint32_t *g = k->base.launch.grid;
    if (find_section(k, id, &off, &first, err) < 0)
        return -1;
    return KERR(k, err, ln, 1, "thread block %u,%u,%u appears twice (first at line %llu)",
                id % g[0], id / g[0] % g[1], id / g[0] / g[1], (unsigned long long)first);
}

/* The first error of the file in file order, into out: every section from
 * the top, every instruction line parsed, then the lowest block id with no
 * section.  1 if there is one, 0 if the file is fine (under mu). */
static int first_error(struct as_kernel *k, char *out)
{
    if (src_ready(k, out))
        return 1;
    struct as_lr r = {0};
    uint8_t *bits = NULL;
    uint64_t cap = 0, found = 0;
    int rc = 0;
    if (as_lr_init(&r, AS_SKIM_BUF, k->body_off, UINT64_MAX, k->body_line - 1, 1))
        return 0;
    for (;;) {
        uint32_t id;
        uint64_t off, line;
        int s = skim_section(k, &r, 1, &bits, &cap, &id, &off, &line, out);
        if (s < 0) {
            rc = 1;
            break;
        }
        if (s == 1)
            break;
        found++;
    }
    if (!rc) {
        uint64_t lim = k->blocks < (uint64_t)UINT32_MAX + 1 ? k->blocks : (uint64_t)UINT32_MAX + 1;
        const uint32_t *g = k->base.launch.grid;
        for (uint64_t id = 0; id < lim; id++)
            if (!bit_get(bits, cap, (uint32_t)id)) {
                KERR(k, out, r.lineno, 1,
                     "thread block %u,%u,%u (linear %u) is not in the trace "
                     "(%llu thread blocks found; the grid has %llu)",
                     (uint32_t)(id % g[0]), (uint32_t)(id / g[0] % g[1]),
                     (uint32_t)(id / g[0] / g[1]), (uint32_t)id, (unsigned long long)found,
                     (unsigned long long)k->blocks);
                rc = 1;
                break;
            }
    }
    free(bits);
    as_lr_free(&r);
    return rc;
}

/* Report an error (under mu): the first one sticks, and its message is the
 * file's first error, whichever thread met which error first. */
static int fail(struct as_kernel *k, const char *local)
{
    if (!k->failed) {
        char first[TRACE_ERR_MAX];
        if (first_error(k, first))
            snprintf(k->err, sizeof k->err, "%s", first);
        else
            snprintf(k->err, sizeof k->err, "%s", local && *local ? local : "read error");
        k->failed = 1;
        k->base.error = k->err;
    }
    return -1;
}

/* ---- blocks -------------------------------------------------------------- */

static size_t block_size(const struct as_kernel *k)
{
    return sizeof(struct as_block) + k->wpb * sizeof(struct as_wspan);
}

static struct as_block *live_find(const struct as_kernel *k, uint32_t id)
{
    if (!k->livecap)
        return NULL;
    for (struct as_block *b = k->live[id_hash(id) & (k->livecap - 1)]; b; b = b->next)
        if (b->id == id)
            return b;
    return NULL;
}

static int live_add(struct as_kernel *k, struct as_block *b)
{
    if (k->blocks_live >= k->livecap) {
        uint32_t c = k->livecap ? k->livecap * 2 : 256;
        struct as_block **t = calloc(c, sizeof *t);
        if (!t)
            return -1;
        for (uint32_t i = 0; i < k->livecap; i++)
            for (struct as_block *x = k->live[i], *nx; x; x = nx) {
                nx = x->next;
                x->next = t[id_hash(x->id) & (c - 1)];
                t[id_hash(x->id) & (c - 1)] = x;
            }
        free(k->live);
        k->live = t;
        k->livecap = c;
    }
    struct as_block **h = &k->live[id_hash(b->id) & (k->livecap - 1)];
    b->next = *h;
    *h = b;
    return 0;
}

static void live_del(struct as_kernel *k, struct as_block *b)
{
    struct as_block **pp = &k->live[id_hash(b->id) & (k->livecap - 1)];
    while (*pp && *pp != b)
        pp = &(*pp)->next;
    if (*pp)
        *pp = b->next;
    b->next = NULL;
}

static void block_free(struct as_kernel *k, struct as_block *b)
{
    if (!b)
        return;
    bytes_add(k, -(int64_t)block_size(k));
    k->blocks_live--;
    free(b);
}

/* A block from k->spans, made live. */
static struct as_block *block_make(struct as_kernel *k, uint32_t id, char *err)
{
    struct as_block *b = malloc(block_size(k));
    if (!b) {
        KERR(k, err, 1, 1, "out of memory");
        return NULL;
    }
    b->id = id;
    b->refs = 0;
    b->next = NULL;
    memcpy(b->w, k->spans, k->wpb * sizeof b->w[0]);
    k->blocks_live++;
    k->blocks_loaded++;
    bytes_add(k, (int64_t)block_size(k));
    if (live_add(k, b)) {
        block_free(k, b);
        KERR(k, err, 1, 1, "out of memory");
        return NULL;
    }
    return b;
}

/* Skim the section at (off, line) with a reader of its own. */
static struct as_block *block_at(struct as_kernel *k, uint32_t id, uint64_t off, uint64_t line,
                                 char *err)
{
    struct as_lr r = {0};
    if (as_lr_init(&r, AS_SKIM_BUF, off, UINT64_MAX, line - 1, 1)) {
        KERR(k, err, line, 1, "out of memory");
        return NULL;
    }
    uint32_t got;
    uint64_t o, l;
    int rc = skim_section(k, &r, 0, NULL, NULL, &got, &o, &l, err);
    as_lr_free(&r);
    if (rc == 1 || (rc == 0 && got != id)) {
        KERR(k, err, line, 1, "the thread block found here before changed (file modified?)");
        return NULL;
    }
    return rc ? NULL : block_make(k, id, err);
}

/* Block `id`, live (under mu).  NULL with the message in err. */
static struct as_block *get_block(struct as_kernel *k, uint32_t id, char *err)
{
    struct as_block *b = live_find(k, id);
    if (b)
        return b;
    if (k->cold && k->cold->id == id) {
        b = k->cold;
        k->cold = NULL;
        if (live_add(k, b)) {
            k->cold = b;
            KERR(k, err, 1, 1, "out of memory");
            return NULL;
        }
        return b;
    }
    if (src_ready(k, err))
        return NULL;
    struct as_pend *pe = pend_find(k, id);
    if (pe) { /* passed over earlier */
        uint64_t off = pe->off, line = pe->line;
        pend_del(k, pe);
        return block_at(k, id, off, line, err);
    }
    if (bit_get(k->seen, k->seencap, id)) {
        /* ran already and was dropped: find it again from the top */
        uint64_t off, line;
        k->restarts++;
        int rc = find_section(k, id, &off, &line, err);
        if (rc)
            return rc < 0 ? NULL : (KERR(k, err, 1, 1, "thread block %u vanished (file modified?)", id), NULL);
        return block_at(k, id, off, line, err);
    }
    if (!k->front_ok) {
        if (as_lr_init(&k->front, AS_SKIM_BUF, k->body_off, UINT64_MAX, k->body_line - 1, 1)) {
            KERR(k, err, 1, 1, "out of memory");
            return NULL;
        }
        k->front_ok = 1;
    }
    while (!k->front_end) {
        uint32_t got;
        uint64_t off, line;
        int rc = skim_section(k, &k->front, 0, &k->seen, &k->seencap, &got, &off, &line, err);
        if (rc < 0)
            return NULL;
        if (rc == 1) {
            k->front_end = 1;
            break;
        }
        k->nsections++;
        if (got == id)
            return block_make(k, id, err);
        if (pend_add(k, got, off, line)) {
            KERR(k, err, line, 1, "out of memory");
            return NULL;
        }
    }
    const uint32_t *g = k->base.launch.grid;
    KERR(k, err, k->front.lineno, 1,
         "thread block %u,%u,%u (linear %u) is not in the trace "
         "(%llu thread blocks found; the grid has %llu)",
         id % g[0], id / g[0] % g[1], id / g[0] / g[1], id, (unsigned long long)k->nsections,
         (unsigned long long)k->blocks);
    return NULL;
}

/* The block's last warp ended (under mu): keep it as the cold one. */
static void release(struct as_kernel *k, struct as_block *b)
{
    live_del(k, b);
    block_free(k, k->cold);
    k->cold = b;
}

/* Every warp has run (under mu): warn, and give back the file (and, for
 * .xz, the decoded copy) so a list of thousands of kernels never holds
 * thousands of open files.  Reopened if asked for again. */
static void run_over(struct as_kernel *k)
{
    as_warn_flush(k);
    as_src_close(k->src);
    k->src = NULL;
    as_lr_free(&k->front);
    k->front_ok = 0;
    k->front_end = 0;
    k->nsections = 0;
    free(k->seen);
    k->seen = NULL;
    k->seencap = 0;
    free(k->pend);
    k->pend = NULL;
    k->npend = k->cappend = 0;
}

/* ---- trace_ops ----------------------------------------------------------- */

static void cur_free(struct as_kernel *k, struct as_cur *cs)
{
    if (!cs)
        return;
    bytes_add(k, -(int64_t)cs->acct);
    as_lr_free(&cs->lr);
    free(cs);
}

/* Drop a reference taken by warp_begin (under mu). */
static void unref(struct as_kernel *k, struct as_block *b)
{
    if (--b->refs == 0)
        release(k, b);
}

/* Parse every line of a warp once.  A warp whose text fits in the cursor's
 * window is read into it (and read from there again by warp_next); a
 * longer one through a larger temporary window (fewer reads).  0, or -1
 * with the message in err. */
static int validate_warp(struct as_kernel *k, struct as_cur *cs, const struct as_wspan *sp,
                         char *err)
{
    struct as_lr big = {0}, *r = &cs->lr;
    if (sp->end - sp->off >= cs->lr.cap) {
        if (as_lr_init(&big, AS_SKIM_BUF, sp->off, sp->end, sp->line - 1, 0)) {
            snprintf(err, TRACE_ERR_MAX, "%s: out of memory", k->path);
            return -1;
        }
        r = &big;
    }
    struct as_line pl;
    char *line;
    size_t len;
    uint32_t n = 0;
    int rc = 0;
    while (n < sp->n && (line = as_lr_next(r, cs->src, &len))) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            continue;
        if (as_parse_line(k, line, r->lineno, &pl, cs->addr, err)) {
            rc = -1;
            break;
        }
        n++;
    }
    if (!rc && n < sp->n) {
        if (r->failed)
            snprintf(err, TRACE_ERR_MAX, "%s: %s", k->path, r->err[0] ? r->err : "read error");
        else
            KERR(k, err, r->lineno, 1, "warp ends early (file modified?)");
        rc = -1;
    }
    as_lr_free(&big);
    as_lr_rewind(&cs->lr, sp->off, sp->line - 1);
    return rc;
}

static int as_warp_begin(struct trace_kernel *tk, uint32_t block, uint32_t warp,
                         struct tr_cursor *c)
{
    struct as_kernel *k = tk->impl;
    memset(c, 0, sizeof *c);
    c->block = block;
    c->warp = warp;
    if ((uint64_t)block >= k->blocks || warp >= k->wpb)
        return -1;
    char err[TRACE_ERR_MAX] = "";
    pthread_mutex_lock(&k->mu);
    if (k->failed) {
        pthread_mutex_unlock(&k->mu);
        return -1;
    }
    struct as_block *b = get_block(k, block, err);
    if (!b) {
        fail(k, err);
        pthread_mutex_unlock(&k->mu);
        return -1;
    }
    b->refs++;
    struct as_wspan sp = b->w[warp];
    struct as_src *src = k->src;
    pthread_mutex_unlock(&k->mu);

    struct as_cur *cs = calloc(1, sizeof *cs);
    if (!cs || (sp.n && as_lr_init(&cs->lr, AS_WARP_BUF, sp.off, sp.end, sp.line - 1, 0))) {
        free(cs);
        snprintf(err, sizeof err, "%s: out of memory", k->path);
        goto bad;
    }
    cs->b = b;
    cs->src = src;
    cs->left = sp.n;
    cs->acct = sizeof *cs + cs->lr.cap;
    bytes_add(k, (int64_t)cs->acct);
    if (sp.n && !__atomic_load_n(&b->w[warp].ok, __ATOMIC_ACQUIRE)) {
        if (validate_warp(k, cs, &sp, err)) {
            cur_free(k, cs);
            goto bad;
        }
        __atomic_store_n(&b->w[warp].ok, 1, __ATOMIC_RELEASE);
    }
    c->state = cs;
    return 0;
bad:
    pthread_mutex_lock(&k->mu);
    fail(k, err);
    unref(k, b);
    pthread_mutex_unlock(&k->mu);
    return -1;
}

static const struct tr_inst *as_warp_next(struct trace_kernel *tk, struct tr_cursor *c,
                                          struct tr_dyn *dyn)
{
    struct as_kernel *k = tk->impl;
    struct as_cur *cs = c->state;
    if (!cs || cs->left == 0)
        return NULL;
    char *line;
    size_t len;
    const char *p;
    do {
        line = as_lr_next(&cs->lr, cs->src, &len);
        if (!line)
            goto gone;
        p = line;
        while (*p == ' ' || *p == '\t')
            p++;
    } while (!*p);
    struct as_line pl;
    char err[TRACE_ERR_MAX];
    uint64_t ln = cs->lr.lineno;
    if (as_parse_line(k, line, ln, &pl, cs->addr, err))
        goto gone; /* validated at warp_begin: only if the file changed since */
    uint32_t si = as_intern(k, &pl, ln);
    if (si == UINT32_MAX)
        goto gone;
    const struct as_static *s = as_st(k, si);
    if (--cs->left > 0 && s->nop_twin != UINT32_MAX)
        s = as_st(k, s->nop_twin); /* an EXIT that did not end the warp */
    if (__builtin_expect(s->unknown, 0)) {
        __atomic_add_fetch(&k->base.unknown_insts, 1, __ATOMIC_RELAXED);
        uint64_t pos = ln << 20 | (pl.opccol & 0xfffff);
        struct as_static *w = (struct as_static *)s;
        uint64_t f = __atomic_load_n(&w->first, __ATOMIC_RELAXED);
        while (pos < f && !__atomic_compare_exchange_n(&w->first, &f, pos, 1, __ATOMIC_RELAXED,
                                                       __ATOMIC_RELAXED))
            ;
    }
    if (dyn) {
        dyn->active_mask = pl.mask;
        dyn->naddr = s->has_addr ? pl.naddr : 0;
        dyn->addr = dyn->naddr ? cs->addr : NULL;
    }
    c->seq++;
    if (cs->left == 0) { /* the stream is over: its window goes now */
        bytes_add(k, -(int64_t)(cs->acct - sizeof *cs));
        cs->acct = sizeof *cs;
        as_lr_free(&cs->lr);
    }
    return &s->in;
gone:
    /* The lines were valid when the warp began; reading them again failed
     * (the file changed, or a read error): the warp ends here. */
    cs->left = 0;
    return NULL;
}

static void as_warp_end(struct trace_kernel *tk, struct tr_cursor *c)
{
    struct as_kernel *k = tk->impl;
    struct as_cur *cs = c->state;
    c->state = NULL;
    pthread_mutex_lock(&k->mu);
    if (cs)
        unref(k, cs->b);
    if (++k->warps_ended % (k->blocks * k->wpb) == 0)
        run_over(k);
    pthread_mutex_unlock(&k->mu);
    cur_free(k, cs);
}

static uint64_t as_warp_count(struct trace_kernel *tk, uint32_t block, uint32_t warp)
{
    struct as_kernel *k = tk->impl;
    if ((uint64_t)block >= k->blocks || warp >= k->wpb)
        return UINT64_MAX;
    char err[TRACE_ERR_MAX] = "";
    uint64_t n = UINT64_MAX;
    pthread_mutex_lock(&k->mu);
    if (!k->failed) {
        struct as_block *b = get_block(k, block, err);
        if (b) {
            n = b->w[warp].n;
            if (b->refs == 0)
                release(k, b);
        } else {
            fail(k, err);
        }
    }
    pthread_mutex_unlock(&k->mu);
    return n;
}

static void as_destroy(struct trace_kernel *tk)
{
    if (!tk)
        return;
    struct as_kernel *k = tk->impl;
    if (k) {
        if (k->sh)
            as_warn_flush(k);
        for (uint32_t i = 0; i < k->livecap; i++)
            while (k->live[i]) {
                struct as_block *b = k->live[i];
                k->live[i] = b->next;
                block_free(k, b);
            }
        free(k->live);
        block_free(k, k->cold);
        as_src_close(k->src);
        as_lr_free(&k->front);
        free(k->seen);
        free(k->pend);
        free(k->spans);
        as_statics_free(k);
        shared_unref(k->sh);
        pthread_mutex_destroy(&k->mu);
        free(k->path);
        free(k);
    }
}

static const struct trace_ops as_ops = {
    .warp_begin = as_warp_begin,
    .warp_next = as_warp_next,
    .warp_end = as_warp_end,
    .destroy = as_destroy,
    .warp_count = as_warp_count,
};

int tr_accelsim_stats(const struct trace_kernel *tk, struct tr_accelsim_stats *st)
{
    if (!tk || tk->ops != &as_ops)
        return -1;
    struct as_kernel *k = tk->impl;
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&k->mu);
    st->version = k->version;
    st->binary_version = k->binary_version;
    st->statics = k->nst;
    st->unknown_opcodes = as_unknown_names(k);
    st->blocks_loaded = k->blocks_loaded;
    st->blocks_live = k->blocks_live;
    st->sections_indexed = k->npend;
    st->bytes_now = __atomic_load_n(&k->bytes_now, __ATOMIC_RELAXED);
    st->bytes_peak = __atomic_load_n(&k->bytes_peak, __ATOMIC_RELAXED);
    st->restarts = k->restarts;
    pthread_mutex_unlock(&k->mu);
    return 0;
}

/* ---- opening ------------------------------------------------------------- */

/* -nregs could not be read (binary version 0): take the registers the
 * first thread block uses, rounded up to the allocation unit of 8, with a
 * warning.  0, or -1 with the first block's error in err. */
static int estimate_regs(struct as_kernel *k, char *err)
{
    struct as_lr r = {0};
    if (as_lr_init(&r, AS_SKIM_BUF, k->body_off, UINT64_MAX, k->body_line - 1, 1)) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", k->path);
        return -1;
    }
    uint32_t id;
    uint64_t off, line;
    k->maxreg = 0;
    int rc = skim_section(k, &r, 1, NULL, NULL, &id, &off, &line, err);
    as_lr_free(&r);
    if (rc < 0)
        return -1;
    int regs = (k->maxreg + 1 + 7) / 8 * 8;
    if (regs > 255)
        regs = 255;
    k->base.launch.regs = regs;
    fprintf(k->sh->warn, "%s:%llu:1: warning: -nregs = %llu is not a register count: using %d, "
            "from the highest register the first thread block uses (R%d), rounded up to 8\n",
            k->path, (unsigned long long)k->nregs_line, (unsigned long long)(k->nregs_bad - 1), regs,
            k->maxreg);
    return 0;
}

/* Open one kernel file and read its header.  0 or -1 (err filled). */
static int open_kernel(const char *path, struct as_shared *sh, struct trace_file *out,
                       char err[TRACE_ERR_MAX])
{
    struct trace_kernel **ks = realloc(out->kernels, (size_t)(out->nkernels + 1) * sizeof *ks);
    if (!ks) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        return -1;
    }
    out->kernels = ks;
    struct as_kernel *k = calloc(1, sizeof *k);
    if (!k || !(k->path = strdup(path))) {
        free(k);
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        return -1;
    }
    pthread_mutex_init(&k->mu, NULL);
    k->base.ops = &as_ops;
    k->base.impl = k;
    k->base.mt_safe = 1; /* see the top of this file */
    k->sh = sh;
    pthread_mutex_lock(&sh->mu);
    sh->refs++;
    pthread_mutex_unlock(&sh->mu);
    out->kernels[out->nkernels++] = &k->base;
    struct as_lr r = {0};
    int rc = src_ready(k, err);
    if (!rc && as_lr_init(&r, 8192, 0, UINT64_MAX, 0, 1)) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        rc = -1;
    }
    if (!rc)
        rc = parse_header(k, &r, err);
    if (!rc && !(k->spans = calloc(k->wpb, sizeof *k->spans))) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        rc = -1;
    }
    as_lr_free(&r);
    if (!rc && k->nregs_bad)
        rc = estimate_regs(k, err);
    /* The file is reopened when the engine starts the first block. */
    as_src_close(k->src);
    k->src = NULL;
    return rc;
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* Parse a kernelslist.g.  0 or -1. */
static int open_list(const char *path, struct as_shared *sh, struct trace_file *out,
                     char err[TRACE_ERR_MAX])
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long ln = 0;
    int rc = 0, nk = 0;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        ln++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' ||
                         line[n - 1] == '\t'))
            line[--n] = '\0';
        const char *p = skip_ws(line);
        size_t col = (size_t)(p - line) + 1;
        if (!*p || *p == '#')
            continue;
        if (!strncmp(p, "MemcpyHtoD", 10)) {
            /* MemcpyHtoD,0x<address>,<bytes>: validated, not simulated */
            const char *q = p + 10, *e;
            uint64_t v;
            if (*q != ',' || hex_u64(q + 1, &e, &v) || *e != ',' || dec_u64(e + 1, &e, &v) || *e) {
                snprintf(err, TRACE_ERR_MAX,
                         "%s:%lu:%zu: expected 'MemcpyHtoD,0x<address>,<bytes>', got '%.60s'",
                         path, ln, col, p);
                rc = -1;
                break;
            }
            continue;
        }
        if (!strncmp(p, "Memcpy", 6))
            continue; /* other copies (DtoH) do not affect kernels */
        if (strncmp(p, "kernel", 6) && !ends_with(p, ".traceg") && !ends_with(p, ".traceg.xz") &&
            !ends_with(p, ".trace") && !ends_with(p, ".trace.xz"))
            continue; /* Accel-Sim ignores other commands */
        if (ends_with(p, ".tracez")) {
            snprintf(err, TRACE_ERR_MAX,
                     "%s:%lu:%zu: '%s': binary .tracez containers are not supported "
                     "(convert to .traceg)", path, ln, col, p);
            rc = -1;
            break;
        }
        char *full = malloc(dlen + strlen(p) + 1);
        if (!full) {
            snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
            rc = -1;
            break;
        }
        if (*p == '/')
            strcpy(full, p);
        else {
            memcpy(full, path, dlen);
            strcpy(full + dlen, p);
        }
        FILE *t = fopen(full, "rb");
        if (!t) {
            snprintf(err, TRACE_ERR_MAX, "%s:%lu:%zu: cannot open kernel trace '%s': %s", path,
                     ln, col, full, strerror(errno));
            free(full);
            rc = -1;
            break;
        }
        struct stat kst;
        if (!fstat(fileno(t), &kst) && S_ISDIR(kst.st_mode)) {
            snprintf(err, TRACE_ERR_MAX, "%s:%lu:%zu: kernel trace '%s' is a directory", path,
                     ln, col, full);
            fclose(t);
            free(full);
            rc = -1;
            break;
        }
        fclose(t);
        rc = open_kernel(full, sh, out, err);
        free(full);
        if (rc)
            break;
        nk++;
    }
    if (!rc && ferror(fp)) {
        snprintf(err, TRACE_ERR_MAX, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    if (!rc && nk == 0) {
        snprintf(err, TRACE_ERR_MAX, "%s:%lu:1: the kernel list names no kernel trace file",
                 path, ln ? ln : 1);
        rc = -1;
    }
    free(line);
    fclose(fp);
    return rc;
}

int trace_accelsim_open(const char *path, FILE *warn, struct trace_file *out,
                        char err[TRACE_ERR_MAX])
{
    if (ends_with(path, ".tracez")) {
        snprintf(err, TRACE_ERR_MAX,
                 "%s: binary .tracez containers are not supported (convert to .traceg)", path);
        return -1;
    }
    struct as_shared *sh = calloc(1, sizeof *sh);
    if (!sh) {
        snprintf(err, TRACE_ERR_MAX, "%s: out of memory", path);
        return -1;
    }
    pthread_mutex_init(&sh->mu, NULL);
    sh->refs = 1;
    sh->warn = warn ? warn : stderr;
    /* A kernel file starts with its '-kernel name' header (or is xz); a list
     * with commands.  Decide from the first bytes. */
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, TRACE_ERR_MAX, "%s: cannot open: %s", path, strerror(errno));
        shared_unref(sh);
        return -1;
    }
    char head[64] = {0};
    size_t n = fread(head, 1, sizeof head - 1, fp);
    fclose(fp);
    int kernel = ends_with(path, ".traceg") || ends_with(path, ".traceg.xz") ||
                 (n >= 6 && !memcmp(head, "\xFD" "7zXZ\0", 6));
    const char *p = head;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p == '-')
        kernel = 1;
    int rc = kernel ? open_kernel(path, sh, out, err) : open_list(path, sh, out, err);
    shared_unref(sh);
    return rc;
}
