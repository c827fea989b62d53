// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION: DRAM bandwidth and the SM clock.
//
//   copy : dst[i] = src[i], float4, grid-stride, full occupancy; bandwidth =
//          (bytes read + bytes written) / time  (the figure KINDS.md quotes)
//   read : sum of src (float4), one float written per thread
//   write: dst[i] = constant (float4)
// Buffers are far larger than L2 (default 1 GiB each), so each pass streams
// from/to DRAM.  Times are CUDA events, median of --reps after --warm.
//   clock: one block per SM spins for --spin-ns of %globaltimer while
//          counting clock64(); SM MHz = cycles / ns * 1000, read right after
//          the bandwidth runs (the card is warm then), so cycle-based and
//          time-based figures can be converted.
// With --ncu only one copy launch is made (for ncu to profile).
#include "common.cuh"

__global__ void bw_copy(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

__global__ void bw_read(const float4 *__restrict__ src, size_t n, float *out) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float s = 0.0f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 v = src[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = s;
}

__global__ void bw_write(float4 *__restrict__ dst, size_t n, float value) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float4 v = make_float4(value, value, value, value);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = v;
}

__global__ void init_pattern(float4 *dst, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    float f = (float)(i & 1023);
    dst[i] = make_float4(f, f + 1, f + 2, f + 3);
  }
}

__global__ void count_mismatch(const float4 *a, const float4 *b, size_t n, unsigned long long *bad) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 x = a[i], y = b[i];
    c += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
  }
  if (c) atomicAdd(bad, c);
}

// out[2*blk] = clock cycles, out[2*blk+1] = globaltimer ns, over the same spin.
__global__ void clock_probe(long long spin_ns, long long *out) {
  if (threadIdx.x != 0) return;
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  } while ((long long)(g1 - g0) < spin_ns);
  long long c1 = clock64();
  out[2 * blockIdx.x] = c1 - c0;
  out[2 * blockIdx.x + 1] = (long long)(g1 - g0);
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"bytes", "block", "reps", "warm", "ncu", "spin-ns"});
  kit::Device d = kit::open_device("bw");
  size_t bytes = (size_t)a.num("bytes", 1LL << 30);
  int block = (int)a.num("block", 256);
  int reps = (int)a.num("reps", 10);
  int warm = (int)a.num("warm", 2);
  bool ncu = a.has("ncu");
  long long spin_ns = a.num("spin-ns", 2000000);
  size_t n = bytes / sizeof(float4);
  bytes = n * sizeof(float4);

  float4 *src, *dst;
  float *partial;
  unsigned long long *bad;
  CK(cudaMalloc(&src, bytes));
  CK(cudaMalloc(&dst, bytes));
  CK(cudaMalloc(&bad, sizeof(unsigned long long)));

  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bw_copy, block, 0));
  int grid = per_sm * d.prop.multiProcessorCount;
  CK(cudaMalloc(&partial, (size_t)grid * block * sizeof(float)));
  init_pattern<<<grid, block>>>(src, n);
  CK(cudaGetLastError());
  CK(cudaMemset(dst, 0, bytes));
  CK(cudaDeviceSynchronize());
  std::printf("INFO prog=bw bytes_per_buffer=%zu grid=%d block=%d blocks_per_sm=%d\n", bytes,
              grid, block, per_sm);

  if (ncu) {
    std::printf("LAUNCH seq=0 prog=bw kernel=bw_copy grid=%d block=%d\n", grid, block);
    std::fflush(stdout);
    bw_copy<<<grid, block>>>(src, dst, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return 0;
  }

  struct Case {
    const char *name;
    double traffic;  // bytes moved through DRAM per launch
  };
  Case cases[3] = {{"copy", 2.0 * bytes}, {"read", 1.0 * bytes}, {"write", 1.0 * bytes}};
  int failures = 0;
  for (int c = 0; c < 3; c++) {
    kit::Timing t;
    if (c == 0) t = kit::time_launches([&] { bw_copy<<<grid, block>>>(src, dst, n); }, warm, reps);
    if (c == 1) t = kit::time_launches([&] { bw_read<<<grid, block>>>(src, n, partial); }, warm, reps);
    if (c == 2) t = kit::time_launches([&] { bw_write<<<grid, block>>>(dst, n, 1.0f); }, warm, reps);
    std::string check = "na";
    if (c == 0) {
      CK(cudaMemset(bad, 0, sizeof(unsigned long long)));
      count_mismatch<<<grid, block>>>(src, dst, n, bad);
      CK(cudaGetLastError());
      unsigned long long hb = 0;
      CK(cudaMemcpy(&hb, bad, sizeof(hb), cudaMemcpyDeviceToHost));
      check = hb ? "FAIL" : "ok";
      if (hb) failures++;
    }
    std::printf(
        "CALIB prog=bw kernel=%s bytes_per_buffer=%zu traffic_bytes=%.0f grid=%d block=%d "
        "ms_med=%.4f ms_min=%.4f GBps_med=%.1f GBps_max=%.1f reps=%d check=%s\n",
        cases[c].name, bytes, cases[c].traffic, grid, block, t.med_ms, t.min_ms,
        cases[c].traffic / (t.med_ms * 1e6), cases[c].traffic / (t.min_ms * 1e6), t.reps,
        check.c_str());
    std::fflush(stdout);
  }

  // SM clock right after the streaming runs.
  int nsm = d.prop.multiProcessorCount;
  long long *probe;
  CK(cudaMalloc(&probe, 2 * nsm * sizeof(long long)));
  clock_probe<<<nsm, 32>>>(spin_ns, probe);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<long long> h(2 * nsm);
  CK(cudaMemcpy(h.data(), probe, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<double> mhz;
  for (int i = 0; i < nsm; i++)
    if (h[2 * i + 1] > 0) mhz.push_back((double)h[2 * i] / (double)h[2 * i + 1] * 1000.0);
  std::sort(mhz.begin(), mhz.end());
  if (!mhz.empty())
    std::printf("CALIB prog=bw kernel=clock sm_mhz_med=%.1f sm_mhz_min=%.1f sm_mhz_max=%.1f "
                "spin_ns=%lld blocks=%d\n",
                mhz[mhz.size() / 2], mhz.front(), mhz.back(), spin_ns, nsm);
  return failures ? 1 : 0;
}
