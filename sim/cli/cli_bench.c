/* cli_bench.c — `smsim bench`: how fast the simulator runs.
 *
 * Fixed workloads, generated as native-format text (docs/trace-format.md)
 * with a trip count, written to a temporary file and read back by the normal
 * reader: full-GPU runs of a streaming copy, FFMA chains at ILP 1 and 4, a
 * DRAM pointer chase and a GEMM-like shared-memory tile; and one run from an
 * Accel-Sim trace (the native workload exported with the code of `smsim
 * export --accelsim` into a temporary folder, deleted after the run), whose
 * time includes reading and parsing the text.  Each is simulated
 * on the configuration (default configs/h100.yaml) and reported with
 * warp-instructions per second, simulated cycles per second and the peak
 * resident set; the last line is the median workload's
 * warp_instructions_per_second.  docs/performance.md has the results.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "arch/arch.h"
#include "cli/cli.h"
#include "convert/conv_accelsim.h"
#include "engine/engine.h"
#include "stats/stats.h"
#include "study/study.h"
#include "trace/trace.h"

static const char bench_help[] =
    "usage: smsim bench [--config CFG.yaml] [--quick] [--threads N] [--repeat N]\n"
    "                   [--scale K] [--only NAME]\n"
    "  time the simulator on fixed full-GPU workloads; one line per workload, then\n"
    "  'warp_instructions_per_second: N' (the median workload)\n"
    "\n"
    "  --config FILE   GPU configuration (default configs/h100.yaml)\n"
    "  --quick         small trip counts (seconds in total; for tests)\n"
    "  --threads N     simulate the SMs on N threads (default 1)\n"
    "  --repeat N      run each workload N times, report the fastest (default 1)\n"
    "  --scale K       multiply every trip count by K (default 1)\n"
    "  --only NAME     run one workload: stream_copy, ffma_ilp1, ffma_ilp4,\n"
    "                  dram_chain, gemm_tile, accelsim\n"
    "  --max-insts N   refuse a workload of more than N warp-instructions (default\n"
    "                  10^11, as every subcommand that simulates; 0 = no limit)\n";

/* One workload: writes its kernel with `trips` outer trips to f. */
struct bench_wl {
    const char *name;                 /* workload name                          */
    void (*gen)(FILE *f, long trips); /* native-format text of the kernel       */
    long trips;                       /* outer trips of a full run              */
    long quick;                       /* outer trips with --quick               */
    int accelsim;                     /* 1: run from its Accel-Sim export       */
};

/* Grid-stride float4 copy (as traces/copy_float4.trace): 64 warps per SM,
 * two waves, DRAM-bandwidth bound. */
static void gen_copy(FILE *f, long trips)
{
    fprintf(f,
            "kernel stream_copy grid=(2112,1,1) block=(256,1,1) regs=16 smem_static=0 "
            "smem_dynamic=0 {\n"
            "  S2R R0, SR_CTAID.X\n"
            "  S2R R3, SR_TID.X\n"
            "  IMAD R0, R0, UR4, R3\n"
            "  loop %ld {\n"
            "    IMAD.WIDE R4, R0, 0x10, R8\n"
            "    LDG.E.128.CONSTANT R12, desc[UR6][R4.64] footprint=1G\n"
            "    IMAD.WIDE R2, R0, 0x10, R6\n"
            "    IADD3 R0, R0, UR4, RZ\n"
            "    ISETP.GE.AND P0, PT, R0, UR8, PT\n"
            "    STG.E.128 desc[UR6][R2.64], R12 footprint=1G\n"
            "    @!P0 BRA 0xd0\n"
            "  }\n"
            "  EXIT\n"
            "}\n",
            trips);
}

/* FFMA chains, 16 warps per SM; `ilp` independent chains interleaved. */
static void gen_ffma(FILE *f, long trips, int ilp)
{
    fprintf(f,
            "kernel ffma_ilp%d grid=(528,1,1) block=(128,1,1) regs=16 smem_static=0 "
            "smem_dynamic=0 {\n"
            "  S2R R3, SR_TID.X\n"
            "  I2FP.F32.S32 R0, R3\n"
            "  loop %ld {\n",
            ilp, trips);
    static const int chain[4] = {0, 5, 6, 7};
    for (int i = 0; i < 16; i++) {
        int r = chain[i % ilp];
        fprintf(f, "    FFMA R%d, R%d, R9, R10\n", r, r);
    }
    fprintf(f, "    VIADD R8, R8, 0x10\n"
               "    ISETP.NE.AND P0, PT, R8, 0x2000, PT\n"
               "    @P0 BRA 0x120\n"
               "  }\n"
               "  STG.E desc[UR6][R4.64], R0 footprint=264K\n"
               "  EXIT\n"
               "}\n");
}

static void gen_ffma1(FILE *f, long trips)
{
    gen_ffma(f, trips, 1);
}

static void gen_ffma4(FILE *f, long trips)
{
    gen_ffma(f, trips, 4);
}

/* Dependent random 8-byte loads over 1 GiB (as traces/load_chain.trace) at
 * full occupancy: DRAM latency and bandwidth bound. */
static void gen_chain(FILE *f, long trips)
{
    fprintf(f,
            "kernel dram_chain grid=(2112,1,1) block=(256,1,1) regs=24 smem_static=0 "
            "smem_dynamic=0 {\n"
            "  S2R R3, SR_TID.X\n"
            "  IMAD.WIDE.U32 R26, R3, 0x8, R26\n"
            "  loop %ld {\n"
            "    LDG.E.64 R26, desc[UR6][R26.64] pattern=random footprint=1G\n"
            "    VIADD R22, R22, 0xffffffff\n"
            "    LOP3.LUT R3, R26, UR4, RZ, 0x3c, !PT\n"
            "    UIADD3 UR4, UR4, 0x1, URZ\n"
            "    ISETP.NE.AND P0, PT, R22, RZ, PT\n"
            "    IMAD.IADD R16, R3, 0x1, R16\n"
            "    @P0 BRA 0x8a0\n"
            "  }\n"
            "  STG.E desc[UR6][R2.64], R16 footprint=16K\n"
            "  EXIT\n"
            "}\n",
            trips);
}

/* Register-blocked SGEMM tile (as traces/gemm_tile.trace): one 8-warp block
 * per SM, global prefetch, shared-memory staging with barriers, 4 LDS.128
 * feeding 64 independent FFMAs per k step. */
static void gen_gemm(FILE *f, long trips)
{
    fprintf(f,
            "kernel gemm_tile grid=(16,16,1) block=(256,1,1) regs=168 smem_static=32768 "
            "smem_dynamic=0 {\n"
            "  S2R R97, SR_TID.X\n"
            "  LEA R95, R97, UR6, 0x4\n"
            "  loop %ld {\n"
            "    LDG.E.128 R80, desc[UR4][R88.64+0x40] footprint=16M\n"
            "    LDG.E.128 R84, desc[UR4][R90.64] footprint=16M\n"
            "    IADD3 R88, P0, R88, 0x40, RZ\n"
            "    IADD3.X R89, RZ, R89, RZ, P0, !PT\n"
            "    IMAD.WIDE R90, R92, 0x4, R90\n"
            "    loop 16 {\n"
            "      LDS.128 R64, [R93] pattern=broadcast\n"
            "      LDS.128 R68, [R93+0x100] pattern=broadcast\n"
            "      LDS.128 R72, [R94]\n"
            "      LDS.128 R76, [R94+0x100]\n",
            trips);
    for (int i = 0; i < 64; i++)
        fprintf(f, "      FFMA R%d, R%d, R%d, R%d\n", 100 + i, 64 + i / 8, 72 + i % 8, 100 + i);
    fprintf(f, "    }\n"
               "    BAR.SYNC.DEFER_BLOCKING 0x0\n"
               "    STS.128 [R95], R80\n"
               "    STS.128 [R95+0x2000], R84\n"
               "    BAR.SYNC.DEFER_BLOCKING 0x0\n"
               "  }\n"
               "  STG.E desc[UR4][R2.64], R100 footprint=16M\n"
               "  EXIT\n"
               "}\n");
}

/* The Accel-Sim workload (as tests/bench/accelsim_rss.sh): 16 blocks of 4
 * warps per SM; per trip a coalesced LDG.128 and STG.128 (address mode 1
 * lines) and a random 4-byte load (mode 2: a base and 31 deltas), about 80
 * bytes of text per warp-instruction. */
static void gen_accel(FILE *f, long trips)
{
    fprintf(f,
            "kernel accelsim grid=(2112,1,1) block=(128,1,1) regs=32 {\n"
            "  S2R R0, SR_TID.X\n"
            "  LDC.64 R6, c[0x0][0x218]\n"
            "  LDC.64 R8, c[0x0][0x210]\n"
            "  loop %ld {\n"
            "    IMAD.WIDE R4, R0, 0x10, R8\n"
            "    LDG.E.128 R12, [R4.64]\n"
            "    IMAD.WIDE R2, R0, 0x10, R6\n"
            "    FFMA R12, R12, R12, R13\n"
            "    IADD3 R0, R0, 0x1000, RZ\n"
            "    STG.E.128 [R2.64], R12\n"
            "    LDG.E R16, [R4.64] pattern=random\n"
            "    BRA 0x40\n"
            "  }\n"
            "  EXIT\n"
            "}\n",
            trips);
}

static const struct bench_wl workloads[] = {
    {"stream_copy", gen_copy, 250, 5, 0},
    {"ffma_ilp1", gen_ffma1, 750, 15, 0},
    {"ffma_ilp4", gen_ffma4, 750, 15, 0},
    {"dram_chain", gen_chain, 250, 5, 0},
    {"gemm_tile", gen_gemm, 13, 1, 0},
    {"accelsim", gen_accel, 32, 1, 1},
};
enum { BENCH_NWL = sizeof workloads / sizeof workloads[0] };

struct bench_args {
    const char *config;  /* --config                                   */
    int quick;           /* --quick                                    */
    int threads;         /* --threads                                  */
    int repeat;          /* --repeat                                   */
    int scale;           /* --scale                                    */
    const char *only;    /* --only, or NULL                            */
    uint64_t max_insts;  /* the instruction limit (study_insts_limit)  */
};

/* 0, 1 after a one-line message, 3 = help printed. */
static int parse_args(int argc, char **argv, struct bench_args *b)
{
    b->config = "configs/h100.yaml";
    b->quick = 0;
    b->threads = 1;
    b->repeat = 1;
    b->scale = 1;
    b->only = NULL;
    b->max_insts = study_insts_limit(0, 0, 0);
    static const char *const known[] = {"--config", "--threads", "--repeat", "--scale",
                                        "--only", "--max-insts", NULL};
    static const char *const flags[] = { "--quick", NULL };
    struct cli_opts st = { .argc = argc, .argv = argv, .i = 1, .tag = "bench: ",
                           .help = "smsim bench --help", .known = known, .flags = flags,
                           .no_args = 1 };
    const char *name, *val;
    int kind;
    while ((kind = cli_opt_next(&st, &name, &val)) != CLI_OPT_END) {
        if (kind == CLI_OPT_ERROR)
            return 1;
        if (kind == CLI_OPT_HELP) {
            fputs(bench_help, stdout);
            return 3;
        }
        if (kind == CLI_OPT_FLAG) {
            b->quick = 1;
            continue;
        }
        if (!strcmp(name, "--config")) {
            b->config = val;
        } else if (!strcmp(name, "--threads")) {
            if (cli_parse_int(name, val, 1, 1024, &b->threads))
                return 1;
        } else if (!strcmp(name, "--repeat")) {
            if (cli_parse_int(name, val, 1, 1000, &b->repeat))
                return 1;
        } else if (!strcmp(name, "--max-insts")) {
            if (cli_parse_u64(name, val, 0, UINT64_MAX, &b->max_insts))
                return 1;
        } else if (!strcmp(name, "--scale")) {
            if (cli_parse_int(name, val, 1, 100000, &b->scale))
                return 1;
        } else {
            int w = 0;
            while (w < BENCH_NWL && strcmp(workloads[w].name, val))
                w++;
            if (w == BENCH_NWL) {
                fprintf(stderr, "smsim: bench: --only '%s': unknown workload\n", val);
                return 1;
            }
            b->only = val;
        }
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_maxrss; /* kilobytes on Linux */
}

/* One workload's measurements. */
struct bench_res {
    uint64_t insts;   /* warp-instructions simulated */
    uint64_t cycles;  /* simulated cycles            */
    double seconds;   /* fastest engine_run          */
    long rss_kb;      /* peak RSS after it ran       */
};

/* Replace *tf by its Accel-Sim export, written into a temporary folder
 * next to `path` (the same code as `smsim export --accelsim`).  The list is
 * removed once read; the kernel file, which the reader opens as the engine
 * runs, by export_remove after trace_close.  0, or -1 with a message in
 * err (nothing left behind). */
static int export_reopen(struct trace_file **tf, const char *path, char err[TRACE_ERR_MAX])
{
    char dir[520], f1[560], f2[560]; /* path is at most 511 chars (run_one) */
    snprintf(dir, sizeof dir, "%.511s.d", path);
    struct conv_accelsim_opts eo = { .binary_version = 90, .seed = 1 };
    int rc = conv_accelsim_export(*tf, dir, &eo, err);
    trace_close(*tf);
    *tf = NULL;
    snprintf(f1, sizeof f1, "%s/kernelslist.g", dir);
    snprintf(f2, sizeof f2, "%s/kernel-1.traceg", dir);
    if (rc == 0)
        *tf = trace_open(f1, err);
    unlink(f1);
    if (!*tf) {
        unlink(f2);
        rmdir(dir);
        return -1;
    }
    return 0;
}

/* The folder and file export_reopen made for `path`, removed. */
static void export_remove(const char *path)
{
    char dir[520], f2[560];
    snprintf(dir, sizeof dir, "%.511s.d", path);
    snprintf(f2, sizeof f2, "%s/kernel-1.traceg", dir);
    unlink(f2);
    rmdir(dir);
}

/* Generate, open and simulate workload w.  0, or 1 after a one-line message. */
static int run_one(const struct bench_wl *w, long trips, const struct arch *a,
                   const struct bench_args *b, struct bench_res *res)
{
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/smsim-bench-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "smsim: bench: cannot create a temporary file in %s\n",
                dir && dir[0] ? dir : "/tmp");
        return 1;
    }
    w->gen(f, trips);
    int bad = ferror(f);
    if (fclose(f) || bad) {
        unlink(path);
        fprintf(stderr, "smsim: bench: cannot write a temporary file\n");
        return 1;
    }
    char terr[TRACE_ERR_MAX];
    struct trace_file *tf = trace_open(path, terr);
    unlink(path);
    char msg[STUDY_ERR_MAX];
    if (tf && tf->nkernels == 1 &&
        study_insts_check(tf->kernels[0], b->max_insts, msg, sizeof msg)) {
        fprintf(stderr, "smsim: bench: workload %s: %s\n", w->name, msg);
        trace_close(tf);
        return 1;
    }
    if (tf && w->accelsim && export_reopen(&tf, path, terr)) {
        fprintf(stderr, "smsim: bench: workload %s: %s\n", w->name, terr);
        return 1;
    }
    if (!tf || tf->nkernels != 1) {
        fprintf(stderr, "smsim: bench: workload %s: %s\n", w->name,
                tf ? "expected one kernel" : terr);
        if (tf)
            trace_close(tf);
        if (tf && w->accelsim)
            export_remove(path);
        return 1;
    }
    memset(res, 0, sizeof *res);
    for (int rep = 0; rep < b->repeat; rep++) {
        struct engine_opts eo;
        memset(&eo, 0, sizeof eo);
        eo.seed = 1;
        eo.carveout_pct = -1;
        eo.threads = b->threads;
        struct stats_kernel st;
        char eerr[512];
        double t0 = now_s();
        if (engine_run(a, tf->kernels[0], &eo, &st, eerr)) {
            fprintf(stderr, "smsim: bench: workload %s: %s\n", w->name, eerr);
            trace_close(tf);
            if (w->accelsim)
                export_remove(path);
            return 1;
        }
        double dt = now_s() - t0;
        uint64_t insts = 0;
        for (int i = 0; i < st.sm_count * st.smsp_per_sm; i++)
            insts += st.smsp[i].inst_issued;
        if (rep == 0 || dt < res->seconds)
            res->seconds = dt;
        res->insts = insts;
        res->cycles = st.cycles_elapsed;
        stats_kernel_free(&st);
    }
    trace_close(tf);
    if (w->accelsim)
        export_remove(path);
    res->rss_kb = peak_rss_kb();
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int cli_bench(int argc, char **argv)
{
    struct bench_args b;
    int rc = parse_args(argc, argv, &b);
    if (rc)
        return rc == 3 ? 0 : rc;
    struct arch a;
    char found[4096];
    b.config = cli_find_config(b.config, found, sizeof found);
    if (cli_load_arch(b.config, NULL, 0, &a))
        return 1;

    /* Everything is measured first and printed at the end: an error leaves
     * stdout empty. */
    struct bench_res res[BENCH_NWL];
    double rate[BENCH_NWL];
    int ran[BENCH_NWL];
    int n = 0;
    for (int w = 0; w < BENCH_NWL; w++) {
        ran[w] = 0;
        if (b.only && strcmp(b.only, workloads[w].name))
            continue;
        long trips = (b.quick ? workloads[w].quick : workloads[w].trips) * (long)b.scale;
        if (run_one(&workloads[w], trips, &a, &b, &res[w]))
            return 1;
        ran[w] = 1;
        double s = res[w].seconds > 1e-9 ? res[w].seconds : 1e-9;
        rate[n++] = (double)res[w].insts / s;
    }

    printf("smsim bench: %s, %d thread%s, %s run%s\n", a.name, b.threads,
           b.threads == 1 ? "" : "s", b.quick ? "quick" : "full",
           b.repeat > 1 ? " (fastest of repeats)" : "");
    printf("%-12s %12s %12s %9s %14s %14s %12s\n", "workload", "warp_insts", "cycles",
           "seconds", "warp_insts/s", "cycles/s", "peak_rss_kb");
    for (int w = 0; w < BENCH_NWL; w++) {
        if (!ran[w])
            continue;
        double s = res[w].seconds > 1e-9 ? res[w].seconds : 1e-9;
        printf("%-12s %12llu %12llu %9.3f %14.0f %14.0f %12ld\n", workloads[w].name,
               (unsigned long long)res[w].insts, (unsigned long long)res[w].cycles,
               res[w].seconds, (double)res[w].insts / s, (double)res[w].cycles / s,
               res[w].rss_kb);
    }
    qsort(rate, (size_t)n, sizeof *rate, cmp_double);
    double med = n % 2 ? rate[n / 2] : (rate[n / 2 - 1] + rate[n / 2]) / 2;
    printf("warp_instructions_per_second: %.0f\n", med);
    if (fflush(stdout)) {
        fprintf(stderr, "smsim: cannot write to stdout\n");
        return 1;
    }
    return 0;
}
