/* fuzz_util.c — helpers shared by the fuzz harnesses (see fuzz_util.h).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "fuzz_util.h"

/* Remove path: a file, or a directory with everything below it. */
static void rm_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char sub[512];
            snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
            rm_tree(sub);
        }
        closedir(d);
    }
    remove(path);
}

static char scratch[256]; /* fz_dir(), "" until created */

/* atexit: remove the scratch directory and what the harnesses wrote there */
static void rm_scratch(void)
{
    rm_tree(scratch);
}

const char *fz_dir(void)
{
    /* created once per process: a mkdir() per execution costs more than the
     * parse of a small input */
    char *dir = scratch;
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp)
            tmp = "/tmp";
        snprintf(dir, sizeof scratch, "%s/smsim-fuzz-%ld", tmp, (long)getpid());
        if (mkdir(dir, 0700) && errno != EEXIST) {
            perror(dir);
            abort();
        }
        atexit(rm_scratch);
    }
    return dir;
}

const char *fz_write_file(const char *name, const uint8_t *data, size_t size,
                          char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", fz_dir(), name);
    /* open + one write + close: no stdio buffer, no fsync */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            perror(path);
            abort();
        }
        done += (size_t)w;
    }
    if (close(fd)) {
        perror(path);
        abort();
    }
    return path;
}

void fz_check_error(const char *err)
{
    if (!err[0] || strchr(err, '\n') || !strstr(err, ": ")) {
        fprintf(stderr, "fuzz: bad error message: \"%s\"\n", err);
        abort();
    }
}

static void check_inst(const struct tr_inst *in)
{
    int ok = in->kind <= TR_K_NOP && in->pipe < PIPE_COUNT && in->space <= TR_SP_TEX &&
             in->pattern <= TR_PAT_ADDRESSES && in->ndst <= TR_MAX_DST &&
             in->nsrc <= TR_MAX_SRC && in->dep <= TR_DEP_LONG &&
             memchr(in->opcode, '\0', sizeof in->opcode);
    for (int i = 0; ok && i < in->ndst; i++)
        ok = in->dst[i] < TR_NREGS || in->dst[i] == TR_REG_NONE;
    for (int i = 0; ok && i < in->nsrc; i++)
        ok = in->src[i] < TR_NREGS || in->src[i] == TR_REG_NONE;
    if (!ok) {
        fprintf(stderr, "fuzz: malformed instruction at trace line %u\n", (unsigned)in->line);
        abort();
    }
}

/* Walk one warp for at most *budget instructions; compare with warp_count. */
static void walk_warp(struct trace_kernel *k, uint32_t b, uint32_t w, uint64_t *budget)
{
    struct tr_cursor c;
    if (k->ops->warp_begin(k, b, w, &c)) {
        if (k->error)
            fz_check_error(k->error);
        return;
    }
    uint64_t n = 0;
    struct tr_dyn dyn;
    const struct tr_inst *in;
    int done = 0;
    while (*budget) {
        memset(&dyn, 0, sizeof dyn);
        if (!(in = k->ops->warp_next(k, &c, &dyn))) {
            done = 1;
            break;
        }
        check_inst(in);
        /* touch every address so ASan sees an out-of-bounds one */
        if (dyn.naddr > 32) {
            fprintf(stderr, "fuzz: %u addresses for one warp instruction\n", dyn.naddr);
            abort();
        }
        volatile uint64_t sum = 0;
        for (uint32_t i = 0; i < dyn.naddr; i++)
            sum += dyn.addr[i];
        (void)sum;
        n++;
        (*budget)--;
    }
    if (k->ops->warp_end)
        k->ops->warp_end(k, &c);
    if (done && k->ops->warp_count) {
        uint64_t want = k->ops->warp_count(k, b, w);
        if (want != n) {
            fprintf(stderr, "fuzz: warp (%u,%u) walked %llu instructions, warp_count says %llu\n",
                    b, w, (unsigned long long)n, (unsigned long long)want);
            abort();
        }
    }
    /* the instruction limit's bound (tr_kernel_insts_total) holds for
     * every warp: one below the truth would let a run past the limit */
    if (k->ops->warp_bound && k->ops->warp_count) {
        uint64_t cnt = k->ops->warp_count(k, b, w), ub = k->ops->warp_bound(k);
        if (cnt > ub) {
            fprintf(stderr, "fuzz: warp (%u,%u) counts %llu instructions, warp_bound says %llu\n",
                    b, w, (unsigned long long)cnt, (unsigned long long)ub);
            abort();
        }
    }
}

void fz_walk(struct trace_file *t, uint64_t budget)
{
    for (int i = 0; i < t->nkernels && budget; i++) {
        struct trace_kernel *k = t->kernels[i];
        uint64_t nb = tr_grid_blocks(&k->launch);
        uint32_t nw = tr_warps_per_block(&k->launch);
        if (!nb || !nw)
            continue;
        /* the total against a small limit: counting stops past it, and
         * whatever it says above the limit is exact or a lower bound */
        struct tr_total tt;
        uint64_t lim = 1 + budget % 4096;
        int above = tr_kernel_insts_total(k, lim, 0, &tt);
        if ((above && tt.n <= lim) || (!above && tt.kind != TR_TOTAL_UPPER && tt.n > lim &&
                                       tt.kind == TR_TOTAL_EXACT)) {
            fprintf(stderr, "fuzz: kernel %d: total %llu (kind %d) against limit %llu: %d\n", i,
                    (unsigned long long)tt.n, tt.kind, (unsigned long long)lim, above);
            abort();
        }
        uint64_t blocks[4] = {0, 1, nb / 2, nb - 1};
        for (int bi = 0; bi < 4 && budget; bi++) {
            if (blocks[bi] >= nb || (bi && blocks[bi] <= blocks[bi - 1]) || blocks[bi] > UINT32_MAX)
                continue;
            uint32_t warps[5] = {0, 1, 2, 3, nw - 1};
            for (int wi = 0; wi < 5 && budget; wi++) {
                if (warps[wi] >= nw || (wi && warps[wi] <= warps[wi - 1]))
                    continue;
                walk_warp(k, (uint32_t)blocks[bi], warps[wi], &budget);
            }
        }
    }
}
