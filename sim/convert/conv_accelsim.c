/* conv_accelsim.c — write any trace (usually a native one) as an Accel-Sim
 * kernel list and tracer-version-4 .traceg files (docs/accelsim.md).
 *
 * Every warp stream is walked through the trace_ops interface, so whatever a
 * reader expands (loops, block- and warp-dependent control flow) comes out as
 * the explicit per-warp instruction lines Accel-Sim expects.  The format
 * holds less than a native trace: predicate and uniform registers, the
 * footprint, bank-conflict and latency attributes are dropped; memory
 * patterns become explicit addresses, synthesized deterministically so the
 * sector counts equal the engine's pattern arithmetic (a coalesced access
 * starts on a sector boundary, a random one touches one distinct sector per
 * lane, ...).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "convert/conv_accelsim.h"

enum { EXP_BASE_ALIGN = 512 }; /* every synthesized base is 512-byte aligned */

static uint64_t mix64(uint64_t x)
{
    /* splitmix64 finaliser (Steele, Lea, Flood 2014) */
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int is_mem(const struct tr_inst *in)
{
    return (in->kind == TR_K_LOAD || in->kind == TR_K_STORE || in->kind == TR_K_ATOMIC) &&
           in->space != TR_SP_NONE && in->space != TR_SP_CONST;
}

/* Active lanes contiguous (and at least one)? */
static int contiguous(uint32_t m)
{
    if (!m)
        return 0;
    m >>= __builtin_ctz(m);
    return (m & (m + 1)) == 0;
}

/* One instruction line. */
static void write_inst(FILE *f, const struct tr_inst *in, const struct tr_dyn *d,
                       uint64_t gw, uint64_t seq, const struct conv_accelsim_opts *o)
{
    uint32_t mask = d->active_mask;
    uint64_t seed = o->seed;
    fprintf(f, "%04x %08x ", o->use_pc && in->has_pc ? (unsigned)in->pc : (unsigned)in->line * 16u,
            mask);
    int dst = -1;
    for (int i = 0; i < in->ndst && dst < 0; i++)
        if (in->dst[i] < 255)
            dst = in->dst[i];
    if (dst >= 0)
        fprintf(f, "1 R%d ", dst);
    else
        fputs("0 ", f);
    fprintf(f, "%s ", in->opcode);
    int ns = 0;
    for (int i = 0; i < in->nsrc; i++)
        ns += in->src[i] < 255;
    fprintf(f, "%d ", ns);
    for (int i = 0; i < in->nsrc; i++)
        if (in->src[i] < 255)
            fprintf(f, "R%d ", in->src[i]);
    if (!is_mem(in)) {
        fputs("0\n", f);
        return;
    }
    unsigned w = in->width ? in->width : 4;
    fprintf(f, "%u ", w);
    if (!mask) {
        fputs("1 0x0 0\n", f); /* what the NVBit tracer writes for no lane */
        return;
    }
    int n = __builtin_popcount(mask);
    if (d->naddr >= (uint32_t)n && d->addr) {
        /* the trace's own addresses (Accel-Sim traces, native addr= or a
         * footprint), as they are: the caches see the same lines */
        fputs("0", f);
        for (int k = 0; k < n; k++)
            fprintf(f, " 0x%016llx", (unsigned long long)d->addr[k]);
        fputc('\n', f);
        return;
    }
    uint64_t base = 0x7f0000000000ull + ((uint64_t)(in->line & 0xffff) << 28) +
                    ((gw * 64 + seq) % (1u << 18)) * EXP_BASE_ALIGN;
    uint64_t addr[32];
    int64_t stride;
    switch (in->pattern) {
    case TR_PAT_STRIDED:
        stride = (int64_t)in->stride;
        break;
    case TR_PAT_BROADCAST:
        stride = 0;
        break;
    case TR_PAT_RANDOM: {
        /* lane k: its own sector, spread over the footprint (1 GiB if none) */
        uint64_t span = (in->footprint ? in->footprint : (1ull << 30)) / 32 / 32;
        if (span == 0)
            span = 1;
        for (int k = 0; k < n; k++) {
            uint64_t r = mix64(seed ^ mix64(gw * 0x100000001B3ull + seq) ^ (uint64_t)k) % span;
            addr[k] = base + (r * 32 + (uint64_t)k) * 32;
        }
        fprintf(f, "2 0x%llx", (unsigned long long)addr[0]);
        for (int k = 1; k < n; k++)
            fprintf(f, " %lld", (long long)(addr[k] - addr[k - 1]));
        fputc('\n', f);
        return;
    }
    case TR_PAT_ADDRESSES:
        if (d->naddr >= (uint32_t)n && d->addr) {
            fputs("0", f);
            for (int k = 0; k < n; k++)
                fprintf(f, " 0x%016llx", (unsigned long long)d->addr[k]);
            fputc('\n', f);
            return;
        }
        /* no addresses given: the engine assumes coalesced */
        /* fall through */
    default: /* coalesced */
        stride = (int64_t)w;
        break;
    }
    if (n == 1) {
        fprintf(f, "2 0x%llx\n", (unsigned long long)base);
    } else if (contiguous(mask) && stride <= INT32_MAX) {
        fprintf(f, "1 0x%llx %lld\n", (unsigned long long)base, (long long)stride);
    } else {
        fputs("0", f);
        for (int k = 0; k < n; k++)
            fprintf(f, " 0x%016llx", (unsigned long long)(base + (uint64_t)(stride * k)));
        fputc('\n', f);
    }
}

/* A new temporary file "PATH.tmpXXXXXX" for `path` (its name in *tmp,
 * malloc'd), or NULL with errno set.  The export renames it over `path`
 * only when every file is complete, so a full disk or a failed kernel never
 * leaves a truncated trace or destroys a previous export. */
static FILE *temp_for(const char *path, char **tmp)
{
    size_t n = strlen(path) + 16;
    *tmp = malloc(n);
    if (!*tmp)
        return NULL;
    snprintf(*tmp, n, "%s.tmpXXXXXX", path);
    int fd = mkstemp(*tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(*tmp);
        }
        free(*tmp);
        *tmp = NULL;
        errno = e;
        return NULL;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    return f;
}

/* Flush, sync and close f; 0, or -1 with errno set. */
static int close_synced(FILE *f)
{
    int bad = fflush(f) || ferror(f) || fsync(fileno(f));
    int e = errno;
    if (fclose(f) || bad) {
        if (bad)
            errno = e ? e : EIO;
        return -1;
    }
    return 0;
}

static int export_kernel(struct trace_kernel *k, int id, const char *path, FILE *f,
                         const struct conv_accelsim_opts *o, char err[TRACE_ERR_MAX])
{
    const struct tr_launch *l = &k->launch;
    fprintf(f, "-kernel name = %s\n", l->name);
    fprintf(f, "-kernel id = %d\n", id);
    fprintf(f, "-grid dim = (%u,%u,%u)\n", l->grid[0], l->grid[1], l->grid[2]);
    fprintf(f, "-block dim = (%u,%u,%u)\n", l->block[0], l->block[1], l->block[2]);
    fprintf(f, "-shmem = %d\n", l->smem_static + l->smem_dynamic);
    fprintf(f, "-nregs = %d\n", l->regs);
    fprintf(f, "-binary version = %d\n", o->binary_version);
    fprintf(f, "-cuda stream id = 0\n");
    fprintf(f, "-shmem base_addr = 0x00007ff000000000\n");
    fprintf(f, "-local mem base_addr = 0x00007ff100000000\n");
    fprintf(f, "-nvbit version = %s\n", o->nvbit_version ? o->nvbit_version : "smsim-export");
    fprintf(f, "-accelsim tracer version = 4\n");
    fprintf(f, "-enable lineinfo = 0\n");
    /* smsim keys (Accel-Sim ignores unknown header keys): what the launch
     * needs for exact occupancy and the format has no field for */
    fprintf(f, "-smsim shmem dynamic = %d\n", l->smem_dynamic);
    fprintf(f, "-smsim barriers = %d\n", l->barriers);
    fprintf(f, "\n#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
               "mem_width [adrrescompress?] [mem_addresses]\n\n");
    uint64_t blocks = tr_grid_blocks(l);
    uint32_t wpb = tr_warps_per_block(l);
    int rc = 0;
    for (uint64_t b = 0; b < blocks && !rc; b++) {
        uint32_t x = (uint32_t)(b % l->grid[0]), y = (uint32_t)(b / l->grid[0] % l->grid[1]),
                 z = (uint32_t)(b / l->grid[0] / l->grid[1]);
        fprintf(f, "#BEGIN_TB\n\nthread block = %u,%u,%u\n\n", x, y, z);
        for (uint32_t w = 0; w < wpb; w++) {
            uint64_t n = tr_warp_insts(k, (uint32_t)b, w);
            struct tr_cursor c;
            if (n == UINT64_MAX || k->ops->warp_begin(k, (uint32_t)b, w, &c)) {
                snprintf(err, TRACE_ERR_MAX, "smsim: kernel '%s': cannot read block %llu warp %u%s%s",
                         l->name, (unsigned long long)b, w, k->error ? ": " : "",
                         k->error ? k->error : "");
                rc = -1;
                break;
            }
            fprintf(f, "warp = %u\ninsts = %llu\n", w, (unsigned long long)n);
            const struct tr_inst *in;
            struct tr_dyn d;
            uint64_t seq = 0, gw = b * wpb + w;
            while ((in = k->ops->warp_next(k, &c, &d)))
                write_inst(f, in, &d, gw, seq++, o);
            if (k->ops->warp_end)
                k->ops->warp_end(k, &c);
            fputc('\n', f);
            if (seq != n) {
                snprintf(err, TRACE_ERR_MAX, "smsim: kernel '%s': block %llu warp %u: counted %llu "
                         "instructions but walked %llu", l->name, (unsigned long long)b, w,
                         (unsigned long long)n, (unsigned long long)seq);
                rc = -1;
                break;
            }
        }
        fputs("#END_TB\n\n", f);
    }
    if (close_synced(f) && !rc) {
        snprintf(err, TRACE_ERR_MAX, "smsim: cannot write '%s': %s", path, strerror(errno));
        return -1;
    }
    return rc;
}

/* Replace the plain temporary file *tmp of `path` by its xz compression
 * (another temporary file beside path); 0, or -1 with the message. */
static int compress(const char *path, char **tmp, char err[TRACE_ERR_MAX])
{
    char *ztmp = NULL;
    FILE *in = fopen(*tmp, "r");
    FILE *out = in ? temp_for(path, &ztmp) : NULL;
    int bad = !out || conv_xz_copy(in, out);
    int e = errno;
    if (out && close_synced(out) && !bad) {
        bad = 1;
        e = errno;
    }
    if (in)
        fclose(in);
    unlink(*tmp);
    free(*tmp);
    *tmp = ztmp;
    if (bad) {
        snprintf(err, TRACE_ERR_MAX, "smsim: cannot write '%s': %s", path, strerror(e));
        return -1;
    }
    return 0;
}

int conv_accelsim_export(struct trace_file *t, const char *dir,
                         const struct conv_accelsim_opts *o, char err[TRACE_ERR_MAX])
{
    if (mkdir(dir, 0777) && errno != EEXIST) {
        snprintf(err, TRACE_ERR_MAX, "smsim: cannot create directory '%s': %s", dir,
                 strerror(errno));
        return -1;
    }
    struct stat sb;
    if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
        snprintf(err, TRACE_ERR_MAX, "smsim: '%s' is not a directory", dir);
        return -1;
    }
    /* kernel-1.traceg ... kernel-N.traceg, then kernelslist.g: each written
     * to a temporary file first, all renamed into place at the end */
    int nf = t->nkernels + 1;
    size_t dl = strlen(dir);
    char **path = calloc((size_t)nf, sizeof *path), **tmp = calloc((size_t)nf, sizeof *tmp);
    int rc = path && tmp ? 0 : -1;
    for (int i = 0; !rc && i < nf; i++) {
        if (!(path[i] = malloc(dl + 64)))
            rc = -1;
        else if (i < t->nkernels)
            snprintf(path[i], dl + 64, "%s/kernel-%d.traceg%s", dir, i + 1, o->xz ? ".xz" : "");
        else
            snprintf(path[i], dl + 64, "%s/kernelslist.g", dir);
    }
    if (rc)
        snprintf(err, TRACE_ERR_MAX, "smsim: out of memory");
    for (int i = 0; !rc && i < nf; i++) {
        FILE *f = temp_for(path[i], &tmp[i]);
        if (!f) {
            snprintf(err, TRACE_ERR_MAX, "smsim: cannot write '%s': %s", path[i],
                     strerror(errno));
            rc = -1;
        } else if (i < t->nkernels) {
            rc = export_kernel(t->kernels[i], i + 1, path[i], f, o, err);
            if (!rc && o->xz)
                rc = compress(path[i], &tmp[i], err);
        } else {
            for (int j = 0; j < t->nkernels; j++)
                fprintf(f, "kernel-%d.traceg%s\n", j + 1, o->xz ? ".xz" : "");
            if (close_synced(f)) {
                snprintf(err, TRACE_ERR_MAX, "smsim: cannot write '%s': %s", path[i],
                         strerror(errno));
                rc = -1;
            }
        }
    }
    for (int i = 0; !rc && i < nf; i++) {
        if (rename(tmp[i], path[i])) {
            snprintf(err, TRACE_ERR_MAX, "smsim: cannot write '%s': %s", path[i],
                     strerror(errno));
            rc = -1;
        } else {
            free(tmp[i]);
            tmp[i] = NULL;
        }
    }
    for (int i = 0; i < nf && path && tmp; i++) {
        if (tmp[i])
            unlink(tmp[i]); /* a failure: no partial file is left */
        free(tmp[i]);
        free(path[i]);
    }
    free(path);
    free(tmp);
    return rc;
}
