// SPDX-License-Identifier: GPL-3.0-or-later
// VALIDATION 2 and 8: streaming kernels.
//   copy  : float4 copy; each block moves one contiguous chunk of
//           COPY_PER_THREAD float4 per thread (coalesced, 4-way unrolled).
//   vecadd: c = a + b on floats; each block handles VADD_PER_THREAD floats per
//           thread of one contiguous chunk.
// The work per block is fixed, so a launch of SMs*b*waves blocks moves more
// bytes at higher b; the chunk sizes make even the b = 1 launch (528 blocks)
// move about 200 MB, several times the L2, so repeated timing launches still
// stream from DRAM (ncu flushes the caches between its passes anyway).
// Check: copy compares every element (device-side count); vecadd samples.
#include "common.cuh"

constexpr int BLOCK = 128;
constexpr int COPY_PER_THREAD = 96;   // float4 per thread: 192 KiB per block
constexpr int VADD_PER_THREAD = 128;  // floats per thread: 64 KiB of c per block

__global__ void __launch_bounds__(BLOCK, 16)
    val_copy_f4(const float4 *__restrict__ src, float4 *__restrict__ dst) {
  size_t base = (size_t)blockIdx.x * BLOCK * COPY_PER_THREAD + threadIdx.x;
#pragma unroll 4
  for (int i = 0; i < COPY_PER_THREAD; i++) dst[base + (size_t)i * BLOCK] = src[base + (size_t)i * BLOCK];
}

__global__ void __launch_bounds__(BLOCK, 16)
    val_vecadd(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c) {
  size_t base = (size_t)blockIdx.x * BLOCK * VADD_PER_THREAD + threadIdx.x;
#pragma unroll 4
  for (int i = 0; i < VADD_PER_THREAD; i++) {
    size_t k = base + (size_t)i * BLOCK;
    c[k] = a[k] + b[k];
  }
}

__global__ void init_f(float *x, size_t n, uint32_t salt) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i ^ salt);
}

__global__ void count_mismatch_f4(const float4 *a, const float4 *b, size_t n, unsigned long long *bad) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 x = a[i], y = b[i];
    c += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
  }
  if (c) atomicAdd(bad, c);
}

int main(int argc, char **argv) {
  auto known = kit::sweep_known();
  kit::Args args(argc, argv, known);
  kit::Device d = kit::open_device("stream");
  kit::SweepOpts o = kit::sweep_opts(args);
  auto variants = args.words("variant", "copy,vecadd");
  long long maxb = *std::max_element(o.res.begin(), o.res.end());
  size_t maxblocks = (size_t)d.prop.multiProcessorCount * maxb * o.waves;
  int failures = 0;
  unsigned long long *bad;
  CK(cudaMalloc(&bad, sizeof(unsigned long long)));

  for (const std::string &v : variants) {
    if (v == "copy") {
      size_t n4 = maxblocks * BLOCK * COPY_PER_THREAD;  // float4 per buffer
      float4 *src, *dst;
      CK(cudaMalloc(&src, n4 * sizeof(float4)));
      CK(cudaMalloc(&dst, n4 * sizeof(float4)));
      init_f<<<1024, 256>>>((float *)src, n4 * 4, 0x1234u);
      CK(cudaGetLastError());
      char extra[96];
      std::snprintf(extra, sizeof extra, "bytes_per_block=%d", BLOCK * COPY_PER_THREAD * 16 * 2);
      failures += kit::sweep(
          "stream", d, o, "val_copy_f4", (const void *)val_copy_f4, BLOCK,
          [&](const kit::Point &p) { CK(cudaMemset(dst, 0xff, (size_t)p.grid * BLOCK * COPY_PER_THREAD * 16)); },
          [&](const kit::Point &p) { val_copy_f4<<<p.grid, BLOCK, p.dyn>>>(src, dst); },
          [&](const kit::Point &p, std::string &detail) {
            CK(cudaMemset(bad, 0, sizeof(unsigned long long)));
            count_mismatch_f4<<<1024, 256>>>(src, dst, (size_t)p.grid * BLOCK * COPY_PER_THREAD, bad);
            CK(cudaGetLastError());
            unsigned long long hb = 0;
            CK(cudaMemcpy(&hb, bad, sizeof hb, cudaMemcpyDeviceToHost));
            detail = "bad=" + std::to_string(hb);
            return hb == 0;
          },
          extra);
      CK(cudaFree(src));
      CK(cudaFree(dst));
    } else if (v == "vecadd") {
      size_t n = maxblocks * BLOCK * VADD_PER_THREAD;
      float *a, *b, *c;
      CK(cudaMalloc(&a, n * sizeof(float)));
      CK(cudaMalloc(&b, n * sizeof(float)));
      CK(cudaMalloc(&c, n * sizeof(float)));
      init_f<<<1024, 256>>>(a, n, 0x1111u);
      init_f<<<1024, 256>>>(b, n, 0x2222u);
      CK(cudaGetLastError());
      char extra[96];
      std::snprintf(extra, sizeof extra, "bytes_per_block=%d", BLOCK * VADD_PER_THREAD * 4 * 3);
      failures += kit::sweep(
          "stream", d, o, "val_vecadd", (const void *)val_vecadd, BLOCK,
          [&](const kit::Point &p) { CK(cudaMemset(c, 0xff, (size_t)p.grid * BLOCK * VADD_PER_THREAD * 4)); },
          [&](const kit::Point &p) { val_vecadd<<<p.grid, BLOCK, p.dyn>>>(a, b, c); },
          [&](const kit::Point &p, std::string &detail) {
            size_t m = (size_t)p.grid * BLOCK * VADD_PER_THREAD;
            kit::Rng r(m);
            size_t badc = 0;
            for (int s = 0; s < 4096; s++) {
              size_t i = s == 0 ? m - 1 : (size_t)r.below(m);  // always include the last
              float hc = 0;
              CK(cudaMemcpy(&hc, c + i, sizeof(float), cudaMemcpyDeviceToHost));
              float want = kit::hash_float((uint32_t)i ^ 0x1111u) + kit::hash_float((uint32_t)i ^ 0x2222u);
              if (hc != want) badc++;
            }
            detail = "bad_of_4096_samples=" + std::to_string(badc);
            return badc == 0;
          },
          extra);
      CK(cudaFree(a));
      CK(cudaFree(b));
      CK(cudaFree(c));
    } else {
      kit::Args::die("unknown variant " + v);
    }
  }
  return failures ? 1 : 0;
}
