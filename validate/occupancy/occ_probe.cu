// occ_probe.cu — ground truth for smsim's occupancy rules on a real GPU.
//
// For a grid of kernels (register counts 24..255 via __maxnreg__, static
// shared memory 0..48 KB, 0/1/4/8/16 block barriers) and launch settings
// (block sizes including non-multiples of 32, dynamic shared memory from 0
// to past the opt-in maximum, cudaFuncAttributeMaxDynamicSharedMemorySize
// default or raised to the opt-in maximum, preferred carveouts), it asks the
// CUDA runtime cudaOccupancyMaxActiveBlocksPerMultiprocessor and writes
// one CSV row per query.  Nothing is launched; the program takes seconds.
//
// usage: occ_probe OCCUPANCY.csv DEVICE.txt [KERNELS.csv]
//   OCCUPANCY.csv: kernel,threads,regs,smem_static,smem_dynamic,max_dynamic,
//                  carveout_pct,barriers,blocks_per_sm
//                  (blocks_per_sm -1: the runtime refused the query)
//   DEVICE.txt:    key=value device properties and versions
//   KERNELS.csv:   per-kernel attributes from cudaFuncGetAttributes
// Build and run with validate/occupancy/run.sh.
//
// SPDX-License-Identifier: GPL-3.0-or-later
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            std::fprintf(stderr, "occ_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorString(e_));                                    \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

// A kernel with enough live values to use about R registers (ptxas caps it at
// R with __maxnreg__; the count actually used is read back from the runtime),
// S bytes of static shared memory and B block barriers: B == 1 is
// __syncthreads(); B > 1 is bar.sync with id B-1, which makes ptxas reserve
// barriers 0..B-1 ("used B barriers" in ptxas -v).
template <int R, int S, int B>
__global__ void __maxnreg__(R) heavy(float *p, int n)
{
    constexpr int N = R > 96 ? R : 96; // live values: enough to fill R registers
    __shared__ float s[S > 0 ? S / 4 : 1];
    float a[N];
#pragma unroll
    for (int i = 0; i < N; i++)
        a[i] = p[i * n + threadIdx.x];
#pragma unroll
    for (int j = 0; j < 3; j++)
#pragma unroll
        for (int i = 0; i < N; i++)
            a[i] = a[i] * a[(i * 7 + j) % N] + a[(i * 13 + 5 + j) % N];
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < N; i++)
        acc += a[i] * (float)i;
    if (S > 0)
        s[threadIdx.x % (S > 0 ? S / 4 : 1)] = acc;
    if (B == 1)
        __syncthreads();
    if (B > 1)
        asm volatile("bar.sync %0;" ::"n"(B > 1 ? B - 1 : 0));
    if (S > 0)
        acc += s[(threadIdx.x + 1) % (S > 0 ? S / 4 : 1)];
    p[threadIdx.x] = acc;
}

// A small kernel (a handful of registers, no __maxnreg__).
template <int B>
__global__ void tiny(float *p)
{
    p[threadIdx.x] += 1.f;
    if (B == 1)
        __syncthreads();
    p[threadIdx.x + 1] *= 2.f;
}

struct kernel {
    const char *name;
    const void *fn;
    int barriers;     // block barriers, by construction (run.sh checks ptxas -v)
    int smem_static;  // bytes, by construction (checked against the runtime)
    int group;        // which launch sweeps use it (bit 0: dynamic, bit 1: carveout)
};

#define HEAVY(R, S, B, G) {"heavy_r" #R "_s" #S "_b" #B, (const void *)heavy<R, S, B>, B, S, G}

static const kernel kernels[] = {
    {"tiny_b0", (const void *)tiny<0>, 0, 0, 0},
    {"tiny_b1", (const void *)tiny<1>, 1, 0, 1},
    // register sweep
    HEAVY(24, 0, 1, 1), HEAVY(32, 0, 1, 3), HEAVY(40, 0, 1, 0), HEAVY(48, 0, 1, 0),
    HEAVY(56, 0, 1, 0), HEAVY(64, 0, 1, 1), HEAVY(72, 0, 1, 0), HEAVY(80, 0, 1, 0),
    HEAVY(96, 0, 1, 0), HEAVY(128, 0, 1, 1), HEAVY(168, 0, 1, 0), HEAVY(200, 0, 1, 0),
    HEAVY(232, 0, 1, 0), HEAVY(255, 0, 1, 1),
    // static shared memory sweep
    HEAVY(32, 1024, 1, 1), HEAVY(32, 12288, 1, 3), HEAVY(32, 40960, 1, 1),
    HEAVY(32, 49152, 1, 1), HEAVY(64, 1024, 1, 3), HEAVY(64, 12288, 1, 1),
    HEAVY(64, 40960, 1, 3), HEAVY(128, 12288, 1, 1), HEAVY(128, 49152, 1, 1),
    // barrier sweep (the limit is 2 x 32 / barriers on CC 9.0)
    HEAVY(32, 0, 0, 0), HEAVY(32, 0, 4, 0), HEAVY(32, 0, 8, 1), HEAVY(32, 0, 16, 1),
    HEAVY(64, 0, 16, 0), HEAVY(64, 12288, 8, 0),
};

static const int block_sizes[] = {1,   31,  32,  33,  64,  96,  100, 128, 192,
                                  255, 256, 384, 512, 640, 768, 1000, 1024};

struct probe {
    FILE *csv;
    long rows;
    long refused;
};

static void query(probe *pr, const kernel &k, const cudaFuncAttributes &fa, int threads,
                  int dyn, int max_dynamic, int carveout)
{
    int blocks = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.fn, threads,
                                                                  (size_t)dyn);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); // clear it; the row records the refusal
        blocks = -1;
        pr->refused++;
    }
    std::fprintf(pr->csv, "%s,%d,%d,%d,%d,%d,%d,%d,%d\n", k.name, threads, fa.numRegs,
                 (int)fa.sharedSizeBytes, dyn, max_dynamic, carveout, k.barriers, blocks);
    pr->rows++;
}

// Set the kernel's dynamic-shared-memory maximum and carveout preference
// (-1: cudaSharedmemCarveoutDefault, no preference) and read back the
// attributes the runtime will use.
static cudaFuncAttributes configure(const kernel &k, int max_dynamic, int carveout)
{
    cudaFuncAttributes fa;
    CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dynamic));
    CHECK(cudaFuncSetAttribute(k.fn, cudaFuncAttributePreferredSharedMemoryCarveout, carveout));
    CHECK(cudaFuncGetAttributes(&fa, k.fn));
    if (fa.maxDynamicSharedSizeBytes != max_dynamic) {
        std::fprintf(stderr, "occ_probe: %s: max dynamic %d read back as %d\n", k.name,
                     max_dynamic, fa.maxDynamicSharedSizeBytes);
        std::exit(1);
    }
    return fa;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: occ_probe OCCUPANCY.csv DEVICE.txt [KERNELS.csv]\n");
        return 2;
    }
    int dev = 0, drv = 0, rt = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    CHECK(cudaDriverGetVersion(&drv));
    CHECK(cudaRuntimeGetVersion(&rt));

    FILE *df = std::fopen(argv[2], "w");
    if (!df) {
        std::perror(argv[2]);
        return 1;
    }
    std::fprintf(df, "name=%s\ncc=%d.%d\nmultiProcessorCount=%d\nregsPerMultiprocessor=%d\n"
                 "regsPerBlock=%d\nsharedMemPerMultiprocessor=%zu\nsharedMemPerBlock=%zu\n"
                 "sharedMemPerBlockOptin=%zu\nreservedSharedMemPerBlock=%zu\n"
                 "maxBlocksPerMultiProcessor=%d\nmaxThreadsPerMultiProcessor=%d\n"
                 "maxThreadsPerBlock=%d\nwarpSize=%d\nl2CacheSize=%d\n"
                 "driverVersion=%d\nruntimeVersion=%d\n",
                 prop.name, prop.major, prop.minor, prop.multiProcessorCount,
                 prop.regsPerMultiprocessor, prop.regsPerBlock, prop.sharedMemPerMultiprocessor,
                 prop.sharedMemPerBlock, prop.sharedMemPerBlockOptin,
                 prop.reservedSharedMemPerBlock, prop.maxBlocksPerMultiProcessor,
                 prop.maxThreadsPerMultiProcessor, prop.maxThreadsPerBlock, prop.warpSize,
                 prop.l2CacheSize, drv, rt);
    std::fclose(df);

    probe pr = {std::fopen(argv[1], "w"), 0, 0};
    if (!pr.csv) {
        std::perror(argv[1]);
        return 1;
    }
    FILE *kf = argc > 3 ? std::fopen(argv[3], "w") : nullptr;
    if (argc > 3 && !kf) {
        std::perror(argv[3]);
        return 1;
    }
    std::fprintf(pr.csv, "kernel,threads,regs,smem_static,smem_dynamic,max_dynamic,"
                         "carveout_pct,barriers,blocks_per_sm\n");
    if (kf)
        std::fprintf(kf, "kernel,numRegs,sharedSizeBytes,maxDynamicSharedSizeBytes,"
                         "maxThreadsPerBlock,localSizeBytes,barriers,binaryVersion\n");

    const int optin = (int)prop.sharedMemPerBlockOptin;
    const int deflt = (int)prop.sharedMemPerBlock;
    const int nk = (int)(sizeof kernels / sizeof kernels[0]);
    const int nb = (int)(sizeof block_sizes / sizeof block_sizes[0]);

    for (int ki = 0; ki < nk; ki++) {
        const kernel &k = kernels[ki];
        const int st = k.smem_static;
        const int def_max = deflt - st; // the attribute's value before any opt-in
        const int opt_max = optin - st;

        cudaFuncAttributes fa = configure(k, def_max, -1);
        if ((int)fa.sharedSizeBytes != st) {
            std::fprintf(stderr, "occ_probe: %s: static shared memory %zu, expected %d\n",
                         k.name, fa.sharedSizeBytes, st);
            return 1;
        }
        if (kf)
            std::fprintf(kf, "%s,%d,%zu,%d,%d,%zu,%d,%d\n", k.name, fa.numRegs,
                         fa.sharedSizeBytes, fa.maxDynamicSharedSizeBytes, fa.maxThreadsPerBlock,
                         fa.localSizeBytes, k.barriers, fa.binaryVersion);

        // A. every kernel, every block size, no dynamic shared memory
        for (int b = 0; b < nb; b++)
            query(&pr, k, fa, block_sizes[b], 0, def_max, -1);

        // B. dynamic shared memory: up to and one byte past the default
        //    maximum, then (opted in) up to and one byte past the opt-in
        if (k.group & 1) {
            const int dyn_def[] = {1000, 8192, 30000, def_max, def_max + 1};
            const int dyn_opt[] = {def_max + 1, 65536, 100000, 167936, opt_max - 1000,
                                   opt_max, opt_max + 1};
            for (int b = 0; b < nb; b++)
                for (int d : dyn_def)
                    if (d >= 0)
                        query(&pr, k, fa, block_sizes[b], d, def_max, -1);
            cudaFuncAttributes fo = configure(k, opt_max, -1);
            for (int b = 0; b < nb; b++)
                for (int d : dyn_opt)
                    if (d >= 0)
                        query(&pr, k, fo, block_sizes[b], d, opt_max, -1);
        }

        // C. carveout preferences (opted in, so large blocks are legal)
        if (k.group & 2) {
            const int pcts[] = {0, 10, 25, 50, 75, 100};
            const int dyns[] = {0, 8192, 50000};
            for (int pct : pcts) {
                cudaFuncAttributes fc = configure(k, opt_max, pct);
                for (int b = 0; b < nb; b++)
                    for (int d : dyns)
                        query(&pr, k, fc, block_sizes[b], d, opt_max, pct);
            }
        }
        configure(k, def_max, -1); // leave the kernel as compiled
    }
    std::fclose(pr.csv);
    if (kf)
        std::fclose(kf);
    std::fprintf(stderr, "occ_probe: %s (CC %d.%d): %ld queries, %ld refused by the runtime\n",
                 prop.name, prop.major, prop.minor, pr.rows, pr.refused);
    return 0;
}
