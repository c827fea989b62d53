// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17, item 7): L1 and L2 capacity -> hit rate and
// bandwidth vs footprint (latency vs footprint comes from calib_chase sweeps).
//
//   cap_l1: one block of 256 threads per SM (grid = SMs); block i reads its
//           own `footprint` bytes (disjoint per block) `rounds` times in the
//           same order, coalesced float4, plain ld.global (L1-cached).
//           Round 1 misses; later rounds hit in L1 while the footprint fits,
//           so l1tex__t_sector_hit_rate -> (rounds-1)/rounds below the
//           capacity and falls above it (how fast shows the replacement
//           policy: LRU on a cyclic sweep gives ~0).  --carveouts sets
//           cudaFuncAttributePreferredSharedMemoryCarveout (-1 = not set; 0 =
//           most L1; 100 = most shared memory, as the validation kit runs).
//   cap_l2: the whole grid (SMs * 4 blocks of 256) reads one `footprint`
//           `rounds` times, grid-stride, ld.global.cg (L1 bypassed): the L2
//           sector hit rate tends to (rounds-1)/rounds while the footprint
//           fits the L2.
// ncu flushes the caches before every profiled pass (--cache-control all), so
// round 1 always misses.  --ncu: one launch per point (LAUNCH lines); default:
// CUDA-event timing (median of --reps), CAP lines with GB/s.
#include "common.cuh"

constexpr int BLOCK = 256;

__device__ __forceinline__ float4 ld_cg4(const float4 *p) {
  float4 v;
  asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

__global__ void __launch_bounds__(BLOCK) cap_l1(const float4 *__restrict__ buf, unsigned n4_per_block, int rounds,
                                                float *out) {
  const float4 *b = buf + (size_t)blockIdx.x * n4_per_block;
  float s = 0.0f;
#pragma unroll 1
  for (int r = 0; r < rounds; r++) {
#pragma unroll 4
    for (unsigned i = threadIdx.x; i < n4_per_block; i += BLOCK) {
      float4 v = b[i];
      s += (v.x + v.y) + (v.z + v.w);
    }
  }
  out[blockIdx.x * BLOCK + threadIdx.x] = s;
}

__global__ void __launch_bounds__(BLOCK) cap_l2(const float4 *__restrict__ buf, unsigned n4, int rounds, float *out) {
  const unsigned T = gridDim.x * BLOCK, g = blockIdx.x * BLOCK + threadIdx.x;
  float s = 0.0f;
#pragma unroll 1
  for (int r = 0; r < rounds; r++) {
#pragma unroll 4
    for (unsigned i = g; i < n4; i += T) {
      float4 v = ld_cg4(buf + i);
      s += (v.x + v.y) + (v.z + v.w);
    }
  }
  out[g] = s;
}

__global__ void init_f(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) x[i] = (float)(i & 7);
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "levels", "l1-footprints", "l2-footprints", "carveouts", "rounds-l1", "rounds-l2",
                           "reps", "warm"});
  kit::Device d = kit::open_device("cachecap");
  const int nsm = d.prop.multiProcessorCount;
  auto levels = a.words("levels", "l1,l2");
  auto l1fp = a.list("l1-footprints", "8K,16K,24K,32K,48K,64K,96K,128K,160K,192K,208K,224K,240K,256K,320K");
  auto l2fp = a.list("l2-footprints", "1M,2M,4M,8M,16M,24M,32M,40M,48M,56M,64M,80M,96M,128M,160M");
  auto carveouts = a.list("carveouts", "-1,0,100");
  int rl1 = (int)a.num("rounds-l1", 16), rl2 = (int)a.num("rounds-l2", 8);
  int reps = (int)a.num("reps", 5), warm = (int)a.num("warm", 1);
  bool ncu = a.has("ncu");
  long long max1 = *std::max_element(l1fp.begin(), l1fp.end()) * nsm;
  long long max2 = *std::max_element(l2fp.begin(), l2fp.end());
  size_t bytes = (size_t)std::max(max1, max2);
  float4 *buf;
  float *out;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMalloc(&out, (size_t)nsm * 4 * BLOCK * 4));
  init_f<<<1024, 256>>>((float *)buf, bytes / 4);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int seq = 0;
  for (const std::string &lv : levels) {
    if (lv == "l1") {
      for (long long co : carveouts) {
        if (co >= 0) CK(cudaFuncSetAttribute(cap_l1, cudaFuncAttributePreferredSharedMemoryCarveout, (int)co));
        for (long long fp : l1fp) {
          unsigned n4 = (unsigned)(fp / 16);
          int grid = nsm;
          kit::Timing t;
          if (ncu) {
            std::printf("LAUNCH seq=%d prog=cachecap kernel=cap_l1 carveout=%lld footprint=%lld rounds=%d grid=%d "
                        "block=%d\n", seq++, co, fp, rl1, grid, BLOCK);
            std::fflush(stdout);
            cap_l1<<<grid, BLOCK>>>(buf, n4, rl1, out);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
          } else {
            t = kit::time_launches([&] { cap_l1<<<grid, BLOCK>>>(buf, n4, rl1, out); }, warm, reps);
          }
          double moved = (double)fp * nsm * rl1;
          std::printf("CAP prog=cachecap level=l1 carveout=%lld footprint=%lld footprint_total=%lld rounds=%d "
                      "mode=%s us_med=%.3f GBps_med=%.1f bytes_per_clk_per_sm_at_1980MHz=%.2f\n",
                      co, fp, fp * nsm, rl1, ncu ? "ncu" : "time", t.med_ms * 1e3,
                      ncu ? 0.0 : moved / (t.med_ms * 1e6),
                      ncu ? 0.0 : moved / (t.med_ms * 1e-3) / nsm / 1.98e9);
          std::fflush(stdout);
        }
      }
      CK(cudaFuncSetAttribute(cap_l1, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
    } else if (lv == "l2") {
      for (long long fp : l2fp) {
        unsigned n4 = (unsigned)(fp / 16);
        int grid = nsm * 4;
        kit::Timing t;
        if (ncu) {
          std::printf("LAUNCH seq=%d prog=cachecap kernel=cap_l2 footprint=%lld rounds=%d grid=%d block=%d\n",
                      seq++, fp, rl2, grid, BLOCK);
          std::fflush(stdout);
          cap_l2<<<grid, BLOCK>>>(buf, n4, rl2, out);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        } else {
          t = kit::time_launches([&] { cap_l2<<<grid, BLOCK>>>(buf, n4, rl2, out); }, warm, reps);
        }
        double moved = (double)fp * rl2;
        std::printf("CAP prog=cachecap level=l2 footprint=%lld rounds=%d mode=%s us_med=%.3f GBps_med=%.1f\n", fp,
                    rl2, ncu ? "ncu" : "time", t.med_ms * 1e3, ncu ? 0.0 : moved / (t.med_ms * 1e6));
        std::fflush(stdout);
      }
    } else {
      kit::Args::die("levels: l1,l2");
    }
  }
  return 0;
}
