// SPDX-License-Identifier: GPL-3.0-or-later
// VALIDATION (issue #19, not calibration): the seeds' H100 occupancy example
// (shared/seeds/001, traces/seeds_32x12k.trace) measured on the H200:
// 32-thread blocks, 12 KB static shared memory per block (shared memory limits
// residency to 17 blocks/SM with the 1 KiB reserve), ~27 SASS instructions
// per thread, n = 4,194,304 floats -> 131,072 blocks (~58 waves).  Kernel body
// exactly as the seed writes it.  Short blocks: the block launch rate, not the
// SM's issue logic, sets achieved occupancy and time.
//   --ncu: one launch (profiled); default: CUDA-event timing (median of --reps).
// Check: out[t] == 2 * in[t] for every t.
#include "common.cuh"

__global__ void val_seed32x12k(const float *in, float *out, int n) {
  __shared__ float tile[3072];  // 12 KB
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    tile[threadIdx.x % 3072] = in[t];
    __syncthreads();
    out[t] = tile[threadIdx.x % 3072] * 2.0f;
  }
}

__global__ void init_in(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = kit::hash_float((uint32_t)i);
}

__global__ void count_bad(const float *in, const float *out, int n, unsigned long long *bad) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && out[i] != in[i] * 2.0f) atomicAdd(bad, 1ull);
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "n", "reps", "warm"});
  kit::Device d = kit::open_device("seed32x12k");
  int n = (int)a.num("n", 4194304);
  int reps = (int)a.num("reps", 9), warm = (int)a.num("warm", 3);
  bool ncu = a.has("ncu");
  const int block = 32;
  int grid = (n + block - 1) / block;
  float *in, *out;
  unsigned long long *bad;
  CK(cudaMalloc(&in, (size_t)n * 4));
  CK(cudaMalloc(&out, (size_t)n * 4));
  CK(cudaMalloc(&bad, 8));
  init_in<<<(n + 255) / 256, 256>>>(in, n);
  CK(cudaGetLastError());
  CK(cudaMemset(out, 0xff, (size_t)n * 4));  // poison (NaN)
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, val_seed32x12k, block, 0));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, (const void *)val_seed32x12k));
  CK(cudaDeviceSynchronize());
  kit::Timing t;
  if (ncu) {
    std::printf("LAUNCH seq=0 prog=seed32x12k kernel=val_seed32x12k grid=%d block=%d dyn=0 n=%d\n", grid,
                block, n);
    std::fflush(stdout);
    val_seed32x12k<<<grid, block>>>(in, out, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  } else {
    t = kit::time_launches([&] { val_seed32x12k<<<grid, block>>>(in, out, n); }, warm, reps);
  }
  CK(cudaMemset(bad, 0, 8));
  count_bad<<<(n + 255) / 256, 256>>>(in, out, n, bad);
  CK(cudaGetLastError());
  unsigned long long hb = 0;
  CK(cudaMemcpy(&hb, bad, 8, cudaMemcpyDeviceToHost));
  std::printf("VALID prog=seed32x12k kernel=val_seed32x12k grid=%d block=%d n=%d occ_api=%d regs=%d "
              "static_smem=%d waves=%.2f mode=%s us_med=%.3f us_min=%.3f us_max=%.3f reps=%d bad=%llu "
              "check=%s\n",
              grid, block, n, occ, fa.numRegs, (int)fa.sharedSizeBytes,
              (double)grid / (occ * d.prop.multiProcessorCount), ncu ? "ncu" : "time", t.med_ms * 1e3,
              t.min_ms * 1e3, t.max_ms * 1e3, t.reps, hb, hb ? "FAIL" : "ok");
  return hb ? 1 : 0;
}
