/* test_occ_oracle.c — occ_compute() against the CUDA toolkit's own occupancy
 * calculator (cuda_occupancy.h, cudaOccMaxActiveBlocksPerMultiprocessor),
 * field by field, for every compute capability from 7.0 to 12.1 that the
 * header knows.  The header compiles as C; CMake defines
 * SMSIM_HAVE_CUDA_OCCUPANCY_H and adds its directory only when it finds it.
 * Without it the test exits 77 (skipped) and says why.
 *
 * The same device values go to both sides: into a cudaOccDeviceProp for the
 * header, into a struct arch for smsim.  Values the header hard-codes per
 * CC (allocation granularities, blocks per SM, carveouts, barrier factor)
 * are given to smsim through struct arch, as a config file would.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "occ/occ.h"

#ifdef SMSIM_HAVE_CUDA_OCCUPANCY_H
#include <cuda_occupancy.h>

/* Per-CC device values.  Sources:
 *  - warps/SM, blocks/SM, shared memory per SM and per block (opt-in),
 *    registers, threads per block: CUDA C++ Programming Guide (CUDA 13.0),
 *    "Compute Capabilities", table "Technical Specifications per Compute
 *    Capability" (opt-in per block = per-SM capacity - 1 KB reserve on 8.0+);
 *  - legal carveouts: the same guide's per-architecture "Shared Memory"
 *    sections (e.g. 9.0: 0, 8, 16, 32, 64, 100, 132, 164, 196, 228 KB);
 *  - reserved shared memory per block (1 KB from 8.0): cudaDeviceProp::
 *    reservedSharedMemPerBlock as documented in the guide;
 *  - allocation granularities, sub-partitions and barrier factor: not in the
 *    guide; the values cuda_occupancy.h uses (the thing under test mirrors
 *    them through struct arch).
 * 10.1 and 11.0 (Thor, renamed 10.1 -> 11.0 in CUDA 13) and 12.1 (GB10) are
 * included because the header handles them; their table values are the
 * guide's as best known and serve as consistent inputs to both sides. */
struct cc_row {
    int major, minor;
    const char *example;
    int warps_per_sm, blocks_per_sm;
    int smem_per_sm, smem_optin, reserved, granularity;
    int barrier_mult; /* 0 before 9.0: the header has no barrier limit there */
    int n_carve;
    int carve_kb[ARCH_MAX_CARVEOUTS];
};

#define CARVE_V100 6, {0, 8, 16, 32, 64, 96}
#define CARVE_T4 2, {32, 64}
#define CARVE_A100 8, {0, 8, 16, 32, 64, 100, 132, 164}
#define CARVE_GA10X 6, {0, 8, 16, 32, 64, 100}
#define CARVE_H100 10, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}

static const struct cc_row ccs[] = {
    {7, 0, "V100", 64, 32, 98304, 98304, 0, 256, 0, CARVE_V100},
    {7, 5, "T4", 32, 16, 65536, 65536, 0, 256, 0, CARVE_T4},
    {8, 0, "A100", 64, 32, 167936, 166912, 1024, 128, 0, CARVE_A100},
    {8, 6, "RTX 3090", 48, 16, 102400, 101376, 1024, 128, 0, CARVE_GA10X},
    {8, 7, "Orin", 48, 16, 167936, 166912, 1024, 128, 0, CARVE_A100},
    {8, 9, "RTX 4090", 48, 24, 102400, 101376, 1024, 128, 0, CARVE_GA10X},
    {9, 0, "H100/H200", 64, 32, 233472, 232448, 1024, 128, 2, CARVE_H100},
    {10, 0, "B200", 64, 32, 233472, 232448, 1024, 128, 2, CARVE_H100},
    {10, 1, "Thor (old CC)", 48, 24, 233472, 232448, 1024, 128, 1, CARVE_H100},
    {10, 3, "B300", 64, 32, 233472, 232448, 1024, 128, 2, CARVE_H100},
    {11, 0, "Thor", 48, 24, 233472, 232448, 1024, 128, 1, CARVE_H100},
    {12, 0, "RTX 5090", 48, 24, 102400, 101376, 1024, 128, 1, CARVE_GA10X},
    {12, 1, "GB10", 48, 24, 102400, 101376, 1024, 128, 1, CARVE_GA10X},
};
enum { N_CC = sizeof ccs / sizeof ccs[0], RANDOM_PER_CC = 20000 };

static void make_props(const struct cc_row *c, cudaOccDeviceProp *p, struct arch *a)
{
    memset(p, 0, sizeof *p);
    p->computeMajor = c->major;
    p->computeMinor = c->minor;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsPerMultiprocessor = c->warps_per_sm * 32;
    p->regsPerBlock = 65536;
    p->regsPerMultiprocessor = 65536;
    p->warpSize = 32;
    p->sharedMemPerBlock = 49152;
    p->sharedMemPerMultiprocessor = (size_t)c->smem_per_sm;
    p->numSms = 100;
    p->sharedMemPerBlockOptin = (size_t)c->smem_optin;
    p->reservedSharedMemPerBlock = (size_t)c->reserved;

    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", c->example);
    a->cc_major = c->major;
    a->cc_minor = c->minor;
    a->sm_count = 100;
    a->subpartitions = 4;
    a->warp_size = 32;
    a->max_warps_per_sm = c->warps_per_sm;
    a->max_threads_per_sm = c->warps_per_sm * 32;
    a->max_blocks_per_sm = c->blocks_per_sm;
    a->max_threads_per_block = 1024;
    a->regs_per_sm = 65536;
    a->regs_per_block = 65536;
    a->max_regs_per_thread = 255; /* the guide's figure; see occ.c */
    a->reg_alloc_unit = 256;
    a->smem_per_sm = c->smem_per_sm;
    a->smem_per_block = 49152;
    a->smem_per_block_optin = c->smem_optin;
    a->smem_reserved_per_block = c->reserved;
    a->smem_alloc_granularity = c->granularity;
    for (int i = 0; i < c->n_carve; i++)
        a->carveouts_kb[i] = c->carve_kb[i];
    a->n_carveouts = c->n_carve;
    a->barriers_per_block = 16;
    a->barrier_multiplier = c->barrier_mult;
}

/* splitmix64: deterministic, no global state. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int uniform(uint64_t *s, int lo, int hi) /* inclusive */
{
    return lo + (int)(next(s) % (uint64_t)(hi - lo + 1));
}

/* A shared-memory size: often 0, often small, sometimes past the opt-in. */
static int smem_size(uint64_t *s, int optin)
{
    switch (uniform(s, 0, 5)) {
    case 0: return 0;
    case 1: return uniform(s, 0, 4096);
    case 2: return uniform(s, 0, 49152 + 2048);
    case 3: return uniform(s, 0, optin + 4096);
    case 4: return 1024 * uniform(s, 0, optin / 1024 + 2);
    default: return uniform(s, 0, optin / 2);
    }
}

struct tally {
    long compared;
    long mismatches;
    long valid; /* launches with blocks > 0 */
    int quiet;  /* 1: do not print mismatches (the self-check below) */
};

/* Run both, compare every field; print the first few differences. */
static void compare_one(const cudaOccDeviceProp *p, const struct arch *a,
                        const struct occ_launch *l, struct tally *t)
{
    cudaOccFuncAttributes fa;
    cudaOccDeviceState st;
    cudaOccResult hr;
    struct occ_result sr;

    memset(&fa, 0, sizeof fa);
    memset(&st, 0, sizeof st);
    memset(&hr, 0, sizeof hr);
    fa.maxThreadsPerBlock = 1024;
    fa.numRegs = l->regs;
    fa.sharedSizeBytes = (size_t)l->smem_static;
    fa.partitionedGCConfig = PARTITIONED_GC_OFF;
    fa.shmemLimitConfig = l->smem_no_optin ? FUNC_SHMEM_LIMIT_DEFAULT : FUNC_SHMEM_LIMIT_OPTIN;
    fa.maxDynamicSharedSizeBytes =
        (size_t)(l->max_dynamic < 0 ? l->smem_dynamic : l->max_dynamic);
    fa.numBlockBarriers = l->barriers;
    fa.virtualResourceCount = 0;
    st.cacheConfig = CACHE_PREFER_NONE;
    st.carveoutConfig = l->carveout_pct;

    cudaOccError he = cudaOccMaxActiveBlocksPerMultiprocessor(&hr, p, &fa, &st, l->threads,
                                                              (size_t)l->smem_dynamic);
    int sret = occ_compute(a, l, &sr);
    t->compared++;

    int bad = 0;
    if (he != CUDA_OCC_SUCCESS) {
        bad = !(sret == -1 && sr.blocks_per_sm == 0 && sr.error);
    } else {
        bad |= hr.activeBlocksPerMultiprocessor != sr.blocks_per_sm;
        bad |= hr.limitingFactors != sr.limiters;
        bad |= hr.blockLimitRegs != sr.limit_registers;
        bad |= hr.blockLimitSharedMem != sr.limit_shared_mem;
        bad |= hr.blockLimitWarps != sr.limit_warps;
        bad |= hr.blockLimitBlocks != sr.limit_blocks;
        bad |= hr.blockLimitBarriers != sr.limit_barriers;
        bad |= hr.allocatedRegistersPerBlock != sr.regs_per_block_alloc;
        bad |= hr.allocatedSharedMemPerBlock != (size_t)sr.smem_per_block_alloc;
        /* smsim's own contract: -1 exactly when no block fits, with a reason */
        bad |= (sret == -1) != (sr.blocks_per_sm == 0);
        bad |= (sr.blocks_per_sm == 0) != (sr.error != NULL);
        if (sr.blocks_per_sm > 0)
            t->valid++;
    }
    if (bad) {
        if (!t->quiet && t->mismatches < 10)
            print_message("MISMATCH cc %d.%d threads=%d regs=%d static=%d dyn=%d maxdyn=%d "
                          "no_optin=%d carveout=%d barriers=%d: header status %d blocks %d "
                          "flags %#x R%d S%d W%d B%d X%d | smsim ret %d blocks %d flags %#x "
                          "R%d S%d W%d B%d X%d (%s)\n",
                          p->computeMajor, p->computeMinor, l->threads, l->regs,
                          l->smem_static, l->smem_dynamic, l->max_dynamic, l->smem_no_optin,
                          l->carveout_pct, l->barriers, (int)he,
                          hr.activeBlocksPerMultiprocessor, hr.limitingFactors,
                          hr.blockLimitRegs, hr.blockLimitSharedMem, hr.blockLimitWarps,
                          hr.blockLimitBlocks, hr.blockLimitBarriers, sret, sr.blocks_per_sm,
                          sr.limiters, sr.limit_registers, sr.limit_shared_mem,
                          sr.limit_warps, sr.limit_blocks, sr.limit_barriers,
                          sr.error ? sr.detail : "-");
        t->mismatches++;
    }
}

static void run_cc(const struct cc_row *c)
{
    cudaOccDeviceProp p;
    struct arch a;
    struct tally t = {0, 0, 0, 0};
    uint64_t seed = 0x5eed0000ull + (uint64_t)(c->major * 10 + c->minor);

    make_props(c, &p, &a);

    /* 1. Deterministic pseudo-random launches over the whole input space. */
    for (int i = 0; i < RANDOM_PER_CC; i++) {
        struct occ_launch l;
        memset(&l, 0, sizeof l);
        switch (uniform(&seed, 0, 3)) {
        case 0: l.threads = 32 * uniform(&seed, 1, 32); break;
        case 1: l.threads = 32 * uniform(&seed, 1, 32) + uniform(&seed, -1, 1); break;
        case 2: l.threads = uniform(&seed, 1, 1024); break;
        default: l.threads = uniform(&seed, 1, 1100); break; /* some too large */
        }
        if (l.threads < 1)
            l.threads = 1;
        l.regs = uniform(&seed, 0, 3) ? uniform(&seed, 1, 256) : uniform(&seed, 0, 260);
        l.smem_static = uniform(&seed, 0, 1) ? 0 : smem_size(&seed, c->smem_optin);
        l.smem_dynamic = uniform(&seed, 0, 2) ? smem_size(&seed, c->smem_optin) : 0;
        l.smem_no_optin = uniform(&seed, 0, 3) == 0;
        switch (uniform(&seed, 0, 3)) {
        case 0: l.max_dynamic = -1; break;
        case 1: l.max_dynamic = l.smem_dynamic; break;
        case 2: l.max_dynamic = c->smem_optin - l.smem_static > 0
                                    ? c->smem_optin - l.smem_static : 0; break;
        default: l.max_dynamic = smem_size(&seed, c->smem_optin); break;
        }
        l.carveout_pct = uniform(&seed, 0, 2) ? -1 : uniform(&seed, 0, 100);
        l.barriers = uniform(&seed, 0, 1) ? uniform(&seed, 0, 16) : uniform(&seed, 0, 2);
        compare_one(&p, &a, &l, &t);
    }

    /* 2. Exhaustive: every block size 1..1056 x registers 0..258, no shared
     * memory, default carveout, one barrier (what a real kernel reports). */
    for (int th = 1; th <= 1056; th++)
        for (int rg = 0; rg <= 258; rg++) {
            struct occ_launch l = {.threads = th, .regs = rg, .max_dynamic = -1,
                                   .carveout_pct = -1, .barriers = 1};
            compare_one(&p, &a, &l, &t);
        }

    /* 3. Exhaustive shared memory: every 128 B step of dynamic size up to
     * past the opt-in, x every carveout preference step of 5 %. */
    for (int dyn = 0; dyn <= c->smem_optin + 1024; dyn += 128)
        for (int pct = -1; pct <= 100; pct += (pct < 0 ? 1 : 5)) {
            struct occ_launch l = {.threads = 128, .regs = 32, .smem_static = 0,
                                   .smem_dynamic = dyn, .max_dynamic = -1,
                                   .carveout_pct = pct, .barriers = 1};
            compare_one(&p, &a, &l, &t);
        }

    /* 4. Hypothetical devices: the header reads these from the device
     * properties, so smsim must follow struct arch for them too (fewer
     * registers per block than per SM makes the sub-partition rounding of
     * the per-block check visible; other warp, thread and shared-memory
     * limits). */
    for (int v = 0; v < 8; v++) {
        cudaOccDeviceProp hp = p;
        struct arch ha = a;
        hp.regsPerBlock = ha.regs_per_block = (v & 1) ? 32768 : 65536;
        hp.regsPerMultiprocessor = ha.regs_per_sm = (v & 2) ? 98304 : 65536;
        int warps = (v & 4) ? 40 : 24;
        hp.maxThreadsPerMultiprocessor = ha.max_threads_per_sm = warps * 32;
        ha.max_warps_per_sm = warps;
        hp.maxThreadsPerBlock = ha.max_threads_per_block = (v & 4) ? 768 : 1024;
        hp.sharedMemPerBlock = (size_t)(ha.smem_per_block = (v & 1) ? 16384 : 32768);
        for (int i = 0; i < 2000; i++) {
            struct occ_launch l;
            memset(&l, 0, sizeof l);
            l.threads = uniform(&seed, 1, 1100);
            l.regs = uniform(&seed, 0, 257);
            l.smem_static = uniform(&seed, 0, 1) ? 0 : smem_size(&seed, c->smem_optin);
            l.smem_dynamic = smem_size(&seed, c->smem_optin);
            l.smem_no_optin = uniform(&seed, 0, 3) == 0;
            l.max_dynamic = uniform(&seed, 0, 1) ? -1 : smem_size(&seed, c->smem_optin);
            l.carveout_pct = uniform(&seed, 0, 1) ? -1 : uniform(&seed, 0, 100);
            l.barriers = uniform(&seed, 0, 16);
            compare_one(&hp, &ha, &l, &t);
        }
    }

    print_message("cc %d.%d (%s): %ld launches compared (%ld runnable), %ld mismatches\n",
                  c->major, c->minor, c->example, t.compared, t.valid, t.mismatches);
    assert_true(t.compared >= 5000);
    assert_true(t.valid > t.compared / 10); /* the sample is not all failures */
    assert_int_equal(t.mismatches, 0);
}

static void test_oracle_all(void **state)
{
    (void)state;
    for (int i = 0; i < N_CC; i++)
        run_cc(&ccs[i]);
}

/* The comparison can fail: a deliberately wrong arch must produce
 * mismatches (guards against a harness that compares nothing). */
static void test_oracle_detects_difference(void **state)
{
    (void)state;
    cudaOccDeviceProp p;
    struct arch a;
    struct tally t = {0, 0, 0, 1};
    make_props(&ccs[6], &p, &a);
    a.max_blocks_per_sm = 31;
    for (int th = 32; th <= 64; th += 32) {
        struct occ_launch l = {.threads = th, .regs = 8, .max_dynamic = -1,
                               .carveout_pct = -1};
        compare_one(&p, &a, &l, &t);
    }
    assert_int_equal(t.compared, 2);
    assert_int_equal(t.mismatches, 2);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every shipped configs/NAME.yaml: the header, fed the config's device values,
 * applies its own per-CC constants (granularities, blocks per SM, carveouts,
 * barrier factor); smsim uses the config's.  Agreement shows the config
 * carries the right constants for its compute capability. */
static void test_shipped_configs(void **state)
{
    (void)state;
    const char *dir = SMSIM_SOURCE_DIR "/configs";
    DIR *d = opendir(dir);
    char *names[64];
    int n = 0;
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL && n < 64;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml"))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        char path[512], err[ARCH_ERR_MAX];
        struct arch a;
        cudaOccDeviceProp p;
        struct tally t = {0, 0, 0, 0};
        uint64_t seed = 0xc0ff1e00ull + (uint64_t)i;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (arch_load(path, NULL, 0, &a, err) != 0)
            fail_msg("%s", err);
        memset(&p, 0, sizeof p);
        p.computeMajor = a.cc_major;
        p.computeMinor = a.cc_minor;
        p.maxThreadsPerBlock = a.max_threads_per_block;
        p.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
        p.regsPerBlock = a.regs_per_block;
        p.regsPerMultiprocessor = a.regs_per_sm;
        p.warpSize = a.warp_size;
        p.sharedMemPerBlock = (size_t)a.smem_per_block;
        p.sharedMemPerMultiprocessor = (size_t)a.smem_per_sm;
        p.numSms = a.sm_count;
        p.sharedMemPerBlockOptin = (size_t)a.smem_per_block_optin;
        p.reservedSharedMemPerBlock = (size_t)a.smem_reserved_per_block;
        {
            /* a hypothetical GPU (a CC the header does not know) has no oracle */
            cudaOccFuncAttributes fa;
            cudaOccDeviceState st;
            cudaOccResult hr;
            memset(&fa, 0, sizeof fa);
            memset(&st, 0, sizeof st);
            fa.maxThreadsPerBlock = 1024;
            st.carveoutConfig = -1;
            if (cudaOccMaxActiveBlocksPerMultiprocessor(&hr, &p, &fa, &st, 32, 0) ==
                CUDA_OCC_ERROR_UNKNOWN_DEVICE) {
                print_message("configs/%s: CC %d.%d unknown to cuda_occupancy.h, not compared\n",
                              names[i], a.cc_major, a.cc_minor);
                free(names[i]);
                continue;
            }
        }
        for (int k = 0; k < 5000; k++) {
            struct occ_launch l;
            memset(&l, 0, sizeof l);
            l.threads = uniform(&seed, 1, 1100);
            l.regs = uniform(&seed, 0, 256);
            l.smem_static = uniform(&seed, 0, 1) ? 0 : smem_size(&seed, a.smem_per_block_optin);
            l.smem_dynamic = smem_size(&seed, a.smem_per_block_optin);
            l.max_dynamic = uniform(&seed, 0, 1) ? -1 : smem_size(&seed, a.smem_per_block_optin);
            l.carveout_pct = uniform(&seed, 0, 1) ? -1 : uniform(&seed, 0, 100);
            l.barriers = uniform(&seed, 0, 16);
            compare_one(&p, &a, &l, &t);
        }
        print_message("configs/%s (CC %d.%d): %ld launches compared, %ld mismatches\n",
                      names[i], a.cc_major, a.cc_minor, t.compared, t.mismatches);
        free(names[i]);
        assert_int_equal(t.mismatches, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_detects_difference),
        cmocka_unit_test(test_oracle_all),
        cmocka_unit_test(test_shipped_configs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* !SMSIM_HAVE_CUDA_OCCUPANCY_H */

int main(void)
{
    printf("SKIP: cuda_occupancy.h (CUDA toolkit) not found at configure time; "
           "set CUDAToolkit_ROOT or CUDA_PATH and re-run cmake to run the oracle test\n");
    return 77;
}

#endif
