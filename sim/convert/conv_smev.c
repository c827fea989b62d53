/* conv_smev.c — strict reader of a tracer event file (docs/tracing.md
 * "The event file").
 *
 * Header: `key = value` lines, every key of the table below exactly once,
 * in any order, then the line `#events`.  Records follow at once, each
 * 16 bytes (u32 warp, u8 kind, u8 size, u16 flags, u32 pc, u32 mask, little
 * endian) plus popcount(mask) u64 addresses for memory kinds, so every record
 * is a multiple of 8 bytes long.  Everything is bounded: the file size
 * (CONV_SMEV_MAX_BYTES), the header (CONV_SMEV_MAX_HEADER), each line, and
 * the record count (`records = R` must equal what the body holds).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "convert/conv_smev.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { H_VERSION, H_KERNEL, H_MODULE, H_GRID, H_BLOCK, H_NREGS, H_SS, H_SD, H_LAUNCH,
       H_SAMPLED, H_RECORDS, H_OVERFLOW, H_PCBASE, H_N };
static const char *const hdr_keys[H_N] = {
    "smev version", "kernel", "module", "grid", "block", "nregs", "shmem static",
    "shmem dynamic", "launch", "sampled blocks", "records", "overflow", "pc base"};

static int msg(char *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(err, TRACE_ERR_MAX, fmt, ap) >= TRACE_ERR_MAX)
        err[TRACE_ERR_MAX - 1] = 0; /* cut, still one line */
    va_end(ap);
    return -1;
}

int conv_smev_is_mem(int kind)
{
    return kind == CONV_SMEV_GLOBAL || kind == CONV_SMEV_SHARED || kind == CONV_SMEV_LOCAL ||
           kind == CONV_SMEV_MEMCPY_ASYNC;
}

const char *conv_smev_kind_name(int kind)
{
    switch (kind) {
    case CONV_SMEV_BLOCK_ENTER: return "block enter";
    case CONV_SMEV_BLOCK_EXIT: return "block exit";
    case CONV_SMEV_GLOBAL: return "global";
    case CONV_SMEV_SHARED: return "shared";
    case CONV_SMEV_LOCAL: return "local";
    case CONV_SMEV_BARRIER: return "barrier";
    case CONV_SMEV_SYNCWARP: return "syncwarp";
    case CONV_SMEV_SHFL: return "shfl";
    case CONV_SMEV_CALL: return "call";
    case CONV_SMEV_RET: return "ret";
    case CONV_SMEV_MEMCPY_ASYNC: return "memcpy_async";
    default: return "?";
    }
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t conv_smev_addr(const struct conv_smev_rec *r, uint32_t k)
{
    const unsigned char *p = r->addr + 8 * (size_t)k;
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

void conv_smev_get(const struct conv_smev *e, uint64_t i, struct conv_smev_rec *r)
{
    const unsigned char *p = e->data + e->off[i];
    r->warp = rd32(p);
    r->kind = p[4];
    r->size = p[5];
    r->flags = (uint16_t)(p[6] | p[7] << 8);
    r->pc = rd32(p + 8);
    r->mask = rd32(p + 12);
    r->naddr = conv_smev_is_mem(r->kind) ? (uint32_t)__builtin_popcount(r->mask) : 0;
    r->addr = p + CONV_SMEV_REC_HDR;
    r->index = i;
    r->byte = e->off[i];
}

/* Decimal digits only, at most max. */
static int num(const char *s, uint64_t max, uint64_t *v)
{
    uint64_t x = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || x > (max - (uint64_t)(*s - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
    }
    *v = x;
    return 0;
}

/* "X,Y,Z", each 1..max. */
static int dims(const char *s, uint64_t max, uint32_t d[3])
{
    char buf[64];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *p = buf;
    for (int k = 0; k < 3; k++) {
        char *c = strchr(p, ',');
        if ((k < 2) != (c != NULL))
            return -1;
        if (c)
            *c = 0;
        uint64_t v;
        if (num(p, max, &v) || v < 1)
            return -1;
        d[k] = (uint32_t)v;
        p = c ? c + 1 : p;
    }
    return 0;
}

static int parse_value(struct conv_smev *e, int h, const char *v, char *err, unsigned line)
{
    uint64_t x, y;
    const char *bad = NULL;
    switch (h) {
    case H_VERSION:
        if (num(v, 1000000, &x))
            bad = "expected a version number";
        else if (x != 1)
            return msg(err, "%s:%u: smev version %" PRIu64 " is not supported (this smsim reads "
                            "version 1)", e->path, line, x);
        break;
    case H_KERNEL:
        if (strlen(v) >= sizeof e->kernel || strpbrk(v, " \t"))
            bad = "expected one mangled name (no blanks, under 512 characters)";
        else
            strcpy(e->kernel, v);
        break;
    case H_MODULE:
        if (strlen(v) >= sizeof e->module)
            bad = "expected a file name under 256 characters";
        else
            strcpy(e->module, v);
        break;
    case H_GRID:
        if (dims(v, 2147483647, e->grid))
            bad = "expected X,Y,Z with each dimension 1..2147483647";
        break;
    case H_BLOCK:
        if (dims(v, 1024, e->block) ||
            (uint64_t)e->block[0] * e->block[1] * e->block[2] > 1024)
            bad = "expected X,Y,Z with at most 1024 threads in all";
        break;
    case H_NREGS:
        if (num(v, 255, &x) || x < 1)
            bad = "expected 1..255";
        else
            e->nregs = (int)x;
        break;
    case H_SS:
    case H_SD:
        if (num(v, 2147483647, &x))
            bad = "expected bytes 0..2147483647";
        else if (h == H_SS)
            e->shmem_static = (int)x;
        else
            e->shmem_dynamic = (int)x;
        break;
    case H_LAUNCH:
        if (num(v, UINT64_MAX, &e->launch))
            bad = "expected a launch index";
        break;
    case H_SAMPLED: {
        char buf[64];
        const char *c = strchr(v, ':');
        if (!c || strlen(v) >= sizeof buf) {
            bad = "expected FIRST:COUNT (linear block ids)";
            break;
        }
        memcpy(buf, v, (size_t)(c - v));
        buf[c - v] = 0;
        if (num(buf, UINT32_MAX, &x) || num(c + 1, UINT32_MAX, &y) || y < 1)
            bad = "expected FIRST:COUNT with COUNT >= 1";
        else {
            e->sampled_first = (uint32_t)x;
            e->sampled_count = (uint32_t)y;
        }
        break;
    }
    case H_RECORDS:
        if (num(v, UINT32_MAX, &e->records))
            bad = "expected a record count 0..4294967295";
        break;
    case H_OVERFLOW:
        if (strcmp(v, "0") && strcmp(v, "1"))
            bad = "expected 0 or 1";
        else
            e->overflow = v[0] == '1';
        break;
    case H_PCBASE: {
        const char *p = v;
        x = 0;
        int d = 0;
        if (p[0] == '0' && p[1] == 'x')
            for (p += 2; *p && d <= 16; p++, d++) {
                int c = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                      : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
                if (c < 0)
                    break;
                x = x << 4 | (uint64_t)c;
            }
        if (!d || d > 16 || *p)
            bad = "expected 0xHEX (at most 16 digits)";
        else
            e->pc_base = x;
        break;
    }
    }
    if (bad)
        /* a long value is shortened so that the reason fits the message */
        return msg(err, "%s:%u: %s = '%.*s%s': %s", e->path, line, hdr_keys[h],
                   strlen(v) > 60 ? 60 : (int)strlen(v), v, strlen(v) > 60 ? "..." : "", bad);
    return 0;
}

static int parse(struct conv_smev *e, char *err)
{
    const unsigned char *d = e->data;
    size_t pos = 0, body = 0;
    unsigned line = 0;
    int seen[H_N] = {0}, ended = 0;
    while (pos < e->len && !ended) {
        line++;
        const unsigned char *nl = memchr(d + pos, '\n', e->len - pos);
        size_t ll = nl ? (size_t)(nl - (d + pos)) : e->len - pos;
        if (pos + ll > CONV_SMEV_MAX_HEADER)
            return msg(err, "%s:%u: header longer than %d bytes without '#events' (not an smev "
                            "file?)", e->path, line, CONV_SMEV_MAX_HEADER);
        char s[1200];
        if (memchr(d + pos, 0, ll))
            return msg(err, "%s:%u: NUL byte in the header (not an smev file?)", e->path, line);
        if (ll >= sizeof s)
            return msg(err, "%s:%u: header line longer than %zu bytes", e->path, line,
                       sizeof s - 1);
        memcpy(s, d + pos, ll);
        s[ll] = 0;
        if (!nl)
            return msg(err, "%s:%u: the header ends without the line '#events' (truncated?)",
                       e->path, line);
        pos += ll + 1;
        if (!strcmp(s, "#events")) {
            ended = 1;
            body = pos;
            break;
        }
        char *eq = strstr(s, " = ");
        if (!eq)
            return msg(err, "%s:%u: bad header line '%.80s' (expected 'key = value' or "
                            "'#events')", e->path, line, s);
        *eq = 0;
        const char *v = eq + 3;
        int h = -1;
        for (int k = 0; k < H_N; k++)
            if (!strcmp(s, hdr_keys[k]))
                h = k;
        if (h < 0)
            return msg(err, "%s:%u: unknown header key '%.80s'", e->path, line, s);
        if (seen[h])
            return msg(err, "%s:%u: header key '%s' given twice", e->path, line, hdr_keys[h]);
        seen[h] = 1;
        if (!*v || v[0] == ' ' || v[strlen(v) - 1] == ' ')
            return msg(err, "%s:%u: %s: expected one value after ' = '", e->path, line,
                       hdr_keys[h]);
        if (parse_value(e, h, v, err, line))
            return -1;
    }
    if (!ended)
        return msg(err, "%s:%u: the header ends without the line '#events' (truncated?)",
                   e->path, line ? line : 1);
    for (int k = 0; k < H_N; k++)
        if (!seen[k])
            return msg(err, "%s:%u: missing header key '%s'", e->path, line, hdr_keys[k]);
    uint64_t blocks = (uint64_t)e->grid[0] * e->grid[1] * e->grid[2];
    uint32_t threads = e->block[0] * e->block[1] * e->block[2];
    e->warps_per_block = (threads + 31) / 32;
    uint64_t warps = blocks * e->warps_per_block;
    if (warps > (uint64_t)UINT32_MAX + 1)
        return msg(err, "%s: grid and block make %" PRIu64 " warps, more than the u32 warp "
                        "id holds", e->path, warps);
    if ((uint64_t)e->sampled_first + e->sampled_count > blocks)
        return msg(err, "%s: sampled blocks = %u:%u lies outside the grid's %" PRIu64
                        " blocks", e->path, e->sampled_first, e->sampled_count, blocks);
    e->off = malloc((size_t)(e->records ? e->records : 1) * sizeof *e->off);
    if (!e->off)
        return msg(err, "%s: out of memory (%" PRIu64 " records)", e->path, e->records);
    uint64_t n = 0;
    uint64_t lo = (uint64_t)e->sampled_first * e->warps_per_block,
             hi = lo + (uint64_t)e->sampled_count * e->warps_per_block;
    for (pos = body; pos < e->len; n++) {
        uint64_t rn = n + 1;
        if (n == e->records)
            return msg(err, "%s: record %" PRIu64 " (byte %zu): more records than the header's "
                            "records = %" PRIu64, e->path, rn, pos, e->records);
        if (e->len - pos < CONV_SMEV_REC_HDR)
            return msg(err, "%s: record %" PRIu64 " (byte %zu): truncated record (%zu of its "
                            "%d header bytes)", e->path, rn, pos, e->len - pos, CONV_SMEV_REC_HDR);
        e->off[n] = pos;
        struct conv_smev_rec r;
        conv_smev_get(e, n, &r);
        if (r.kind == 0 || (r.kind > CONV_SMEV_RET && r.kind != CONV_SMEV_MEMCPY_ASYNC))
            return msg(err, "%s: record %" PRIu64 " (byte %zu): kind %u unknown (expected 1-10 "
                            "or 14)", e->path, rn, pos, r.kind);
        if (r.mask == 0)
            return msg(err, "%s: record %" PRIu64 " (byte %zu): mask 0 (no active lane)",
                       e->path, rn, pos);
        if (r.warp >= warps)
            return msg(err, "%s: record %" PRIu64 " (byte %zu): warp %u outside the launch "
                            "(%" PRIu64 " warps: grid %u,%u,%u, %u per block)", e->path, rn, pos,
                       r.warp, warps, e->grid[0], e->grid[1], e->grid[2], e->warps_per_block);
        if (r.warp < lo || r.warp >= hi)
            return msg(err, "%s: record %" PRIu64 " (byte %zu): warp %u is in block %u, outside "
                            "sampled blocks = %u:%u", e->path, rn, pos, r.warp,
                       r.warp / e->warps_per_block, e->sampled_first, e->sampled_count);
        if (r.pc % 16)
            return msg(err, "%s: record %" PRIu64 " (byte %zu): pc 0x%x is not a multiple of 16",
                       e->path, rn, pos, r.pc);
        uint32_t lanes = threads - (r.warp % e->warps_per_block) * 32;
        if (lanes < 32 && (r.mask >> lanes))
            return msg(err, "%s: record %" PRIu64 " (byte %zu): mask 0x%08x has lanes beyond "
                            "the warp's %u threads", e->path, rn, pos, r.mask, lanes);
        size_t sz = CONV_SMEV_REC_HDR + 8 * (size_t)r.naddr;
        if (e->len - pos < sz)
            return msg(err, "%s: record %" PRIu64 " (byte %zu): truncated record (%zu of its "
                            "%zu bytes: %u addresses)", e->path, rn, pos, e->len - pos, sz,
                       r.naddr);
        pos += sz;
    }
    if (n != e->records)
        return msg(err, "%s: the header says records = %" PRIu64 ", the file holds %" PRIu64
                        " (truncated?)", e->path, e->records, n);
    return 0;
}

static int finish(struct conv_smev *e, char *err)
{
    if (parse(e, err)) {
        conv_smev_close(e);
        return -1;
    }
    return 0;
}

int conv_smev_open_mem(const char *path, const unsigned char *data, size_t len,
                       struct conv_smev *e, char err[TRACE_ERR_MAX])
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    if (len > CONV_SMEV_MAX_BYTES)
        return msg(err, "%s: larger than %llu bytes", e->path, CONV_SMEV_MAX_BYTES);
    e->data = malloc(len ? len : 1);
    if (!e->data)
        return msg(err, "%s: out of memory", e->path);
    if (len)
        memcpy(e->data, data, len);
    e->len = len;
    return finish(e, err);
}

int conv_smev_open(const char *path, struct conv_smev *e, char err[TRACE_ERR_MAX])
{
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return msg(err, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap >= CONV_SMEV_MAX_BYTES) {
                free(buf);
                fclose(f);
                return msg(err, "%s: larger than %llu bytes", path, CONV_SMEV_MAX_BYTES);
            }
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0)
            break;
    }
    int bad = !buf || ferror(f);
    const char *why = buf ? strerror(errno) : "out of memory";
    fclose(f);
    if (bad) {
        free(buf);
        return msg(err, "%s: read error: %s", path, why);
    }
    e->data = buf;
    e->len = n;
    return finish(e, err);
}

void conv_smev_close(struct conv_smev *e)
{
    free(e->data);
    free(e->off);
    e->data = NULL;
    e->off = NULL;
}
