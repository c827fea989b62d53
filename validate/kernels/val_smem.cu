// SPDX-License-Identifier: GPL-3.0-or-later
// VALIDATION 4 and 5: shared-memory kernels with block barriers.
//   tile  : TILES times: each thread loads one float from global into a
//           128-float shared tile, __syncthreads, then reads TAPS tile
//           entries (a fixed conflict-free pattern) into a dependent FFMA
//           accumulation, __syncthreads.  One float written per thread.
//   reduce: each thread sums ELEMS floats (coalesced), then a shared-memory
//           tree (128 -> 32 with __syncthreads) and a warp-shuffle tree
//           (32 -> 1); one float per block.
// Block 128 threads; residency swept by shared-memory padding (common.cuh).
// Inputs are small integers or hash floats the host recomputes:
//   tile: every thread's value is recomputed on the host in the same order
//         (fmaf), compared exactly;  reduce: integer-valued floats, so every
//         block sum is exact in float whatever the order; all compared.
#include "common.cuh"

constexpr int BLOCK = 128;
constexpr int TILES = 32;  // tile rounds per block
constexpr int TAPS = 16;   // shared reads per thread per tile
constexpr int ELEMS = 64;  // floats summed per thread (reduce)
constexpr size_t TILE_IN = (size_t)1 << 25;  // floats in the tile input (128 MiB), index wraps

__global__ void __launch_bounds__(BLOCK, 16)
    val_smem_tile(const float *__restrict__ in, float *__restrict__ out, float c) {
  __shared__ float tile[BLOCK];
  const int t = threadIdx.x;
  float acc = 0.0f;
  for (int r = 0; r < TILES; r++) {
    size_t g = (((size_t)blockIdx.x * TILES + r) * BLOCK + t) & (TILE_IN - 1);
    tile[t] = in[g];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TAPS; j++) acc = fmaf(tile[(t + 9 * j) & (BLOCK - 1)], c, acc);
    __syncthreads();
  }
  out[blockIdx.x * BLOCK + t] = acc;
}

__global__ void __launch_bounds__(BLOCK, 16)
    val_reduce(const float *__restrict__ in, float *__restrict__ out) {
  __shared__ float s[BLOCK];
  const int t = threadIdx.x;
  const float *p = in + (size_t)blockIdx.x * BLOCK * ELEMS + t;
  float v = 0.0f;
#pragma unroll 8
  for (int i = 0; i < ELEMS; i++) v += p[(size_t)i * BLOCK];
  s[t] = v;
  __syncthreads();
  for (int h = BLOCK / 2; h >= 32; h >>= 1) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  if (t < 32) {
    v = s[t];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (t == 0) out[blockIdx.x] = v;
  }
}

__global__ void init_tile_in(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i);
}

__host__ __device__ inline float reduce_value(size_t i) { return (float)(kit::hash32((uint32_t)i) & 15u); }

__global__ void init_reduce_in(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) x[i] = reduce_value(i);
}

int main(int argc, char **argv) {
  auto known = kit::sweep_known();
  kit::Args args(argc, argv, known);
  kit::Device d = kit::open_device("smem");
  kit::SweepOpts o = kit::sweep_opts(args);
  auto variants = args.words("variant", "tile,reduce");
  long long maxb = *std::max_element(o.res.begin(), o.res.end());
  size_t maxblocks = (size_t)d.prop.multiProcessorCount * maxb * o.waves;
  int failures = 0;

  for (const std::string &v : variants) {
    if (v == "tile") {
      float *in, *out;
      const float c = 0.5f;
      CK(cudaMalloc(&in, TILE_IN * sizeof(float)));
      CK(cudaMalloc(&out, maxblocks * BLOCK * sizeof(float)));
      init_tile_in<<<1024, 256>>>(in, TILE_IN);
      CK(cudaGetLastError());
      std::vector<float> h_in(TILE_IN), h_out(maxblocks * BLOCK);
      CK(cudaMemcpy(h_in.data(), in, TILE_IN * sizeof(float), cudaMemcpyDeviceToHost));
      char extra[96];
      std::snprintf(extra, sizeof extra, "tiles=%d taps=%d", TILES, TAPS);
      failures += kit::sweep(
          "smem", d, o, "val_smem_tile", (const void *)val_smem_tile, BLOCK,
          [&](const kit::Point &p) { CK(cudaMemset(out, 0xff, (size_t)p.grid * BLOCK * sizeof(float))); },
          [&](const kit::Point &p) { val_smem_tile<<<p.grid, BLOCK, p.dyn>>>(in, out, c); },
          [&](const kit::Point &p, std::string &detail) {
            size_t nth = (size_t)p.grid * BLOCK;
            CK(cudaMemcpy(h_out.data(), out, nth * sizeof(float), cudaMemcpyDeviceToHost));
            size_t bad = 0;
            // Check every thread of a spread of blocks (all blocks is ~1 s of CPU at b=16).
            for (size_t blk = 0; blk < (size_t)p.grid; blk++) {
              if (!(blk < 64 || blk % 37 == 0 || blk + 1 == (size_t)p.grid)) continue;
              for (int t = 0; t < BLOCK; t++) {
                float acc = 0.0f;
                for (int r = 0; r < TILES; r++) {
                  size_t base = ((blk * TILES + r) * BLOCK) & (TILE_IN - 1);
                  for (int j = 0; j < TAPS; j++)
                    acc = std::fmaf(h_in[(base + ((t + 9 * j) & (BLOCK - 1))) & (TILE_IN - 1)], c, acc);
                }
                if (h_out[blk * BLOCK + t] != acc) bad++;
              }
            }
            detail = "bad=" + std::to_string(bad);
            return bad == 0;
          },
          extra);
      CK(cudaFree(in));
      CK(cudaFree(out));
    } else if (v == "reduce") {
      size_t n = maxblocks * BLOCK * ELEMS;
      float *in, *out;
      CK(cudaMalloc(&in, n * sizeof(float)));
      CK(cudaMalloc(&out, maxblocks * sizeof(float)));
      init_reduce_in<<<1024, 256>>>(in, n);
      CK(cudaGetLastError());
      std::vector<float> want(maxblocks), got(maxblocks);
      for (size_t b = 0; b < maxblocks; b++) {
        uint32_t s = 0;
        for (size_t i = b * BLOCK * ELEMS; i < (b + 1) * BLOCK * ELEMS; i++) s += kit::hash32((uint32_t)i) & 15u;
        want[b] = (float)s;
      }
      char extra[96];
      std::snprintf(extra, sizeof extra, "elems_per_thread=%d", ELEMS);
      failures += kit::sweep(
          "smem", d, o, "val_reduce", (const void *)val_reduce, BLOCK,
          [&](const kit::Point &p) { CK(cudaMemset(out, 0xff, (size_t)p.grid * sizeof(float))); },
          [&](const kit::Point &p) { val_reduce<<<p.grid, BLOCK, p.dyn>>>(in, out); },
          [&](const kit::Point &p, std::string &detail) {
            CK(cudaMemcpy(got.data(), out, (size_t)p.grid * sizeof(float), cudaMemcpyDeviceToHost));
            size_t bad = 0;
            for (int b = 0; b < p.grid; b++)
              if (got[b] != want[b]) bad++;
            detail = "bad=" + std::to_string(bad);
            return bad == 0;
          },
          extra);
      CK(cudaFree(in));
      CK(cudaFree(out));
    } else {
      kit::Args::die("unknown variant " + v);
    }
  }
  return failures ? 1 : 0;
}
