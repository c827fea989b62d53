/* fuzz_util.c — helpers shared by the fuzz harnesses (see fuzz_util.h).
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "arch/arch.h"
#include "fuzz_util.h"

const char *fz_write_file(const char *name, const uint8_t *data, size_t size,
                          char *path, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    char dir[256];
    snprintf(dir, sizeof dir, "%s/smsim-fuzz-%ld", tmp, (long)getpid());
    if (mkdir(dir, 0700) && errno != EEXIST) {
        perror(dir);
        abort();
    }
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp)) {
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
}

void fz_walk(struct trace_file *t, uint64_t budget)
{
    for (int i = 0; i < t->nkernels && budget; i++) {
        struct trace_kernel *k = t->kernels[i];
        uint64_t nb = tr_grid_blocks(&k->launch);
        uint32_t nw = tr_warps_per_block(&k->launch);
        if (!nb || !nw)
            continue;
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
