/* trace_test.cu: the tracer's GPU test kernel (validate/tracer/README.md). One launch of
 * trace_test<<<2, 64>>>: 2 blocks x 2 warps = 4 warps, every warp executes the same path:
 *
 *   per iteration (4 iterations, loop kept rolled by #pragma unroll 1, trip count from the host):
 *     LDG  in[i*128 + g]          global read,  full mask, 4 B, lane addresses 4 B apart
 *     STS  tile[t]                shared write, full mask
 *     BAR  __syncthreads()
 *     LDS  tile[63 - t]           shared read,  full mask
 *     BAR  __syncthreads()        (keeps the next STS from racing the LDS)
 *   if (t & 1) LDG in[512 + g]    global read,  mask 0xaaaaaaaa (odd lanes)
 *   if (never) LDG in[640 + g]    never != 0 is false for every lane: no record at all
 *   atomicAdd(&counter[t & 31],1) global atomic (RED/ATOM), full mask, distinct lane addresses
 *   STG  out[g]                   global write, full mask
 *
 * Expected records per warp (hand count):
 *   block enter 1, block exit 1,
 *   global 4 (loop) + 1 (odd lanes) + 0 (never) + 1 (atomic) + 1 (store) = 7,
 *   shared 4 (STS) + 4 (LDS) = 8,
 *   barrier 2 x 4 = 8;
 *   total 25 per warp, 100 for the 4 warps (50 with --blocks 1:1: warps 2 and 3 only).
 * The host checks the results so the run under the tracer is also checked for correctness.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void trace_test(const float *__restrict__ in, float *out, int *counter, int n_iter, int never)
{
    __shared__ float tile[64];
    int t = threadIdx.x;
    int g = blockIdx.x * 64 + t;
    float acc = 0.0f;
#pragma unroll 1
    for (int i = 0; i < n_iter; i++) {
        tile[t] = in[i * 128 + g];
        __syncthreads();
        acc += tile[63 - t];
        __syncthreads();
    }
    if (t & 1)
        acc += in[512 + g];
    if (never)
        acc += in[640 + g];
    atomicAdd(&counter[t & 31], 1);
    out[g] = acc;
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "trace_test: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

int main(void)
{
    const int n_in = 1024, n_out = 128, n_iter = 4;
    float h_in[n_in], h_out[n_out];
    for (int i = 0; i < n_in; i++)
        h_in[i] = (float)(i % 97);
    float *d_in, *d_out;
    int *d_cnt;
    check(cudaMalloc(&d_in, sizeof h_in), "cudaMalloc in");
    check(cudaMalloc(&d_out, sizeof h_out), "cudaMalloc out");
    check(cudaMalloc(&d_cnt, 32 * sizeof(int)), "cudaMalloc counter");
    check(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice), "copy in");
    check(cudaMemset(d_cnt, 0, 32 * sizeof(int)), "memset counter");
    trace_test<<<2, 64>>>(d_in, d_out, d_cnt, n_iter, 0);
    check(cudaGetLastError(), "launch");
    check(cudaDeviceSynchronize(), "sync");
    check(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost), "copy out");
    int h_cnt[32];
    check(cudaMemcpy(h_cnt, d_cnt, sizeof h_cnt, cudaMemcpyDeviceToHost), "copy counter");
    int bad = 0;
    for (int g = 0; g < n_out; g++) {
        int t = g % 64, b = g / 64;
        float want = 0.0f;
        for (int i = 0; i < n_iter; i++)
            want += h_in[i * 128 + b * 64 + (63 - t)];
        if (t & 1)
            want += h_in[512 + g];
        if (h_out[g] != want)
            bad++;
    }
    for (int l = 0; l < 32; l++)
        if (h_cnt[l] != 4) /* 128 threads, lanes t & 31: 4 threads per counter */
            bad++;
    printf("trace_test: %s (%d mismatches)\n", bad ? "FAIL" : "ok", bad);
    return bad ? 1 : 0;
}
