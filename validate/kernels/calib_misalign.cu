// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17, item 3): the cost of warp loads that span two
// cache lines, in flight by many warps (in-SM memory pipeline and L1 miss
// path).
//
// mis_read<L>: every thread keeps exactly L independent 4-byte loads
// (LDG.E, plain, L1-allocating) in flight: one trip issues L loads T floats
// apart (T = threads in the grid), then sums them; the trip loop is not
// unrolled.  Each warp load covers 128 contiguous bytes starting `off` floats
// past a 128-byte line boundary: off = 0 touches one line (4 sectors),
// off = 1 two lines (5 sectors; the second line is the next warp's first).
// Footprint: `dram` reads 1 GiB once; `l2` re-reads a 16 MiB window (fits
// the L2, far beyond L1); `l1` (kit7) re-reads a 16 KiB window that every SM
// shares (L1 hits after the first touch: the L1 hit path's throughput for
// one-line and two-line warp loads, what stencil5's neighbour loads need).  Residency b blocks of 128 threads per SM
// (dynamic shared memory padding, carveout 100, one persistent wave).
//   L = 8; off in {0, 1}; foot in {l2, dram, l1}; b in {1, 2, 4, 8, 16}.
//   --ncu: one launch per point; default: CUDA-event timing, median of --reps.
// Check: thread 0's and the last thread's sums against a host recomputation.
#include "common.cuh"

constexpr int BLOCK = 128;
constexpr int L = 8;

__global__ void __launch_bounds__(BLOCK, 16)
    mis_read(const float *__restrict__ src, unsigned off, unsigned mask, unsigned trips,
             float *__restrict__ out) {
  const unsigned T = gridDim.x * BLOCK;
  const unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  float s = 0.0f;
  unsigned base = g;
#pragma unroll 1
  for (unsigned t = 0; t < trips; t++, base += L * T) {
    float v[L];
#pragma unroll
    for (int k = 0; k < L; k++) v[k] = src[((base + k * T) & mask) + off];
#pragma unroll
    for (int k = 0; k < L; k++) s += v[k];
  }
  out[g] = s;
}

__global__ void init_f(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i);
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "res", "offs", "foots", "reps", "warm"});
  kit::Device d = kit::open_device("misalign");
  const int nsm = d.prop.multiProcessorCount;
  auto res = a.list("res", "1,2,4,8,16");
  auto offs = a.list("offs", "0,1");
  auto foots = a.words("foots", "l2,dram");
  int reps = (int)a.num("reps", 5), warm = (int)a.num("warm", 1);
  bool ncu = a.has("ncu");
  const size_t big = (size_t)1 << 28;  // floats: 1 GiB
  float *src, *out;
  CK(cudaMalloc(&src, (big + 64) * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)nsm * 16 * BLOCK * sizeof(float)));
  init_f<<<1024, 256>>>(src, big + 64);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  kit::KernelInfo ki = kit::kernel_info("mis_read", (const void *)mis_read, BLOCK);
  int seq = 0, failures = 0;
  for (const std::string &foot : foots) {
    if (foot != "l2" && foot != "dram" && foot != "l1") kit::Args::die("unknown footprint " + foot + " (l2, dram or l1)");
    // l2: a 16 MiB window read 16 times over (the first pass from DRAM);
    // l1: a 16 KiB window, 256 MiB read per launch
    const unsigned mask = foot == "l2" ? (1u << 22) - 1 : foot == "l1" ? (1u << 12) - 1 : 0xffffffffu;
    const size_t total = foot == "dram" ? big : (size_t)1 << 26;  // floats read per launch
    for (long long off : offs)
      for (long long bl : res) {
        int b = (int)bl;
        kit::Point p;
        std::string why;
        if (!kit::plan_point(d, (const void *)mis_read, ki, BLOCK, b, 1, p, why)) {
          std::printf("SKIP prog=misalign foot=%s off=%lld b=%d why=%s\n", foot.c_str(), off, b, why.c_str());
          continue;
        }
        size_t T = (size_t)p.grid * BLOCK;
        size_t trips = total / (T * L);
        double moved = (double)trips * L * T * 4;
        auto launch = [&] { mis_read<<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)off, mask, (unsigned)trips, out); };
        kit::Timing t;
        if (ncu) {
          std::printf("LAUNCH seq=%d prog=misalign kernel=mis_read foot=%s off=%lld b=%d dyn=%d grid=%d "
                      "block=%d trips=%zu bytes=%.0f\n", seq++, foot.c_str(), off, b, p.dyn, p.grid, BLOCK,
                      trips, moved);
          std::fflush(stdout);
          launch();
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        } else {
          t = kit::time_launches(launch, warm, reps);
        }
        bool ok = true;
        for (size_t g : {(size_t)0, T - 1}) {
          float s = 0.0f;
          for (size_t tr = 0; tr < trips; tr++)
            for (int k = 0; k < L; k++) {
              uint32_t e = (uint32_t)((tr * L * T + g + (size_t)k * T) & mask) + (uint32_t)off;
              s += kit::hash_float(e);
            }
          float h = 0;
          CK(cudaMemcpy(&h, out + g, 4, cudaMemcpyDeviceToHost));
          if (h != s) ok = false;
        }
        if (!ok) failures++;
        std::printf("MIS prog=misalign kernel=mis_read foot=%s off=%lld b=%d warps_per_sm=%d grid=%d dyn=%d "
                    "trips=%zu bytes=%.0f mode=%s ms_med=%.4f ms_min=%.4f GBps_med=%.1f reps=%d check=%s\n",
                    foot.c_str(), off, b, b * BLOCK / 32, p.grid, p.dyn, trips, moved, ncu ? "ncu" : "time",
                    t.med_ms, t.min_ms, ncu ? 0.0 : moved / (t.med_ms * 1e6), t.reps, ok ? "ok" : "FAIL");
        std::fflush(stdout);
      }
  }
  return failures ? 1 : 0;
}
