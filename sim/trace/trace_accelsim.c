/* trace_accelsim.c — Accel-Sim kernel traces (kernelslist.g, .traceg[.xz]).
 *
 * Opening reads only the kernel list and each kernel's header.  Thread-block
 * sections are read when the engine starts a block (warp_begin of its first
 * warp): the whole section (every warp) is decoded into a per-block buffer —
 * 12-byte records pointing at interned static instructions, plus an arena
 * of addresses — and the buffer is dropped when the block's last warp ends.
 * Memory is therefore O(resident blocks x their instructions) + the static
 * code + 16 bytes per block of the offset index, whatever the file size.
 *
 * Blocks are found through an index of section offsets built while reading
 * forward.  The engine starts blocks in increasing order, which is the file
 * order, so the normal case reads each section once, straight through; a
 * request for a block behind the read position seeks back (fseeko, or for
 * .xz a restart of the decoder), one for a block further on skims forward.
 *
 * Format: docs/accelsim.md (the syntax as the NVBit tracer writes it and
 * Accel-Sim's trace parser reads it).  Instruction-line parsing and the
 * static-instruction inference live in trace_accelsim_inst.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "trace/trace_accelsim.h"
#include "trace/trace_accelsim_int.h"

/* ---- shared per-list state (warned opcodes) ----------------------------- */

static void shared_unref(struct as_shared *sh)
{
    if (!sh || --sh->refs > 0)
        return;
    for (int i = 0; i < sh->nwarned; i++)
        free(sh->warned[i]);
    free(sh->warned);
    free(sh);
}

/* ---- messages ------------------------------------------------------------ */

int as_err(struct as_kernel *k, uint64_t line, size_t col, const char *fmt, ...)
{
    char msg[TRACE_ERR_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* the path is cut first when the message would not fit */
    int room = (int)sizeof k->err - (int)strlen(msg) - 48;
    snprintf(k->err, sizeof k->err, "%.*s:%llu:%zu: %s", room > 16 ? room : 16, k->path,
             (unsigned long long)line, col, msg);
    k->base.error = k->err;
    return -1;
}

static int io_err(struct as_kernel *k)
{
    const char *m = k->io ? as_io_error(k->io) : NULL;
    snprintf(k->err, sizeof k->err, "%s", m ? m : "read error");
    k->base.error = k->err;
    return -1;
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
        int d = as_hexval(*p);
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

int as_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
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

static int parse_header(struct as_kernel *k)
{
    int seen[H_COUNT] = {0};
    uint64_t shmem = 0, smdyn = 0, barriers = 1;
    struct tr_launch *l = &k->base.launch;
    const char *line;
    size_t len;
    for (;;) {
        uint64_t off = as_io_tell(k->io);
        line = as_io_line(k->io, &len);
        if (!line) {
            if (as_io_error(k->io))
                return io_err(k);
            k->body_off = off;
            k->body_line = as_io_lineno(k->io) + 1;
            break;
        }
        uint64_t ln = as_io_lineno(k->io);
        const char *p = skip_ws(line);
        if (!*p)
            continue;
        if (*p == '#') { /* "#traces format = ..." starts the body */
            k->body_off = off;
            k->body_line = ln;
            break;
        }
        size_t col = (size_t)(p - line) + 1;
        if (*p != '-')
            return as_err(k, ln, col, "expected a '-key = value' header line or the "
                                      "'#traces format' line, got '%.40s'", p);
        const char *eq = strstr(p, " = ");
        const char *eq2 = strchr(p, '=');
        if (!eq2)
            return as_err(k, ln, col, "header line without '=': '%.40s'", p);
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
            return as_err(k, ln, col, "'-%s' given twice (first at line %llu)", hkeys[h],
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
                return as_err(k, ln, vcol, "-kernel name is empty");
            if (n >= sizeof l->name)
                n = sizeof l->name - 1; /* long mangled names are cut for reports */
            memcpy(l->name, val, n);
            l->name[n] = '\0';
            break;
        }
        case H_ID:
            if (parse_int(val, 0, UINT32_MAX, &v))
                return as_err(k, ln, vcol, "-kernel id must be an integer >= 0, got '%.40s'", val);
            break;
        case H_GRID:
        case H_BLOCK:
            if (parse_dims(val, h == H_GRID ? l->grid : l->block, &bad))
                return as_err(k, ln, (size_t)(bad - line) + 1,
                              "-%s must be (x,y,z) with each 1..2147483647, got '%.40s'",
                              hkeys[h], val);
            break;
        case H_SHMEM:
            if (parse_int(val, 0, 0x7fffffff, &shmem))
                return as_err(k, ln, vcol, "-shmem must be bytes 0..2147483647, got '%.40s'", val);
            break;
        case H_NREGS:
            if (parse_int(val, 1, 255, &v))
                return as_err(k, ln, vcol, "-nregs must be 1..255, got '%.40s'", val);
            l->regs = (int)v;
            break;
        case H_BINARY:
            if (parse_int(val, 10, 999, &v))
                return as_err(k, ln, vcol,
                              "-binary version must be the SASS version (70, 75, 80, 86, "
                              "89, 90, 100, 120, ...), got '%.40s'", val);
            k->binary_version = (int)v;
            break;
        case H_STREAM:
            if (parse_int(val, 0, UINT64_MAX, &v))
                return as_err(k, ln, vcol, "-cuda stream id must be an integer >= 0, got '%.40s'", val);
            break;
        case H_SHBASE:
        case H_LOCBASE: {
            const char *e;
            if (hex_u64(val, &e, &v) || *skip_ws(e))
                return as_err(k, ln, vcol, "-%s must be a hex address, got '%.40s'", hkeys[h], val);
            break;
        }
        case H_NVBIT:
            break;
        case H_VERSION:
            if (parse_int(val, 0, 1000, &v) || v < 3 || v > 5)
                return as_err(k, ln, vcol,
                              "-accelsim tracer version '%.40s' is not supported (3, 4 or 5)", val);
            k->version = (int)v;
            break;
        case H_LINEINFO:
            if (parse_int(val, 0, 1, &v))
                return as_err(k, ln, vcol, "-enable lineinfo must be 0 or 1, got '%.40s'", val);
            k->lineinfo = (int)v;
            break;
        case H_SM_BARRIERS:
            if (parse_int(val, 0, 16, &barriers))
                return as_err(k, ln, vcol, "-smsim barriers must be 0..16, got '%.40s'", val);
            break;
        case H_SM_DYN:
            if (parse_int(val, 0, 0x7fffffff, &smdyn))
                return as_err(k, ln, vcol, "-smsim shmem dynamic must be bytes, got '%.40s'", val);
            break;
        }
    }
    for (size_t i = 0; i < sizeof hreq / sizeof hreq[0]; i++)
        if (!seen[hreq[i]])
            return as_err(k, k->body_line, 1, "header has no '-%s = ...' line", hkeys[hreq[i]]);
    if (smdyn > shmem)
        return as_err(k, (uint64_t)seen[H_SM_DYN], 1,
                      "-smsim shmem dynamic (%llu) exceeds -shmem (%llu)",
                      (unsigned long long)smdyn, (unsigned long long)shmem);
    l->smem_dynamic = (int)smdyn;
    l->smem_static = (int)(shmem - smdyn);
    l->barriers = (int)barriers;
    k->wpb = tr_warps_per_block(l);
    k->blocks = tr_grid_blocks(l);
    if (k->wpb > 64)
        return as_err(k, (uint64_t)seen[H_BLOCK], 1,
                      "-block dim has %u threads: more than 2048", k->wpb * 32);
    return 0;
}

/* ---- block pool ---------------------------------------------------------- */

static uint64_t block_bytes(const struct as_kernel *k, const struct as_block *b)
{
    return sizeof *b + (uint64_t)k->wpb * sizeof b->w[0] + b->capd * sizeof b->d[0] +
           b->capa * sizeof b->a[0];
}

static void block_free(struct as_kernel *k, struct as_block *b)
{
    if (!b)
        return;
    k->bytes_now -= b->bytes;
    k->blocks_live--;
    free(b->w);
    free(b->d);
    free(b->a);
    free(b);
}

static void account(struct as_kernel *k, struct as_block *b)
{
    uint64_t nb = block_bytes(k, b);
    k->bytes_now += nb - b->bytes;
    b->bytes = nb;
    if (k->bytes_now > k->bytes_peak)
        k->bytes_peak = k->bytes_now;
}

int as_block_reserve(struct as_kernel *k, struct as_block *b, uint64_t nd, uint64_t na)
{
    if (nd > b->capd) {
        uint64_t c = b->capd ? b->capd : 64;
        while (c < nd)
            c *= 2;
        void *p = realloc(b->d, c * sizeof b->d[0]);
        if (!p)
            return -1;
        b->d = p;
        b->capd = c;
    }
    if (na > b->capa) {
        uint64_t c = b->capa ? b->capa : 64;
        while (c < na)
            c *= 2;
        void *p = realloc(b->a, c * sizeof b->a[0]);
        if (!p)
            return -1;
        b->a = p;
        b->capa = c;
    }
    account(k, b);
    return 0;
}

static int io_ready(struct as_kernel *k)
{
    if (k->io)
        return 0;
    char e[TRACE_ERR_MAX];
    k->io = as_io_open(k->path, e);
    if (!k->io) {
        snprintf(k->err, sizeof k->err, "%s", e);
        k->base.error = k->err;
        return -1;
    }
    return 0;
}

static int io_seek(struct as_kernel *k, uint64_t off, uint64_t line)
{
    if (io_ready(k))
        return -1;
    if (as_io_tell(k->io) == off && as_io_lineno(k->io) + 1 == line)
        return 0;
    if (as_io_seek(k->io, off, line))
        return io_err(k);
    return 0;
}

static int index_add(struct as_kernel *k, uint64_t off, uint64_t line, uint32_t id)
{
    if (k->nidx == k->capidx) {
        uint64_t c = k->capidx ? k->capidx * 2 : 256;
        struct as_index *p = realloc(k->idx, c * sizeof *p);
        if (!p)
            return -1;
        k->idx = p;
        k->capidx = c;
    }
    if (id != k->nidx)
        k->out_of_order = 1;
    k->idx[k->nidx].off = off;
    k->idx[k->nidx].line = line;
    k->idx[k->nidx].id = id;
    k->nidx++;
    return 0;
}

/* Index entry of block id, or NULL. */
static const struct as_index *index_find(const struct as_kernel *k, uint32_t id)
{
    if (id < k->nidx && k->idx[id].id == id)
        return &k->idx[id];
    if (!k->out_of_order)
        return NULL;
    for (uint64_t i = 0; i < k->nidx; i++)
        if (k->idx[i].id == id)
            return &k->idx[i];
    return NULL;
}

/* Is the line the keyword `kw` (then blanks or a space-separated rest)? */
static int is_kw(const char *p, const char *kw)
{
    size_t n = strlen(kw);
    return !strncmp(p, kw, n) && (p[n] == '\0' || p[n] == ' ' || p[n] == '\t');
}

/* "name = N" with N decimal; returns the value's column or 0 on mismatch. */
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

/* Read one thread-block section from the current position.  Returns its
 * linear block id (>= 0), -2 at the end of the file, -1 on error.  If the id
 * is `want`, the section is decoded into a new block (*out); otherwise it is
 * skimmed.  `fresh`: the section lies beyond the index (append it). */
static int64_t read_section(struct as_kernel *k, uint32_t want, int fresh, struct as_block **out)
{
    const char *line;
    size_t len;
    uint64_t off, ln;
    /* Find #BEGIN_TB, skipping blanks and '#' comments between sections. */
    for (;;) {
        off = as_io_tell(k->io);
        line = as_io_line(k->io, &len);
        if (!line)
            return as_io_error(k->io) ? io_err(k) : -2;
        ln = as_io_lineno(k->io);
        const char *p = skip_ws(line);
        if (!*p)
            continue;
        if (is_kw(p, "#BEGIN_TB"))
            break;
        if (is_kw(p, "#END_TB"))
            return as_err(k, ln, (size_t)(p - line) + 1, "'#END_TB' without '#BEGIN_TB'");
        if (*p == '#')
            continue;
        return as_err(k, ln, (size_t)(p - line) + 1,
                      "expected '#BEGIN_TB' (a thread block), got '%.40s'", p);
    }
    uint64_t begin_line = ln;
    /* thread block = x,y,z */
    uint32_t xyz[3];
    for (;;) {
        line = as_io_line(k->io, &len);
        if (!line)
            return as_io_error(k->io) ? io_err(k)
                   : as_err(k, as_io_lineno(k->io), 1,
                            "file ends inside the thread block that starts at line %llu "
                            "(truncated?)", (unsigned long long)begin_line);
        ln = as_io_lineno(k->io);
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
            return as_err(k, ln, (size_t)(p - line) + 1,
                          "expected 'thread block = x,y,z' after '#BEGIN_TB', got '%.40s'", p);
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            const char *e;
            q = skip_ws(q);
            if (dec_u64(q, &e, &v) || v >= k->base.launch.grid[i])
                return as_err(k, ln, (size_t)(q - line) + 1,
                              "thread block index %c must be 0..%u (the grid is (%u,%u,%u))",
                              "xyz"[i], k->base.launch.grid[i] - 1, k->base.launch.grid[0],
                              k->base.launch.grid[1], k->base.launch.grid[2]);
            xyz[i] = (uint32_t)v;
            q = skip_ws(e);
            if (i < 2 && *q++ != ',')
                return as_err(k, ln, (size_t)(q - line), "expected ',' in 'thread block = x,y,z'");
        }
        if (*q)
            return as_err(k, ln, (size_t)(q - line) + 1, "unexpected '%.20s' after 'thread block = x,y,z'", q);
        break;
    }
    const uint32_t *g = k->base.launch.grid;
    uint32_t id = xyz[0] + g[0] * (xyz[1] + g[1] * xyz[2]);
    if (fresh) {
        const struct as_index *dup = index_find(k, id);
        if (dup)
            return as_err(k, ln, 1, "thread block %u,%u,%u appears twice (first at line %llu)",
                          xyz[0], xyz[1], xyz[2], (unsigned long long)dup->line);
        if (index_add(k, off, begin_line, id))
            return as_err(k, ln, 1, "out of memory");
    }
    if (id != want) {
        /* Skim to #END_TB. */
        for (;;) {
            line = as_io_line(k->io, &len);
            if (!line)
                return as_io_error(k->io) ? io_err(k)
                       : as_err(k, as_io_lineno(k->io), 1,
                                "file ends inside the thread block that starts at line %llu "
                                "(truncated?)", (unsigned long long)begin_line);
            const char *p = skip_ws(line);
            if (is_kw(p, "#END_TB"))
                break;
            if (is_kw(p, "#BEGIN_TB"))
                return as_err(k, as_io_lineno(k->io), (size_t)(p - line) + 1,
                              "'#BEGIN_TB' before the '#END_TB' of the thread block at line %llu",
                              (unsigned long long)begin_line);
        }
        if (fresh) {
            k->scan_off = as_io_tell(k->io);
            k->scan_line = as_io_lineno(k->io) + 1;
        }
        return id;
    }

    struct as_block *b = calloc(1, sizeof *b);
    if (!b || !(b->w = calloc(k->wpb, sizeof b->w[0]))) {
        free(b);
        return as_err(k, ln, 1, "out of memory");
    }
    b->id = id;
    k->blocks_live++;
    account(k, b);
    struct as_parse ps;
    as_parse_init(&ps, k, b);
    int64_t cur = -1;      /* warp being read                          */
    uint64_t left = 0;     /* its instruction lines still to come      */
    uint64_t declared = 0; /* its insts = N                            */
    int want_insts = 0;    /* a 'warp = W' line waits for 'insts = N'  */
    uint64_t warp_line = 0;
    for (;;) {
        line = as_io_line(k->io, &len);
        if (!line) {
            if (as_io_error(k->io)) {
                io_err(k);
                goto bad;
            }
            if (left)
                as_err(k, as_io_lineno(k->io), 1,
                       "file ends after %llu of the %llu instructions of warp %lld "
                       "('insts = %llu' at line %llu; truncated?)",
                       (unsigned long long)(declared - left), (unsigned long long)declared,
                       (long long)cur, (unsigned long long)declared,
                       (unsigned long long)warp_line);
            else
                as_err(k, as_io_lineno(k->io), 1,
                       "file ends inside the thread block that starts at line %llu "
                       "(no '#END_TB'; truncated?)", (unsigned long long)begin_line);
            goto bad;
        }
        ln = as_io_lineno(k->io);
        const char *p = skip_ws(line);
        if (!*p)
            continue;
        size_t col = (size_t)(p - line) + 1;
        int is_end = is_kw(p, "#END_TB"), is_warp = !strncmp(p, "warp", 4) &&
                     (p[4] == ' ' || p[4] == '=' || p[4] == '\t');
        if (left) {
            if (is_end || is_warp || is_kw(p, "#BEGIN_TB")) {
                as_err(k, ln, col,
                       "warp %lld has %llu instruction lines but 'insts = %llu' (line %llu) "
                       "declares %llu", (long long)cur, (unsigned long long)(declared - left),
                       (unsigned long long)declared, (unsigned long long)warp_line,
                       (unsigned long long)declared);
                goto bad;
            }
            if (as_parse_inst(&ps, line, ln))
                goto bad;
            if (--left == 0)
                as_parse_warp_end(&ps);
            continue;
        }
        if (want_insts) {
            uint64_t n;
            const char *v;
            int r = kv_u64(p, "insts", &n, &v);
            if (r == -1) {
                as_err(k, ln, col, "expected 'insts = N' after 'warp = %lld', got '%.40s'",
                       (long long)cur, p);
                goto bad;
            }
            if (r == -2 || n > UINT32_MAX) {
                as_err(k, ln, (size_t)(v - line) + 1,
                       "'insts' must be an instruction count 0..4294967295, got '%.40s'", v);
                goto bad;
            }
            want_insts = 0;
            warp_line = ln;
            declared = left = n;
            b->w[cur].first = b->nd;
            b->w[cur].n = n;
            /* reserve what the count promises, a bounded step at a time */
            if (as_block_reserve(k, b, b->nd + (n < (1u << 20) ? n : (1u << 20)), 0)) {
                as_err(k, ln, col, "out of memory");
                goto bad;
            }
            if (n > 0)
                as_parse_warp_begin(&ps, (uint32_t)cur);
            continue;
        }
        if (is_end)
            break;
        if (is_warp) {
            uint64_t w;
            const char *v;
            int r = kv_u64(p, "warp", &w, &v);
            if (r || w >= k->wpb) {
                as_err(k, ln, r == -1 ? col : (size_t)(v - line) + 1,
                       "'warp = W' needs W in 0..%u (a block of %u threads), got '%.40s'",
                       k->wpb - 1, k->wpb * 32, r == -1 ? p : v);
                goto bad;
            }
            if (b->w[w].seen) {
                as_err(k, ln, col, "warp %llu appears twice in the thread block at line %llu",
                       (unsigned long long)w, (unsigned long long)begin_line);
                goto bad;
            }
            b->w[w].seen = 1;
            cur = (int64_t)w;
            want_insts = 1;
            continue;
        }
        if (!strncmp(p, "cluster", 7) || !strncmp(p, "thread block", 12)) {
            if (!strncmp(p, "thread block", 12)) {
                as_err(k, ln, col, "second 'thread block' line in the thread block at line %llu",
                       (unsigned long long)begin_line);
                goto bad;
            }
            continue; /* cluster id/cta/rank (Accel-Sim 2 tracer): not modelled */
        }
        if (is_kw(p, "#BEGIN_TB")) {
            as_err(k, ln, col, "'#BEGIN_TB' before the '#END_TB' of the thread block at line %llu",
                   (unsigned long long)begin_line);
            goto bad;
        }
        if (cur >= 0 && as_hexval((unsigned char)*p) >= 0)
            as_err(k, ln, col,
                   "instruction line after the %llu declared by 'insts = %llu' of warp %lld",
                   (unsigned long long)declared, (unsigned long long)declared, (long long)cur);
        else
            as_err(k, ln, col, "expected 'warp = W' or '#END_TB', got '%.40s'", p);
        goto bad;
    }
    if (want_insts) {
        as_err(k, ln, 1, "'warp = %lld' has no 'insts = N' line", (long long)cur);
        goto bad;
    }
    if (fresh) {
        k->scan_off = as_io_tell(k->io);
        k->scan_line = as_io_lineno(k->io) + 1;
    }
    k->blocks_loaded++;
    *out = b;
    return id;
bad:
    block_free(k, b);
    return -1;
}

/* Load block `id` into the pool (or find it there).  NULL on error. */
static struct as_block *get_block(struct as_kernel *k, uint32_t id)
{
    for (struct as_block *b = k->live; b; b = b->next)
        if (b->id == id)
            return b;
    if (k->cold && k->cold->id == id) {
        struct as_block *b = k->cold;
        k->cold = NULL;
        b->next = k->live;
        k->live = b;
        return b;
    }
    struct as_block *b = NULL;
    const struct as_index *ix = index_find(k, id);
    if (ix) {
        if (io_seek(k, ix->off, ix->line))
            return NULL;
        int64_t r = read_section(k, id, 0, &b);
        if (r == -1)
            return NULL;
        if (!b) {
            as_err(k, ix->line, 1, "the thread block indexed here changed (file modified?)");
            return NULL;
        }
    } else {
        if (io_seek(k, k->scan_off, k->scan_line))
            return NULL;
        for (;;) {
            int64_t r = read_section(k, id, 1, &b);
            if (r == -1)
                return NULL;
            if (r == -2) {
                const uint32_t *g = k->base.launch.grid;
                as_err(k, as_io_lineno(k->io), 1,
                       "thread block %u,%u,%u (linear %u) is not in the trace "
                       "(%llu thread blocks found; the grid has %llu)",
                       id % g[0], id / g[0] % g[1], id / g[0] / g[1], id,
                       (unsigned long long)k->nidx, (unsigned long long)k->blocks);
                return NULL;
            }
            if (b)
                break;
        }
    }
    b->next = k->live;
    k->live = b;
    return b;
}

static void release(struct as_kernel *k, struct as_block *b)
{
    struct as_block **pp = &k->live;
    while (*pp && *pp != b)
        pp = &(*pp)->next;
    if (*pp)
        *pp = b->next;
    block_free(k, k->cold);
    b->next = NULL;
    k->cold = b;
    /* When every block has run, the stream is no longer needed: close it so
     * a list of thousands of kernels never holds thousands of decoders. */
    if (++k->releases >= k->blocks && k->io) {
        k->restarts_closed += as_io_restarts(k->io);
        as_io_close(k->io);
        k->io = NULL;
    }
}

/* ---- trace_ops ----------------------------------------------------------- */

static int as_warp_begin(struct trace_kernel *tk, uint32_t block, uint32_t warp,
                         struct tr_cursor *c)
{
    struct as_kernel *k = tk->impl;
    if ((uint64_t)block >= k->blocks || warp >= k->wpb)
        return -1;
    struct as_block *b = get_block(k, block);
    if (!b)
        return -1;
    b->refs++;
    memset(c, 0, sizeof *c);
    c->block = block;
    c->warp = warp;
    c->state = b;
    return 0;
}

static const struct tr_inst *as_warp_next(struct trace_kernel *tk, struct tr_cursor *c,
                                          struct tr_dyn *dyn)
{
    struct as_kernel *k = tk->impl;
    struct as_block *b = c->state;
    struct as_warp *w = &b->w[c->warp];
    if (c->seq >= w->n)
        return NULL;
    const struct as_rec *r = &b->d[w->first + c->seq];
    c->seq++;
    if (dyn) {
        dyn->active_mask = r->mask;
        dyn->naddr = 0;
        dyn->addr = NULL;
        if (r->aoff != AS_NO_ADDR) {
            const uint64_t *a = &b->a[r->aoff];
            uint32_t n = (uint32_t)__builtin_popcount(r->mask);
            if (a[0] == 0) {
                dyn->addr = a + 1;
            } else { /* base + stride: expand into the warp's scratch */
                for (uint32_t i = 0; i < n; i++)
                    w->scratch[i] = a[1] + (uint64_t)((int64_t)a[2] * (int64_t)i);
                dyn->addr = w->scratch;
            }
            dyn->naddr = n;
        }
    }
    return &k->st[r->sidx].in;
}

static void as_warp_end(struct trace_kernel *tk, struct tr_cursor *c)
{
    struct as_kernel *k = tk->impl;
    struct as_block *b = c->state;
    if (!b)
        return;
    c->state = NULL;
    if (--b->refs == 0)
        release(k, b);
}

static uint64_t as_warp_count(struct trace_kernel *tk, uint32_t block, uint32_t warp)
{
    struct as_kernel *k = tk->impl;
    if ((uint64_t)block >= k->blocks || warp >= k->wpb)
        return UINT64_MAX;
    struct as_block *b = get_block(k, block);
    if (!b)
        return UINT64_MAX;
    uint64_t n = b->w[warp].n;
    if (b->refs == 0)
        release(k, b);
    return n;
}

static void as_destroy(struct trace_kernel *tk)
{
    if (!tk)
        return;
    struct as_kernel *k = tk->impl;
    if (k) {
        while (k->live) {
            struct as_block *b = k->live;
            k->live = b->next;
            block_free(k, b);
        }
        block_free(k, k->cold);
        as_io_close(k->io);
        free(k->idx);
        as_statics_free(k);
        shared_unref(k->sh);
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
    const struct as_kernel *k = tk->impl;
    memset(st, 0, sizeof *st);
    st->version = k->version;
    st->binary_version = k->binary_version;
    st->statics = k->nst;
    st->unknown_opcodes = k->unknown_opcodes;
    st->blocks_loaded = k->blocks_loaded;
    st->blocks_live = k->blocks_live;
    st->sections_indexed = k->nidx;
    st->bytes_now = k->bytes_now;
    st->bytes_peak = k->bytes_peak;
    st->restarts = k->io ? as_io_restarts(k->io) + k->restarts_closed : k->restarts_closed;
    return 0;
}

/* ---- opening ------------------------------------------------------------- */

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
    k->base.ops = &as_ops;
    k->base.impl = k;
    k->sh = sh;
    sh->refs++;
    out->kernels[out->nkernels++] = &k->base;
    if (io_ready(k) || parse_header(k)) {
        snprintf(err, TRACE_ERR_MAX, "%s", k->err);
        k->base.error = NULL;
        return -1;
    }
    k->scan_off = k->body_off;
    k->scan_line = k->body_line;
    /* The stream is reopened when the engine starts the first block. */
    as_io_close(k->io);
    k->io = NULL;
    k->base.error = NULL;
    return 0;
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
        fclose(t);
        rc = open_kernel(full, sh, out, err);
        free(full);
        if (rc)
            break;
        nk++;
    }
    if (!rc && ferror(fp)) {
        snprintf(err, TRACE_ERR_MAX, "%s: read error", path);
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
