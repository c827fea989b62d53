/* smsim_tracer.cpp: Compute Sanitizer injection library (libsmsim_tracer.so) that records the
 * selected kernel launches of an unmodified CUDA program as launch-K.smev event streams
 * (format: docs/tracing.md; usage: README.md). Loaded by the driver through
 * CUDA_INJECTION64_PATH, which calls InitializeInjection (Compute Sanitizer API guide).
 *
 * Settings (set by the smsim-trace wrapper):
 *   SMSIM_TRACE_DIR       output directory (required)
 *   SMSIM_TRACE_KERNEL    POSIX extended regex on the mangled or demangled name (default: all)
 *   SMSIM_TRACE_LAUNCHES  A:B  trace matching launches A..B-1, counted over all launches whose name
 *                          matches the regex (as ncu's -k/--launch-skip count them); default 0:1
 *   SMSIM_TRACE_BLOCKS    FIRST:COUNT linear block ids to record (default: all)
 *   SMSIM_TRACE_BUFFER_MB record buffer size per launch (default 256)
 *   SMSIM_TRACE_PATCH     path of smsim_patch.fatbin (default: next to this library)
 *   SMSIM_TRACE_NO_FUNCATTR=1 skip cuFuncGetAttribute (registers/static smem then come out as -1)
 * Any failed sanitizer or driver call prints one line "smsim-trace: ..." and disables tracing; the
 * application keeps running.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <sanitizer.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_meta.h>
#include <generated_cuda_runtime_api_meta.h>

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "smsim_trace_ctl.h"

namespace {

/* Instruction kinds patched, with the patch function for each (smsim_patch.cu). */
struct PatchKind {
    Sanitizer_InstructionId id;
    const char *fn;
};
const PatchKind kPatches[] = {
    {SANITIZER_INSTRUCTION_BLOCK_ENTER, "smsim_block_enter"},
    {SANITIZER_INSTRUCTION_BLOCK_EXIT, "smsim_block_exit"},
    {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "smsim_global"},
    {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "smsim_shared"},
    {SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, "smsim_local"},
    {SANITIZER_INSTRUCTION_BARRIER, "smsim_barrier"},
    {SANITIZER_INSTRUCTION_SYNCWARP, "smsim_syncwarp"},
    {SANITIZER_INSTRUCTION_SHFL, "smsim_shfl"},
    {SANITIZER_INSTRUCTION_CALL, "smsim_call"},
    {SANITIZER_INSTRUCTION_RET, "smsim_ret"},
    {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "smsim_memcpy_async"},
};

/* Per-context device resources, allocated once and reused by every traced launch. */
struct CtxState {
    bool patches_loaded = false;
    smsim_trace_ctl *ctl_dev = nullptr;     /* control struct of the traced launch */
    smsim_trace_ctl *dormant_dev = nullptr; /* enabled = 0: given to untraced launches of patched modules */
    unsigned char *buf_dev = nullptr;       /* record buffer */
    bool busy = false;                      /* a traced launch of this context is between begin and end */
};

/* A traced launch between its begin and end callbacks. */
struct Pending {
    long index;               /* launch index K among regex-matching launches */
    std::string name;         /* mangled name */
    int module;               /* M of module-M.cubin */
    CUcontext ctx;
    uint32_t grid[3], block[3];
    int nregs, smem_static;
    long long smem_dyn;
    uint32_t blk_first, blk_count;
    uint64_t pc_base;
    uint64_t fn_size;         /* function size from sanitizerGetFunctionPcAndSize (0 if unknown) */
};

struct Tracer {
    std::recursive_mutex mu; /* recursive: a sanitizer call made in a callback may raise another */
    bool ok = true;           /* false after the first failure: tracing stops, the app runs on */
    std::string dir;
    regex_t re;
    bool have_re = false;
    long launch_a = 0, launch_b = 1;
    bool blocks_all = true;
    uint32_t blk_first = 0, blk_count = 0;
    size_t buf_bytes = 256ull << 20;
    std::string patch_path;
    bool funcattr = true;
    bool loading_patches = false; /* inside sanitizerAddPatchesFromFile */
    long matched = 0;         /* launches whose name matched so far */
    int modules = 0;          /* module-M.cubin files written */
    std::map<CUmodule, int> module_id;
    std::map<CUcontext, CtxState> ctx;
    std::map<std::string, bool> name_match;
    std::map<uint64_t, Pending> pending; /* by gridId */
    FILE *tsv = nullptr;
};

Tracer *g_tr = nullptr; /* the injection entry point has no user pointer until subscription */

thread_local long long t_dyn_smem = -1; /* dynamic smem of the launch API call in progress */

void fail(Tracer *t, const char *what, const char *detail)
{
    fprintf(stderr, "smsim-trace: %s failed (%s); tracing stopped, the application continues\n", what, detail);
    t->ok = false;
}

bool sok(Tracer *t, SanitizerResult r, const char *what)
{
    if (r == SANITIZER_SUCCESS)
        return true;
    const char *s = nullptr;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || s == nullptr)
        s = "unknown sanitizer error";
    char buf[256];
    snprintf(buf, sizeof buf, "%s, code %d", s, (int)r);
    fail(t, what, buf);
    return false;
}

/* Driver entry points, looked up in the libcuda.so.1 the program has already loaded (the driver
 * loads this library), so the tracer does not link against libcuda. */
typedef CUresult (*FuncGetAttributeFn)(int *, CUfunction_attribute, CUfunction);
typedef CUresult (*GetErrorStringFn)(CUresult, const char **);
FuncGetAttributeFn p_cuFuncGetAttribute = nullptr;
GetErrorStringFn p_cuGetErrorString = nullptr;

bool load_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h == nullptr)
        h = dlopen("libcuda.so.1", RTLD_LAZY);
    if (h == nullptr)
        return false;
    p_cuFuncGetAttribute = (FuncGetAttributeFn)dlsym(h, "cuFuncGetAttribute");
    p_cuGetErrorString = (GetErrorStringFn)dlsym(h, "cuGetErrorString");
    return p_cuFuncGetAttribute != nullptr;
}

bool cok(Tracer *t, CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return true;
    const char *s = nullptr;
    if (p_cuGetErrorString == nullptr || p_cuGetErrorString(r, &s) != CUDA_SUCCESS || s == nullptr)
        s = "unknown driver error";
    char buf[256];
    snprintf(buf, sizeof buf, "%s, code %d", s, (int)r);
    fail(t, what, buf);
    return false;
}

/* Parses "A:B" of non-negative integers; false on any other text. */
bool parse_range(const char *s, unsigned long long *a, unsigned long long *b)
{
    char *e = nullptr;
    errno = 0;
    *a = strtoull(s, &e, 10);
    if (errno || e == s || *e != ':')
        return false;
    const char *s2 = e + 1;
    *b = strtoull(s2, &e, 10);
    if (errno || e == s2 || *e != '\0')
        return false;
    return true;
}

std::string demangle(const char *name)
{
    int st = 0;
    char *d = abi::__cxa_demangle(name, nullptr, nullptr, &st);
    std::string out = (st == 0 && d) ? std::string(d) : std::string(name);
    free(d);
    return out;
}

bool name_matches(Tracer *t, const char *name)
{
    if (!t->have_re)
        return true;
    auto it = t->name_match.find(name);
    if (it != t->name_match.end())
        return it->second;
    bool m = regexec(&t->re, name, 0, nullptr, 0) == 0 || regexec(&t->re, demangle(name).c_str(), 0, nullptr, 0) == 0;
    t->name_match[name] = m;
    return m;
}

/* True when the cubin (ELF64) defines a function symbol whose name matches; true also when the
 * image is not an ELF we can read (then the module is patched to be safe). */
bool cubin_has_match(Tracer *t, const char *img, size_t n)
{
    if (!t->have_re)
        return true;
    if (n < sizeof(Elf64_Ehdr) || memcmp(img, ELFMAG, SELFMAG) != 0 || img[EI_CLASS] != ELFCLASS64)
        return true;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (eh->e_shoff == 0 || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > n)
        return true;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > n || strs->sh_offset + strs->sh_size > n)
            return true;
        const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
        size_t cnt = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < cnt; k++) {
            if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_name >= strs->sh_size)
                continue;
            const char *nm = img + strs->sh_offset + sym[k].st_name;
            if (memchr(nm, 0, strs->sh_size - sym[k].st_name) == nullptr)
                continue;
            if (name_matches(t, nm))
                return true;
        }
    }
    return false;
}

bool ensure_ctx(Tracer *t, CUcontext c, CtxState **out)
{
    CtxState &s = t->ctx[c];
    if (!s.patches_loaded) {
        /* loading the patch module may raise a module-loaded callback of its own: ignored */
        t->loading_patches = true;
        SanitizerResult r = sanitizerAddPatchesFromFile(t->patch_path.c_str(), c);
        t->loading_patches = false;
        if (!sok(t, r, "sanitizerAddPatchesFromFile"))
            return false;
        s.patches_loaded = true;
    }
    *out = &s;
    return true;
}

void on_module_loaded(Tracer *t, const Sanitizer_ResourceModuleData *md)
{
    if (md->pCubin == nullptr || md->cubinSize == 0 || t->loading_patches)
        return;
    if (!cubin_has_match(t, md->pCubin, md->cubinSize))
        return; /* left unpatched: none of its kernels can be traced */
    CtxState *cs;
    if (!ensure_ctx(t, md->context, &cs))
        return;
    /* First free module number: other processes of the same program (e.g. compile workers) may
     * write into DIR too, so the name is claimed with exclusive creation. */
    char path[4096];
    FILE *f = nullptr;
    int m = t->modules;
    for (; m < t->modules + 100000; m++) {
        snprintf(path, sizeof path, "%s/module-%d.cubin", t->dir.c_str(), m);
        f = fopen(path, "wbx");
        if (f != nullptr || errno != EEXIST)
            break;
    }
    t->modules = m + 1;
    if (f == nullptr || fwrite(md->pCubin, 1, md->cubinSize, f) != md->cubinSize || fclose(f) != 0) {
        fail(t, "writing module cubin", path);
        return;
    }
    for (const PatchKind &p : kPatches)
        if (!sok(t, sanitizerPatchInstructions(p.id, md->module, p.fn), p.fn))
            return;
    if (!sok(t, sanitizerPatchModule(md->module), "sanitizerPatchModule"))
        return;
    t->module_id[md->module] = m;
}

int func_attr(Tracer *t, CUfunction f, CUfunction_attribute a, const char *what)
{
    if (!t->funcattr)
        return -1;
    int v = -1;
    if (!cok(t, p_cuFuncGetAttribute(&v, a, f), what))
        return -1;
    return v;
}

void on_launch_begin(Tracer *t, const Sanitizer_LaunchData *ld)
{
    const char *name = ld->functionName ? ld->functionName : "";
    bool match = name_matches(t, name);
    long k = match ? t->matched++ : -1;
    auto mi = t->module_id.find(ld->module);
    CtxState *cs = nullptr;
    bool want = match && k >= t->launch_a && k < t->launch_b;
    if (mi == t->module_id.end()) {
        if (want)
            fprintf(stderr, "smsim-trace: launch %ld of %s: its module was not patched (loaded before the tracer?), skipped\n", k, name);
        return;
    }
    if (!ensure_ctx(t, ld->context, &cs))
        return;
    if (!want) {
        /* Untraced launch of a kernel in a patched module (matching or not): a dormant control struct makes every patch return at once. */
        if (cs->dormant_dev == nullptr) {
            smsim_trace_ctl h;
            memset(&h, 0, sizeof h);
            if (!sok(t, sanitizerAlloc(ld->context, (void **)&cs->dormant_dev, sizeof h), "sanitizerAlloc(dormant)") ||
                !sok(t, sanitizerMemcpyHostToDeviceAsync(cs->dormant_dev, &h, sizeof h, ld->hStream), "sanitizerMemcpyHostToDeviceAsync(dormant)"))
                return;
        }
        sok(t, sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, cs->dormant_dev), "sanitizerSetLaunchCallbackData(dormant)");
        return;
    }
    if (cs->busy) {
        fprintf(stderr, "smsim-trace: launch %ld of %s began while another traced launch was in flight (other thread); skipped\n", k, name);
        return;
    }
    if (cs->ctl_dev == nullptr) {
        if (!sok(t, sanitizerAlloc(ld->context, (void **)&cs->ctl_dev, sizeof(smsim_trace_ctl)), "sanitizerAlloc(control)") ||
            !sok(t, sanitizerAlloc(ld->context, (void **)&cs->buf_dev, t->buf_bytes), "sanitizerAlloc(record buffer)"))
            return;
    }
    Pending p;
    p.index = k;
    p.name = name;
    p.module = mi->second;
    p.ctx = ld->context;
    p.grid[0] = ld->gridDim_x; p.grid[1] = ld->gridDim_y; p.grid[2] = ld->gridDim_z;
    p.block[0] = ld->blockDim_x; p.block[1] = ld->blockDim_y; p.block[2] = ld->blockDim_z;
    p.nregs = func_attr(t, ld->function, CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute(NUM_REGS)");
    p.smem_static = func_attr(t, ld->function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
    if (!t->ok)
        return;
    p.smem_dyn = t_dyn_smem;
    uint64_t total = (uint64_t)p.grid[0] * p.grid[1] * p.grid[2];
    if (t->blocks_all || t->blk_first >= total) {
        if (!t->blocks_all)
            fprintf(stderr, "smsim-trace: launch %ld: block range starts at %u but the grid has %llu blocks; recording all blocks\n",
                    k, t->blk_first, (unsigned long long)total);
        p.blk_first = 0;
        p.blk_count = (uint32_t)total;
    } else {
        p.blk_first = t->blk_first;
        p.blk_count = (uint32_t)((uint64_t)t->blk_first + t->blk_count > total ? total - t->blk_first : t->blk_count);
    }
    uint64_t size = 0;
    SanitizerResult pr = sanitizerGetFunctionPcAndSize(ld->module, name, &p.pc_base, &size);
    if (pr != SANITIZER_SUCCESS) {
        /* Not fatal: the records then carry the low 32 bits of the API's pc, and the header says pc base 0. */
        const char *s = nullptr;
        sanitizerGetResultString(pr, &s);
        fprintf(stderr, "smsim-trace: launch %ld: sanitizerGetFunctionPcAndSize(%s) failed (%s, code %d); pc base 0 (raw pcs)\n",
                k, name, s ? s : "?", (int)pr);
        p.pc_base = 0;
        size = 0;
    }
    p.fn_size = size;
    smsim_trace_ctl h;
    memset(&h, 0, sizeof h);
    h.capacity = t->buf_bytes;
    h.pc_base = p.pc_base;
    h.raw_pc_min = ~0ull;
    h.buf = cs->buf_dev;
    h.enabled = 1;
    h.block_first = p.blk_first;
    h.block_count = p.blk_count;
    h.grid_x = p.grid[0]; h.grid_y = p.grid[1];
    h.block_x = p.block[0]; h.block_y = p.block[1];
    h.warps_per_block = (p.block[0] * p.block[1] * p.block[2] + 31u) / 32u;
    if (!sok(t, sanitizerMemset(cs->buf_dev, 0, t->buf_bytes, ld->hStream), "sanitizerMemset(record buffer)") ||
        /* returns once h has been staged (sanitizer_memory.h), so h may live on this stack frame */
        !sok(t, sanitizerMemcpyHostToDeviceAsync(cs->ctl_dev, &h, sizeof h, ld->hStream), "sanitizerMemcpyHostToDeviceAsync(control)") ||
        !sok(t, sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, cs->ctl_dev), "sanitizerSetLaunchCallbackData"))
        return;
    fprintf(stderr, "smsim-trace: tracing launch %ld of %s (module-%d.cubin, function pc 0x%llx, size %llu)\n", k, name,
            p.module, (unsigned long long)p.pc_base, (unsigned long long)size);
    cs->busy = true;
    t->pending[ld->gridId] = p;
}

/* Opens DIR/launches.tsv for appending at the first traced launch (processes that trace nothing
 * leave it alone); writes the column names when the file is new. */
bool open_tsv(Tracer *t)
{
    std::string tsv = t->dir + "/launches.tsv";
    t->tsv = fopen(tsv.c_str(), "a");
    if (t->tsv == nullptr) {
        fail(t, "opening launches.tsv", strerror(errno));
        return false;
    }
    if (ftell(t->tsv) == 0)
        fprintf(t->tsv, "index\tkernel\tmodule\tevents\tgrid\tblock\tregisters\tshmem_static\tshmem_dynamic\trecords\tbytes\toverflow\tsampled_blocks\n");
    return true;
}

bool is_mem_kind(unsigned k)
{
    return k == 3 || k == 4 || k == 5 || k == 14;
}

void on_launch_end(Tracer *t, const Sanitizer_LaunchData *ld)
{
    auto it = t->pending.find(ld->gridId);
    if (it == t->pending.end()) { /* gridId not kept from begin to end: match by context and name */
        for (it = t->pending.begin(); it != t->pending.end(); ++it)
            if (it->second.ctx == ld->context && ld->functionName && it->second.name == ld->functionName)
                break;
        if (it == t->pending.end())
            return;
        fprintf(stderr, "smsim-trace: launch %ld: end callback has another gridId than begin; matched by name\n", it->second.index);
    }
    Pending p = it->second;
    t->pending.erase(it);
    CtxState &cs = t->ctx[p.ctx];
    cs.busy = false;
    smsim_trace_ctl h;
    if (!sok(t, sanitizerStreamSynchronize(ld->hStream), "sanitizerStreamSynchronize(after launch)") ||
        !sok(t, sanitizerMemcpyDeviceToHost(&h, cs.ctl_dev, sizeof h, ld->hStream), "sanitizerMemcpyDeviceToHost(control)"))
        return;
    /* Leave the control struct dormant (enabled = 0) in case the API hands it to a later launch. */
    if (!sok(t, sanitizerMemset(cs.ctl_dev, 0, sizeof(smsim_trace_ctl), ld->hStream), "sanitizerMemset(control)"))
        return;
    uint64_t used = h.offset < h.capacity ? h.offset : h.capacity;
    std::vector<unsigned char> buf(used);
    if (used && !sok(t, sanitizerMemcpyDeviceToHost(buf.data(), cs.buf_dev, used, ld->hStream), "sanitizerMemcpyDeviceToHost(records)"))
        return;
    /* Walk the records: the reserved region is contiguous; with overflow it ends at the first record
     * that did not fit. */
    uint64_t pos = 0, recs = 0;
    while (pos + SMSIM_REC_HDR <= used) {
        unsigned kind = buf[pos + 4];
        uint32_t mask;
        memcpy(&mask, &buf[pos + 12], 4);
        uint64_t sz = SMSIM_REC_HDR + (is_mem_kind(kind) ? 8ull * (unsigned)__builtin_popcount(mask) : 0);
        if (kind == 0 || pos + sz > used)
            break;
        pos += sz;
        recs++;
    }
    /* If the API's pcs turn out function-relative already (block enter/exit pcs inside
     * [0, function size) while the function starts elsewhere), undo the subtraction the patches did
     * (mod 2^32) and record pc base 0. */
    uint64_t pc_base = p.pc_base;
    if (p.pc_base != 0 && p.fn_size != 0 && h.raw_pc_min != ~0ull && h.raw_pc_max < p.fn_size && p.pc_base >= p.fn_size) {
        fprintf(stderr, "smsim-trace: launch %ld: the API's pcs are function-relative (0x%llx..0x%llx < size %llu); pc base 0\n",
                p.index, (unsigned long long)h.raw_pc_min, (unsigned long long)h.raw_pc_max, (unsigned long long)p.fn_size);
        for (uint64_t q = 0; q < pos;) {
            uint32_t pc, mask;
            memcpy(&pc, &buf[q + 8], 4);
            memcpy(&mask, &buf[q + 12], 4);
            pc += (uint32_t)p.pc_base;
            memcpy(&buf[q + 8], &pc, 4);
            q += SMSIM_REC_HDR + (is_mem_kind(buf[q + 4]) ? 8ull * (unsigned)__builtin_popcount(mask) : 0);
        }
        pc_base = 0;
    }
    bool overflow = h.overflow != 0 || h.offset > h.capacity;
    char path[4096];
    snprintf(path, sizeof path, "%s/launch-%ld.smev", t->dir.c_str(), p.index);
    FILE *f = fopen(path, "wbx");
    if (f == nullptr && errno == EEXIST) { /* another process of the program traced its launch K */
        snprintf(path, sizeof path, "%s/launch-%ld.p%ld.smev", t->dir.c_str(), p.index, (long)getpid());
        fprintf(stderr, "smsim-trace: launch-%ld.smev exists (written by another process); writing %s\n", p.index, path);
        f = fopen(path, "wbx");
    }
    if (f == nullptr) {
        fail(t, "opening event file", path);
        return;
    }
    long long dyn = p.smem_dyn < 0 ? 0 : p.smem_dyn;
    if (p.smem_dyn < 0)
        fprintf(stderr, "smsim-trace: launch %ld: dynamic shared memory unknown (no launch API call seen on this thread); written as 0\n", p.index);
    fprintf(f, "smev version = 1\nkernel = %s\nmodule = module-%d.cubin\ngrid = %u,%u,%u\nblock = %u,%u,%u\n"
               "nregs = %d\nshmem static = %d\nshmem dynamic = %lld\nlaunch = %ld\nsampled blocks = %u:%u\n"
               "records = %llu\noverflow = %d\npc base = 0x%llx\n#events\n",
            p.name.c_str(), p.module, p.grid[0], p.grid[1], p.grid[2], p.block[0], p.block[1], p.block[2], p.nregs,
            p.smem_static, dyn, p.index, p.blk_first, p.blk_count, (unsigned long long)recs, overflow ? 1 : 0,
            (unsigned long long)pc_base);
    if ((pos && fwrite(buf.data(), 1, pos, f) != pos) || fclose(f) != 0) {
        fail(t, "writing event file", path);
        return;
    }
    if (t->tsv == nullptr && !open_tsv(t))
        return;
    const char *ev = strrchr(path, '/') + 1;
    fprintf(t->tsv, "%ld\t%s\tmodule-%d.cubin\t%s\t%u,%u,%u\t%u,%u,%u\t%d\t%d\t%lld\t%llu\t%llu\t%d\t%u:%u\n",
            p.index, p.name.c_str(), p.module, ev, p.grid[0], p.grid[1], p.grid[2], p.block[0], p.block[1],
            p.block[2], p.nregs, p.smem_static, dyn, (unsigned long long)recs, (unsigned long long)pos, overflow ? 1 : 0,
            p.blk_first, p.blk_count);
    fflush(t->tsv);
    fprintf(stderr, "smsim-trace: launch %ld: %llu records, %llu bytes, overflow %d; raw pc of block enter/exit 0x%llx..0x%llx, pc base 0x%llx\n",
            p.index, (unsigned long long)recs, (unsigned long long)pos, overflow ? 1 : 0,
            (unsigned long long)h.raw_pc_min, (unsigned long long)h.raw_pc_max, (unsigned long long)p.pc_base);
    if (overflow)
        fprintf(stderr, "smsim-trace: launch %ld: record buffer full (%zu MiB): raise --buffer or sample fewer blocks\n", p.index,
                t->buf_bytes >> 20);
}

/* Remembers the dynamic shared memory of the launch API call this thread is in (the launch callback
 * data has no such field). */
void on_api(Sanitizer_CallbackDomain dom, Sanitizer_CallbackId cbid, const Sanitizer_CallbackData *cd)
{
    if (cd->callbackSite == SANITIZER_API_EXIT) {
        t_dyn_smem = -1;
        return;
    }
    const void *fp = cd->functionParams;
    if (fp == nullptr)
        return;
    if (dom == SANITIZER_CB_DOMAIN_DRIVER_API) {
        switch (cbid) {
        case SANITIZER_CBID_DRIVER_API_cuLaunchKernel: t_dyn_smem = ((const cuLaunchKernel_params *)fp)->sharedMemBytes; break;
        case SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz: t_dyn_smem = ((const cuLaunchKernel_ptsz_params *)fp)->sharedMemBytes; break;
        case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel: t_dyn_smem = ((const cuLaunchCooperativeKernel_params *)fp)->sharedMemBytes; break;
        case SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz: t_dyn_smem = ((const cuLaunchCooperativeKernel_ptsz_params *)fp)->sharedMemBytes; break;
        case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx: {
            const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)fp)->config;
            t_dyn_smem = c ? (long long)c->sharedMemBytes : -1;
            break;
        }
        case SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz: {
            const CUlaunchConfig *c = ((const cuLaunchKernelEx_ptsz_params *)fp)->config;
            t_dyn_smem = c ? (long long)c->sharedMemBytes : -1;
            break;
        }
        default: break;
        }
    } else {
        switch (cbid) {
        case SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel: t_dyn_smem = (long long)((const cudaLaunchKernel_v7000_params *)fp)->sharedMem; break;
        case SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel_ptsz: t_dyn_smem = (long long)((const cudaLaunchKernel_ptsz_v7000_params *)fp)->sharedMem; break;
        case SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC: {
            const cudaLaunchConfig_t *c = ((const cudaLaunchKernelExC_v11060_params *)fp)->config;
            t_dyn_smem = c ? (long long)c->dynamicSmemBytes : -1;
            break;
        }
        case SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz: {
            const cudaLaunchConfig_t *c = ((const cudaLaunchKernelExC_ptsz_v11060_params *)fp)->config;
            t_dyn_smem = c ? (long long)c->dynamicSmemBytes : -1;
            break;
        }
        default: break;
        }
    }
}

void SANITIZERAPI callback(void *ud, Sanitizer_CallbackDomain dom, Sanitizer_CallbackId cbid, const void *cbdata)
{
    Tracer *t = (Tracer *)ud;
    if (dom == SANITIZER_CB_DOMAIN_DRIVER_API || dom == SANITIZER_CB_DOMAIN_RUNTIME_API) {
        on_api(dom, cbid, (const Sanitizer_CallbackData *)cbdata);
        return;
    }
    std::lock_guard<std::recursive_mutex> lock(t->mu);
    if (!t->ok)
        return;
    if (dom == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
        on_module_loaded(t, (const Sanitizer_ResourceModuleData *)cbdata);
    else if (dom == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
        on_launch_begin(t, (const Sanitizer_LaunchData *)cbdata);
    else if (dom == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END)
        on_launch_end(t, (const Sanitizer_LaunchData *)cbdata);
}

/* Reads the settings; false (after one message) when one is malformed. */
bool configure(Tracer *t)
{
    const char *d = getenv("SMSIM_TRACE_DIR");
    if (d == nullptr || *d == '\0') {
        fprintf(stderr, "smsim-trace: SMSIM_TRACE_DIR is not set; tracing disabled\n");
        return false;
    }
    t->dir = d;
    const char *k = getenv("SMSIM_TRACE_KERNEL");
    if (k && *k) {
        int r = regcomp(&t->re, k, REG_EXTENDED | REG_NOSUB);
        if (r != 0) {
            char msg[256];
            regerror(r, &t->re, msg, sizeof msg);
            fprintf(stderr, "smsim-trace: SMSIM_TRACE_KERNEL '%s' is not a valid regex: %s; tracing disabled\n", k, msg);
            return false;
        }
        t->have_re = true;
    }
    unsigned long long a, b;
    const char *l = getenv("SMSIM_TRACE_LAUNCHES");
    if (l && *l) {
        if (!parse_range(l, &a, &b) || b <= a) {
            fprintf(stderr, "smsim-trace: SMSIM_TRACE_LAUNCHES '%s' is not A:B with A < B; tracing disabled\n", l);
            return false;
        }
        t->launch_a = (long)a;
        t->launch_b = (long)b;
    }
    const char *bl = getenv("SMSIM_TRACE_BLOCKS");
    if (bl && *bl) {
        if (!parse_range(bl, &a, &b) || b == 0 || a > 0xffffffffull || b > 0xffffffffull) {
            fprintf(stderr, "smsim-trace: SMSIM_TRACE_BLOCKS '%s' is not FIRST:COUNT with COUNT > 0; tracing disabled\n", bl);
            return false;
        }
        t->blocks_all = false;
        t->blk_first = (uint32_t)a;
        t->blk_count = (uint32_t)b;
    }
    const char *mb = getenv("SMSIM_TRACE_BUFFER_MB");
    if (mb && *mb) {
        char *e = nullptr;
        unsigned long long v = strtoull(mb, &e, 10);
        if (e == mb || *e != '\0' || v == 0 || v > (1ull << 20)) {
            fprintf(stderr, "smsim-trace: SMSIM_TRACE_BUFFER_MB '%s' is not a size in MiB (1..1048576); tracing disabled\n", mb);
            return false;
        }
        t->buf_bytes = (size_t)(v << 20);
    }
    const char *pp = getenv("SMSIM_TRACE_PATCH");
    if (pp && *pp) {
        t->patch_path = pp;
    } else {
        Dl_info info;
        if (dladdr((void *)&configure, &info) == 0 || info.dli_fname == nullptr) {
            fprintf(stderr, "smsim-trace: cannot locate libsmsim_tracer.so to find smsim_patch.fatbin; set SMSIM_TRACE_PATCH\n");
            return false;
        }
        std::string so = info.dli_fname;
        size_t slash = so.rfind('/');
        t->patch_path = (slash == std::string::npos ? std::string(".") : so.substr(0, slash)) + "/smsim_patch.fatbin";
    }
    FILE *pf = fopen(t->patch_path.c_str(), "rb");
    if (pf == nullptr) {
        fprintf(stderr, "smsim-trace: patch file %s cannot be opened: %s; tracing disabled\n", t->patch_path.c_str(), strerror(errno));
        return false;
    }
    fclose(pf);
    const char *nf = getenv("SMSIM_TRACE_NO_FUNCATTR");
    t->funcattr = !(nf && strcmp(nf, "1") == 0);
    if (t->funcattr && !load_driver()) {
        const char *de = dlerror();
        fprintf(stderr, "smsim-trace: cuFuncGetAttribute not found in libcuda.so.1 (%s); registers and static shared memory written as -1\n",
                de ? de : "no error text");
        t->funcattr = false;
    }
    struct stat st;
    if (stat(t->dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "smsim-trace: SMSIM_TRACE_DIR %s is not a directory; tracing disabled\n", t->dir.c_str());
        return false;
    }
    return true;
}

} // namespace

/* The driver calls this after loading CUDA_INJECTION64_PATH.  It returns 1
 * whatever happened: a 0 makes the driver unload the library, and with
 * callbacks already subscribed the next one jumps into unmapped code (seen on
 * the H200 machine, 2026-12-02: every traced program died with SIGSEGV at an
 * address of the unloaded library; returning 1 fixed it).  On failure the
 * tracer stays loaded and does nothing. */
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    if (g_tr != nullptr)
        return 1;
    Tracer *t = new Tracer();
    g_tr = t;
    if (!configure(t)) {
        t->ok = false;
        return 1;
    }
    Sanitizer_SubscriberHandle h;
    if (!sok(t, sanitizerSubscribe(&h, callback, t), "sanitizerSubscribe") ||
        !sok(t, sanitizerEnableDomain(1, h, SANITIZER_CB_DOMAIN_RESOURCE), "sanitizerEnableDomain(resource)") ||
        !sok(t, sanitizerEnableDomain(1, h, SANITIZER_CB_DOMAIN_LAUNCH), "sanitizerEnableDomain(launch)"))
        return 1;
    const Sanitizer_CallbackId drv[] = {SANITIZER_CBID_DRIVER_API_cuLaunchKernel, SANITIZER_CBID_DRIVER_API_cuLaunchKernel_ptsz,
                                        SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel,
                                        SANITIZER_CBID_DRIVER_API_cuLaunchCooperativeKernel_ptsz,
                                        SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx, SANITIZER_CBID_DRIVER_API_cuLaunchKernelEx_ptsz};
    const Sanitizer_CallbackId rt[] = {SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel_ptsz,
                                       SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernelExC_ptsz};
    for (Sanitizer_CallbackId c : drv)
        if (!sok(t, sanitizerEnableCallback(1, h, SANITIZER_CB_DOMAIN_DRIVER_API, c), "sanitizerEnableCallback(driver launch)"))
            return 1;
    for (Sanitizer_CallbackId c : rt)
        if (!sok(t, sanitizerEnableCallback(1, h, SANITIZER_CB_DOMAIN_RUNTIME_API, c), "sanitizerEnableCallback(runtime launch)"))
            return 1;
    fprintf(stderr, "smsim-trace: tracer loaded: dir %s, kernel regex '%s', launches %ld:%ld, blocks %s, buffer %zu MiB\n",
            t->dir.c_str(), getenv("SMSIM_TRACE_KERNEL") ? getenv("SMSIM_TRACE_KERNEL") : "", t->launch_a, t->launch_b,
            t->blocks_all ? "all" : getenv("SMSIM_TRACE_BLOCKS"), t->buf_bytes >> 20);
    return 1;
}


