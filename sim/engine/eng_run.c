/* eng_run.c — engine_run(): checks, the run's state, the first wave, the
 * time loop (eng_par.c) and the counters it leaves in stats_kernel.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include "engine/eng_disp.h"
#include "engine/eng_par.h"
#include "engine/eng_run.h"
#include "engine/eng_util.h"

/* A hand-filled struct arch (tests, studies) is not validated by arch_load;
 * reject what would divide by zero or never make progress. */
static const char *check_arch(const struct arch *a)
{
    /* the upper bounds are arch_load's ranges, which the parallel run's
     * packed requests rely on (eng_par.c, par_srv) */
    if (a->sm_count < 1 || a->sm_count > 1024)
        return "gpu.sm_count must be 1..1024";
    if (a->l2_latency > 100000 || a->dram_latency > 100000)
        return "memory.l2_latency and memory.dram_latency must be <= 100000";
    if (a->block_launch_latency > 1000000)
        return "scheduler.block_launch_latency must be <= 1000000";
    if (a->launch_start < 0 || a->launch_start > 1000000 || a->launch_drain < 0 ||
        a->launch_drain > 1000000)
        return "scheduler.launch_start and scheduler.launch_drain must be 0..1000000";
    if (!(a->dispatch_launch >= 0 && a->dispatch_launch <= 1000000) ||
        !(a->dispatch_retire >= 0 && a->dispatch_retire <= 1000000) ||
        !(a->sm_block_cycles >= 0 && a->sm_block_cycles <= 1000000) ||
        !(a->sm_warp_cycles >= 0 && a->sm_warp_cycles <= 100000))
        return "scheduler.dispatch_launch, dispatch_retire, sm_block_cycles and sm_warp_cycles "
               "must be 0..1000000 (sm_warp_cycles 0..100000)";
    if (a->subpartitions < 1)
        return "sm.subpartitions must be >= 1";
    if (a->warp_size < 1 || a->warp_size > 32)
        return "sm.warp_size must be 1..32";
    if (a->issue_width < 1)
        return "scheduler.issue_width must be >= 1";
    if (a->lsu_queue_depth < 1)
        return "memory.lg_queue_depth must be >= 1";
    if (a->mio_queue_depth < 1)
        return "memory.mio_queue_depth must be >= 1";
    if (a->sector_bytes < 1)
        return "memory.sector_bytes must be >= 1";
    if (a->smem_banks < 1)
        return "memory.smem_banks must be >= 1";
    if (!(a->l1_bytes_per_clk > 0) || !(a->l2_bytes_per_clk > 0))
        return "memory.l1_bytes_per_clk and memory.l2_bytes_per_clk must be > 0";
    if (!(arch_dram_bytes_per_clk(a) > 0))
        return "memory.dram_gbps and gpu.sm_clock_mhz must be > 0";
    if (a->policy < SCHED_GTO || a->policy > SCHED_GRR) /* enum arch_policy's range */
        return "scheduler.policy must be gto, lrr, gty, gyb, gob or grr";
    return NULL;
}

static void free_run(struct eng_run *r)
{
    if (r->sm) {
        for (int i = 0; i < r->a->sm_count; i++) {
            struct eng_sm *sm = &r->sm[i];
            /* warps still resident after an error give back reader state */
            for (int j = 0; sm->w && j < r->bps * r->wpb; j++)
                if (sm->w[j].resident && r->k->ops->warp_end)
                    r->k->ops->warp_end(r->k, &sm->w[j].cur);
            if (sm->sp)
                for (int s = 0; s < r->a->subpartitions; s++) {
                    free(sm->sp[s].lg.free_at);
                    free(sm->sp[s].mio.free_at);
                }
            if (sm->sp)
                for (int s = 0; s < r->a->subpartitions; s++)
                    free(sm->sp[s].until);
            free(sm->sp);
            free(sm->w);
            free(sm->bs);
            free(sm->elig);
            free(sm->mark);
            free(sm->copies);
            free(sm->dc);
            eng_fetch_ic_free(&sm->ic);
            eng_fetch_cc_free(&sm->cc);
            free(sm->due);
            free(sm->req);
            free(sm->fr);
            free(sm->unres);
            mem_sm_free(&sm->mem);
        }
    }
    mem_gpu_free(&r->mem);
    free(r->sm);
    free(r->sm_ready);
    trace_ctl_free(&r->ctl);
}

static int alloc_run(struct eng_run *r)
{
    const struct arch *a = r->a;
    int nslots = r->bps * r->wpb;
    int sub = a->subpartitions;
    r->sub = sub;
    r->slots_per_smsp = (nslots + sub - 1) / sub;
    r->sm = eng_line_calloc((size_t)a->sm_count, sizeof *r->sm);
    r->sm_ready = calloc((size_t)a->sm_count, sizeof *r->sm_ready);
    if (!r->sm || !r->sm_ready)
        return -1;
    if (mem_gpu_init(&r->mcfg, &r->mem) != 0)
        return -1;
    for (int i = 0; i < a->sm_count; i++) {
        struct eng_sm *sm = &r->sm[i];
        sm->next = ENG_NEVER;
        sm->err_t = ENG_NEVER;
        sm->bs = eng_line_calloc((size_t)r->bps, sizeof *sm->bs);
        sm->w = eng_line_calloc((size_t)nslots, sizeof *sm->w);
        sm->sp = eng_line_calloc((size_t)sub, sizeof *sm->sp);
        sm->elig = eng_line_calloc((size_t)r->slots_per_smsp, sizeof *sm->elig);
        sm->mark = eng_line_calloc((size_t)r->slots_per_smsp, sizeof *sm->mark);
        sm->due = eng_line_calloc((size_t)r->slots_per_smsp, sizeof *sm->due);
        sm->copies = eng_line_calloc((size_t)nslots, sizeof *sm->copies);
        if (!sm->bs || !sm->w || !sm->sp || !sm->elig || !sm->mark || !sm->due || !sm->copies)
            return -1;
        sm->fr = eng_line_calloc((size_t)r->bps, sizeof *sm->fr);
        sm->unres = eng_line_calloc((size_t)nslots, sizeof *sm->unres);
        if (!sm->fr || !sm->unres)
            return -1;
        if (mem_sm_init(&r->mcfg, &sm->mem) != 0)
            return -1;
        sm->mem.part = mem_l2_near(a, i);
        if (eng_fetch_ic_init(a, &sm->ic, nslots, r->k->code_bytes) != 0 ||
            eng_fetch_cc_init(a, &sm->cc) != 0)
            return -1;
        for (int s = 0; s < sub; s++) {
            struct eng_smsp *sp = &sm->sp[s];
            sp->last = -1;
            sp->lone_slot = -1;
            sp->nslots = (nslots - s + sub - 1) / sub;
            sp->until = eng_line_calloc((size_t)sp->nslots, sizeof *sp->until);
            if (!sp->until)
                return -1;
            for (int j = 0; j < sp->nslots; j++)
                sp->until[j] = ENG_NEVER;
            sp->lg.cap = a->lsu_queue_depth;
            sp->mio.cap = a->mio_queue_depth;
            sp->lg.free_at = eng_line_calloc((size_t)sp->lg.cap, sizeof *sp->lg.free_at);
            sp->mio.free_at = eng_line_calloc((size_t)sp->mio.cap, sizeof *sp->mio.free_at);
            if (!sp->lg.free_at || !sp->mio.free_at)
                return -1;
        }
    }
    return 0;
}

/* The L2 tags between launches; the L1s are not kept: the hardware
 * invalidates them at a kernel's start (kit-2026-12-01/write/
 * write-ncu.raw.csv:4, under --cache-control none: wp_load_f4 after
 * wp_store_f4 hits L2 89.5 % of its reads and L1 0 %, though stores leave
 * their data in L1, line 10). */
struct engine_warm {
    struct mem_cache l2[MEM_L2_PARTS];
};

struct engine_warm *engine_warm_new(void)
{
    return calloc(1, sizeof(struct engine_warm));
}

void engine_warm_free(struct engine_warm *w)
{
    if (!w)
        return;
    for (int p = 0; p < MEM_L2_PARTS; p++)
        mem_cache_free(&w->l2[p]);
    free(w);
}

void engine_occ_launch(const struct tr_launch *l, int carveout_pct, struct occ_launch *ol)
{
    memset(ol, 0, sizeof *ol);
    ol->threads = (int)((uint64_t)l->block[0] * l->block[1] * l->block[2]);
    ol->regs = l->regs;
    ol->smem_static = l->smem_static;
    ol->smem_dynamic = l->smem_dynamic;
    ol->max_dynamic = -1;
    ol->carveout_pct = carveout_pct;
    ol->barriers = l->barriers;
}

int engine_run(const struct arch *a, struct trace_kernel *k, const struct engine_opts *o,
               struct stats_kernel *out, char err[512])
{
    struct engine_opts defaults;
    memset(&defaults, 0, sizeof defaults);
    defaults.carveout_pct = -1;
    if (!o)
        o = &defaults;
    memset(out, 0, sizeof *out);
    err[0] = '\0';

    const char *bad = check_arch(a);
    if (bad) {
        snprintf(err, 512, "%s: %s", a->name[0] ? a->name : "arch", bad);
        return -1;
    }
    const struct tr_launch *l = &k->launch;
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (threads == 0 || threads > (uint64_t)a->max_threads_per_block || threads > 1u << 20) {
        snprintf(err, 512, "kernel '%s': block of %llu threads is not a valid launch", l->name,
                 (unsigned long long)threads);
        return -1;
    }

    struct occ_launch ol;
    engine_occ_launch(l, o->carveout_pct, &ol);
    struct occ_result occ;
    if (occ_compute(a, &ol, &occ) != 0 || occ.blocks_per_sm < 1) {
        snprintf(err, 512, "kernel '%s' cannot run: %s", l->name,
                 occ.detail[0] ? occ.detail : occ.error ? occ.error : "no block fits on an SM");
        return -1;
    }

    if (stats_kernel_init(out, a->sm_count, a->subpartitions) != 0) {
        snprintf(err, 512, "out of memory");
        return -1;
    }
    out->launch = *l;
    out->occ = occ;

    struct eng_run r;
    memset(&r, 0, sizeof r);
    r.a = a;
    r.k = k;
    r.o = o;
    r.obs = o->obs;
    r.st = out;
    r.err = err;
    r.no_skip = o->no_skip;
    r.fma_split = eng_pipe_fma_split(a);
    /* The observer's callbacks are not thread-safe: pictures take one
     * thread (the counters are the same on any number). */
    int nthreads = o->threads > 1 && !r.obs ? o->threads : 1;
    /* warp_begin/next/end run on the worker threads (eng_sm_step: block launch,
     * issue, retire); a reader that cannot take concurrent calls on distinct
     * cursors says so (trace_kernel.mt_safe = 0) and gets one thread.  Both
     * readers of this tree are thread-safe (the Accel-Sim reader locks its
     * shared block index).  The result is the same on any number of threads. */
    if (!k->mt_safe)
        nthreads = 1;
    if (nthreads > a->sm_count)
        nthreads = a->sm_count;
    r.bps = occ.blocks_per_sm;
    if (o->blocks_per_sm_cap > 0 && o->blocks_per_sm_cap < r.bps)
        r.bps = o->blocks_per_sm_cap;
    r.wpb = (int)((threads + (uint64_t)a->warp_size - 1) / (uint64_t)a->warp_size);
    if (r.bps > 255) /* eng_warp.bslot is 8 bits; no GPU has more resident blocks */
        r.bps = 255;
    r.nblocks = nblocks;
    r.blk_cost = a->sm_block_cycles + a->sm_warp_cycles * (double)r.wpb;
    mem_cfg_init(&r.mcfg, a, occ.smem_config_bytes, o->seed);
    /* Traces without control bits: the assignment pass derives them from
     * this arch's latencies (trace_ctl.h), so they run on the same issue
     * model as compiler output; off, the register scoreboard decides. */
    int ctl_rc = a->assign_ctl ? trace_ctl_new(k, a, &r.ctl) : 0;
    if (r.ctl.n)
        r.k = &r.ctl.k;
    if (ctl_rc != 0 || alloc_run(&r) != 0) {
        free_run(&r);
        stats_kernel_free(out);
        snprintf(err, 512, "out of memory");
        return -1;
    }
    /* the L2 is the globally ordered stage's (one thread), so what it
     * carries is the same on any number of threads */
    int warm = a->warm_caches && o->warm;
    if (warm)
        mem_gpu_take_l2(&r.mem, o->warm->l2);

    eng_disp_first_wave(&r);
    int rc = eng_par_run(&r, nthreads);
    if (rc == 0)
        for (int i = 0; i < a->sm_count; i++)
            if (r.sm[i].resident) {
                snprintf(err, 512, "kernel '%s': deadlock: warps on SM %d can never issue "
                         "(unmatched barrier?)", l->name, i);
                rc = -1;
                break;
            }
    /* GPU-wide counters were kept per SM (sums: any order gives the same) */
    for (int i = 0; i < a->sm_count; i++) {
        const struct eng_acc *c = &r.sm[i].acc;
        out->sm[i] = r.sm[i].st;
        for (int s = 0; s < r.sub; s++)
            out->smsp[(size_t)i * (size_t)r.sub + (size_t)s] = r.sm[i].sp[s].st;
        out->events += c->events;
        out->thread_inst += c->thread_inst;
        out->dram_bytes += c->mem.dram_bytes;
        out->l2_bytes += c->mem.l2_bytes;
        out->l1_sector_hits += c->mem.l1_sector_hits;
        out->l1_sectors += c->mem.l1_sectors;
        out->l2_sector_hits += c->mem.l2_sector_hits;
        out->l2_sectors += c->mem.l2_sectors;
        out->gld_sectors += c->mem.gld_sectors;
        out->gst_sectors += c->mem.gst_sectors;
        if (c->last_retire > out->cycles_elapsed)
            out->cycles_elapsed = c->last_retire;
    }
    /* L2/DRAM outcomes of requests with addresses, decided GPU-wide */
    out->dram_bytes += r.mem.cnt.dram_bytes;
    out->l2_bytes += r.mem.cnt.l2_bytes;
    out->l2_sector_hits += r.mem.cnt.l2_sector_hits;
    out->l2_sectors += r.mem.cnt.l2_sectors;
    /* the kernel ends launch_drain cycles after the dispatcher took back
     * its last block (eng_disp.h) */
    if (r.last_back > out->cycles_elapsed)
        out->cycles_elapsed = r.last_back;
    out->cycles_elapsed += (uint64_t)a->launch_drain;
    /* Readers that decode lazily (Accel-Sim) know the count only now. */
    out->unknown_insts = k->unknown_insts;
    if (warm && rc == 0)
        mem_gpu_keep_l2(&r.mem, o->warm->l2);
    free_run(&r);
    if (rc != 0)
        stats_kernel_free(out);
    return rc;
}
