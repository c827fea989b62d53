/* test_occ_h200.c — replay what the CUDA runtime answered on a real H200
 * (validate/data/h200/occupancy.csv, written by validate/occupancy/run.sh:
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor for ~5,000 launches) through
 * occ_compute() with configs/h200.yaml; every row must agree.
 *
 * The replay itself is first run on two hand-made files in tests/data/ (one
 * right, one with known wrong rows) and on malformed input, so the code path
 * is exercised, and shown able to fail, even before the GPU data exists.
 * Without the H200 file the test exits 77 (skipped) after those checks.
 *
 * usage: test_occ_h200 [OCCUPANCY.csv]   (default: the committed H200 data)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "occ/occ.h"

#define H200_CSV SMSIM_SOURCE_DIR "/validate/data/h200/occupancy.csv"
#define H200_YAML SMSIM_SOURCE_DIR "/configs/h200.yaml"
#define SAMPLE_OK SMSIM_SOURCE_DIR "/tests/data/occ_replay_ok.csv"
#define SAMPLE_BAD SMSIM_SOURCE_DIR "/tests/data/occ_replay_bad.csv"

static const char header[] = "kernel,threads,regs,smem_static,smem_dynamic,max_dynamic,"
                             "carveout_pct,barriers,blocks_per_sm";

struct replay {
    long rows;       /* data rows compared                                   */
    long mismatches; /* rows where smsim and the file disagree               */
    char err[256];   /* parse error "file:line: message", or ""              */
};

/* Strict integer field: the whole field, in range. */
static int field_int(const char *s, long lo, long hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

/* Replay one CSV stream.  Returns 0, or -1 on malformed input (r->err). */
static int replay(FILE *f, const char *name, const struct arch *a, struct replay *r)
{
    char line[512];
    long lineno = 0;
    memset(r, 0, sizeof *r);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n')
            line[--n] = '\0';
        if (n && line[n - 1] == '\r')
            line[--n] = '\0';
        if (lineno == 1) {
            if (strcmp(line, header) != 0) {
                snprintf(r->err, sizeof r->err, "%s:1: unexpected header", name);
                return -1;
            }
            continue;
        }
        if (n == 0)
            continue;
        char *fld[9];
        int nf = 0;
        char *save = NULL;
        /* no empty fields in this format, so strtok_r is enough */
        for (char *t = strtok_r(line, ",", &save); t && nf < 10; t = strtok_r(NULL, ",", &save))
            if (nf < 9)
                fld[nf++] = t;
            else
                nf = 10;
        if (nf != 9) {
            snprintf(r->err, sizeof r->err, "%s:%ld: expected 9 fields", name, lineno);
            return -1;
        }
        struct occ_launch l;
        int want;
        memset(&l, 0, sizeof l);
        if (field_int(fld[1], 1, INT_MAX, &l.threads) || field_int(fld[2], 0, 1024, &l.regs) ||
            field_int(fld[3], 0, INT_MAX / 4, &l.smem_static) ||
            field_int(fld[4], 0, INT_MAX / 4, &l.smem_dynamic) ||
            field_int(fld[5], 0, INT_MAX / 4, &l.max_dynamic) ||
            field_int(fld[6], -1, 100, &l.carveout_pct) ||
            field_int(fld[7], 0, 1024, &l.barriers) || field_int(fld[8], -1, 1024, &want)) {
            snprintf(r->err, sizeof r->err, "%s:%ld: bad number", name, lineno);
            return -1;
        }
        /* -1: the runtime refused the query; the launch cannot run. */
        if (want < 0)
            want = 0;
        struct occ_result res;
        occ_compute(a, &l, &res);
        r->rows++;
        if (res.blocks_per_sm != want) {
            if (r->mismatches < 10)
                print_message("%s:%ld: %s threads=%d regs=%d static=%d dynamic=%d "
                              "max_dynamic=%d carveout=%d barriers=%d: GPU %d, smsim %d (%s)\n",
                              name, lineno, fld[0], l.threads, l.regs, l.smem_static,
                              l.smem_dynamic, l.max_dynamic, l.carveout_pct, l.barriers, want,
                              res.blocks_per_sm, res.error ? res.detail : "ok");
            r->mismatches++;
        }
    }
    return 0;
}

/* H200 values: cudaGetDeviceProperties on the H200 (validate/data/h200/
 * device.txt) plus the CC 9.0 rules (granularity, carveouts, barrier
 * factor) from cuda_occupancy.h.  Used only while configs/h200.yaml does not
 * exist yet. */
static void h200_by_hand(struct arch *a)
{
    static const int carve[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "NVIDIA H200 (built in)");
    a->cc_major = 9;
    a->sm_count = 132;
    a->subpartitions = 4;
    a->warp_size = 32;
    a->max_warps_per_sm = 64;
    a->max_threads_per_sm = 2048;
    a->max_blocks_per_sm = 32;
    a->max_threads_per_block = 1024;
    a->regs_per_sm = 65536;
    a->regs_per_block = 65536;
    a->max_regs_per_thread = 255;
    a->reg_alloc_unit = 256;
    a->smem_per_sm = 233472;
    a->smem_per_block = 49152;
    a->smem_per_block_optin = 232448;
    a->smem_reserved_per_block = 1024;
    a->smem_alloc_granularity = 128;
    for (int i = 0; i < 10; i++)
        a->carveouts_kb[i] = carve[i];
    a->n_carveouts = 10;
    a->barriers_per_block = 16;
    a->barrier_multiplier = 2;
}

/* configs/h200.yaml when it exists (it must then load), else the values above. */
static void h200(struct arch *a)
{
    FILE *f = fopen(H200_YAML, "r");
    if (!f) {
        print_message("note: %s not found; using built-in H200 values\n", H200_YAML);
        h200_by_hand(a);
        return;
    }
    fclose(f);
    char err[ARCH_ERR_MAX];
    if (arch_load(H200_YAML, NULL, 0, a, err) != 0)
        fail_msg("%s", err);
}

static void replay_file(const char *path, const struct arch *a, struct replay *r)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    int rc = replay(f, path, a, r);
    fclose(f);
    if (rc)
        fail_msg("%s", r->err);
}

/* Hand-made rows, each computed by hand in the file's comments column... the
 * format has none, so they are listed here:
 *   32 thr, 8 regs, 12288 static           -> 17 (13312 B per block)
 *   96 thr, 255 regs                       -> 2  (8192 regs/warp, 2 per SMSP)
 *   1024 thr, 65 regs                      -> 0  (73728 registers per block)
 *   64 thr, 16 regs, 4 barriers            -> 16 (2 x 32 / 4)
 *   256 thr, 32 regs, 49152 dyn, 25 %      -> 1  (58368 -> 64 KB carveout)
 *   32 thr, 8 regs, 60000 dyn > max 49152  -> 0  (refused: -1 in the file)
 *   257 thr, 40 regs                       -> 5  (9 warps, 48 / 9)
 *   1 thr, 8 regs                          -> 32 (blocks)
 */
static void test_sample_ok(void **s)
{
    (void)s;
    struct arch a;
    struct replay r;
    h200_by_hand(&a);
    replay_file(SAMPLE_OK, &a, &r);
    assert_int_equal(r.rows, 8);
    assert_int_equal(r.mismatches, 0);
}

/* The same rows with three expected values changed: three mismatches. */
static void test_sample_bad_is_caught(void **s)
{
    (void)s;
    struct arch a;
    struct replay r;
    h200_by_hand(&a);
    replay_file(SAMPLE_BAD, &a, &r);
    assert_int_equal(r.rows, 8);
    assert_int_equal(r.mismatches, 3);
}

static void test_malformed_is_caught(void **s)
{
    (void)s;
    static const char *const bad[] = {
        "kernel,threads\nk,1\n",                                            /* header */
        "kernel,threads,regs,smem_static,smem_dynamic,max_dynamic,carveout_pct,barriers,"
        "blocks_per_sm\nk,32,8,0,0,0,-1,0\n",                               /* 8 fields */
        "kernel,threads,regs,smem_static,smem_dynamic,max_dynamic,carveout_pct,barriers,"
        "blocks_per_sm\nk,32x,8,0,0,0,-1,0,32\n",                           /* number */
        "kernel,threads,regs,smem_static,smem_dynamic,max_dynamic,carveout_pct,barriers,"
        "blocks_per_sm\nk,32,8,0,0,0,-1,0,32,7\n",                          /* 10 fields */
    };
    struct arch a;
    h200_by_hand(&a);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct replay r;
        FILE *f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
        assert_non_null(f);
        assert_int_equal(replay(f, "mem", &a, &r), -1);
        assert_true(r.err[0] != '\0');
        fclose(f);
    }
}

/* The configured H200 must agree with the built-in values on the sample. */
static void test_config_matches_sample(void **s)
{
    (void)s;
    struct arch a;
    struct replay r;
    h200(&a);
    replay_file(SAMPLE_OK, &a, &r);
    assert_int_equal(r.mismatches, 0);
}

static const char *gpu_csv = H200_CSV;

static void test_h200_replay(void **s)
{
    (void)s;
    struct arch a;
    struct replay r;
    h200(&a);
    replay_file(gpu_csv, &a, &r);
    print_message("%s: %ld launches replayed on %s, %ld mismatches\n", gpu_csv, r.rows, a.name,
                  r.mismatches);
    assert_true(r.rows >= 1000);
    assert_int_equal(r.mismatches, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest self[] = {
        cmocka_unit_test(test_sample_ok),
        cmocka_unit_test(test_sample_bad_is_caught),
        cmocka_unit_test(test_malformed_is_caught),
        cmocka_unit_test(test_config_matches_sample),
    };
    const struct CMUnitTest gpu[] = {
        cmocka_unit_test(test_h200_replay),
    };
    if (argc > 1)
        gpu_csv = argv[1];
    int rc = cmocka_run_group_tests_name("replay self-checks", self, NULL, NULL);
    if (rc)
        return rc;
    FILE *f = fopen(gpu_csv, "r");
    if (!f) {
        printf("SKIP: %s not found: run validate/occupancy/run.sh on the H200 and commit "
               "its occupancy.csv there\n", gpu_csv);
        return 77;
    }
    fclose(f);
    return cmocka_run_group_tests_name("H200 replay", gpu, NULL, NULL);
}
