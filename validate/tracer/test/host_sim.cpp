/* host_sim.cpp: CPU-side test of the injection library's host logic (no GPU, no sanitizer library).
 * Linked together with smsim_tracer.cpp, it defines the sanitizer functions the tracer calls as
 * host-memory stand-ins ("device" memory is malloc'd), then drives the tracer's callback the way the
 * driver would: module loaded (a real cubin of test/trace_test.cu, so the ELF symbol scan and the
 * regex run for real), launch begin, the "kernel" (records copied from a file into the record
 * buffer, as the patches would write them), launch end.
 *   host_sim CUBIN RECORDS_FILE [LAUNCHES]   with SMSIM_TRACE_* set as the wrapper sets them
 * The output directory is then checked by test/host-test.sh.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <sanitizer.h>
#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "../smsim_trace_ctl.h"

static Sanitizer_CallbackFunc g_cb;
static void *g_ud;

extern "C" {
SanitizerResult sanitizerSubscribe(Sanitizer_SubscriberHandle *s, Sanitizer_CallbackFunc cb, void *ud)
{
    *s = (Sanitizer_SubscriberHandle)0x1;
    g_cb = cb;
    g_ud = ud;
    return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerEnableDomain(uint32_t, Sanitizer_SubscriberHandle, Sanitizer_CallbackDomain) { return SANITIZER_SUCCESS; }
SanitizerResult sanitizerEnableCallback(uint32_t, Sanitizer_SubscriberHandle, Sanitizer_CallbackDomain, Sanitizer_CallbackId) { return SANITIZER_SUCCESS; }
SanitizerResult sanitizerGetResultString(SanitizerResult, const char **s) { *s = "stub error"; return SANITIZER_SUCCESS; }
SanitizerResult sanitizerAddPatchesFromFile(const char *f, CUcontext)
{
    FILE *fp = fopen(f, "rb");
    if (!fp)
        return SANITIZER_ERROR_INVALID_PARAMETER;
    fclose(fp);
    return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerPatchInstructions(const Sanitizer_InstructionId, CUmodule, const char *) { return SANITIZER_SUCCESS; }
SanitizerResult sanitizerPatchModule(CUmodule) { return SANITIZER_SUCCESS; }
SanitizerResult sanitizerAlloc(CUcontext, void **p, size_t n) { *p = malloc(n); return *p ? SANITIZER_SUCCESS : SANITIZER_ERROR_OUT_OF_MEMORY; }
SanitizerResult sanitizerMemset(void *p, int v, size_t n, Sanitizer_StreamHandle) { memset(p, v, n); return SANITIZER_SUCCESS; }
SanitizerResult sanitizerMemcpyHostToDeviceAsync(void *d, void *s, size_t n, Sanitizer_StreamHandle) { memcpy(d, s, n); return SANITIZER_SUCCESS; }
SanitizerResult sanitizerMemcpyDeviceToHost(void *d, void *s, size_t n, Sanitizer_StreamHandle) { memcpy(d, s, n); return SANITIZER_SUCCESS; }
SanitizerResult sanitizerStreamSynchronize(Sanitizer_StreamHandle) { return SANITIZER_SUCCESS; }
static const void *g_userdata;
SanitizerResult sanitizerSetLaunchCallbackData(Sanitizer_LaunchHandle, CUfunction, Sanitizer_StreamHandle, const void *u)
{
    g_userdata = u;
    return SANITIZER_SUCCESS;
}
SanitizerResult sanitizerGetFunctionPcAndSize(CUmodule, const char *, uint64_t *pc, uint64_t *size)
{
    *pc = 0x7f1234560000ull;
    *size = 0x1000;
    return SANITIZER_SUCCESS;
}
}

static std::vector<char> slurp(const char *path)
{
    std::vector<char> v;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "host_sim: cannot open %s\n", path);
        exit(2);
    }
    char b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof b, f)) > 0)
        v.insert(v.end(), b, b + n);
    fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: host_sim CUBIN RECORDS_FILE [NLAUNCHES]\n");
        return 2;
    }
    if (g_cb == nullptr) {
        fprintf(stderr, "host_sim: the tracer did not subscribe\n");
        return 1;
    }
    std::vector<char> cubin = slurp(argv[1]), recs = slurp(argv[2]);
    int nlaunch = argc > 3 ? atoi(argv[3]) : 2;
    Sanitizer_ResourceModuleData md;
    memset(&md, 0, sizeof md);
    md.context = (CUcontext)0x2;
    md.module = (CUmodule)0x1;
    md.cubinSize = cubin.size();
    md.pCubin = cubin.data();
    g_cb(g_ud, SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CBID_RESOURCE_MODULE_LOADED, &md);
    for (int k = 0; k < nlaunch; k++) {
        /* the launch API call: dynamic shared memory comes from here */
        cudaLaunchKernel_v7000_params rp; /* only sharedMem is read */
        rp.sharedMem = 128;
        Sanitizer_CallbackData cd;
        memset(&cd, 0, sizeof cd);
        cd.callbackSite = SANITIZER_API_ENTER;
        cd.functionParams = &rp;
        g_cb(g_ud, SANITIZER_CB_DOMAIN_RUNTIME_API, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel, &cd);
        Sanitizer_LaunchData ld;
        memset(&ld, 0, sizeof ld);
        ld.context = (CUcontext)0x2;
        ld.module = (CUmodule)0x1;
        ld.function = (CUfunction)0x3;
        ld.functionName = "_Z10trace_testPKfPfPiii";
        ld.gridDim_x = 2; ld.gridDim_y = 1; ld.gridDim_z = 1;
        ld.blockDim_x = 64; ld.blockDim_y = 1; ld.blockDim_z = 1;
        ld.gridId = 100 + k;
        g_userdata = nullptr;
        g_cb(g_ud, SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_BEGIN, &ld);
        smsim_trace_ctl *c = (smsim_trace_ctl *)g_userdata;
        if (c && c->enabled) { /* the "kernel": the patches' records */
            size_t n = recs.size() < c->capacity ? recs.size() : c->capacity;
            memcpy(c->buf, recs.data(), n);
            c->offset = recs.size();
            c->raw_pc_min = c->pc_base;
            c->raw_pc_max = c->pc_base + 0x160;
            if (recs.size() > c->capacity)
                c->overflow = 1;
        }
        printf("host_sim: launch %d: callback data %s\n", k, c == nullptr ? "none" : c->enabled ? "traced" : "dormant");
        g_cb(g_ud, SANITIZER_CB_DOMAIN_LAUNCH, SANITIZER_CBID_LAUNCH_END, &ld);
        cd.callbackSite = SANITIZER_API_EXIT;
        g_cb(g_ud, SANITIZER_CB_DOMAIN_RUNTIME_API, SANITIZER_CBID_RUNTIME_API_cudaLaunchKernel, &cd);
    }
    return 0;
}
