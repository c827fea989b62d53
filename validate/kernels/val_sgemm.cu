// SPDX-License-Identifier: GPL-3.0-or-later
// VALIDATION 6: classic shared-memory tiled SGEMM, C = A * B (row-major fp32).
//
// Block 64 threads (8 x 8) computes one 64 x 64 tile of C with 8 x 8 outputs
// per thread held in registers.  Per K step of 8: the block stages A[64x8]
// (stored transposed, As[k][m]) and B[8x64] into shared memory with float4
// loads, __syncthreads, 8 rank-1 updates of the register tile from shared
// memory (float4 reads), __syncthreads.  K = 256 for every block.
// Block b of a launch computes tile (b % TILES_M, b / TILES_M); C is sized so
// that every block of the largest launch has its own tile.
// Check: 512 sampled C entries against a double-precision host product,
// |c - ref| <= 1e-5 * sum_k |a||b| + 1e-6.
#include "common.cuh"

constexpr int BLOCK = 64;
constexpr int TM = 64, TN = 64, TK = 8;  // block tile
constexpr int K = 256;
constexpr int TILES_M = 64;  // M = 4096

__global__ void __launch_bounds__(BLOCK, 8)
    val_sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N) {
  __shared__ __align__(16) float As[TK][TM];
  __shared__ __align__(16) float Bs[TK][TN];
  const int t = threadIdx.x;
  const int tx = t % 8, ty = t / 8;
  const int m0 = (blockIdx.x % TILES_M) * TM;
  const int n0 = (blockIdx.x / TILES_M) * TN;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; i++)
#pragma unroll
    for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TK) {
    // A tile: thread t loads row m0+t, columns k0..k0+7 (two float4).
    const float4 *ap = (const float4 *)(A + (size_t)(m0 + t) * K + k0);
    float4 a0 = ap[0], a1 = ap[1];
    As[0][t] = a0.x; As[1][t] = a0.y; As[2][t] = a0.z; As[3][t] = a0.w;
    As[4][t] = a1.x; As[5][t] = a1.y; As[6][t] = a1.z; As[7][t] = a1.w;
    // B tile: 8 rows x 16 float4; thread t loads row t/16 (+4), float4 t%16.
    const int br = t / 16, bc = (t % 16) * 4;
    *(float4 *)&Bs[br][bc] = *(const float4 *)(B + (size_t)(k0 + br) * N + n0 + bc);
    *(float4 *)&Bs[br + 4][bc] = *(const float4 *)(B + (size_t)(k0 + br + 4) * N + n0 + bc);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < TK; kk++) {
      float a[8], b[8];
      float4 x0 = *(const float4 *)&As[kk][ty * 8], x1 = *(const float4 *)&As[kk][ty * 8 + 4];
      float4 y0 = *(const float4 *)&Bs[kk][tx * 8], y1 = *(const float4 *)&Bs[kk][tx * 8 + 4];
      a[0] = x0.x; a[1] = x0.y; a[2] = x0.z; a[3] = x0.w;
      a[4] = x1.x; a[5] = x1.y; a[6] = x1.z; a[7] = x1.w;
      b[0] = y0.x; b[1] = y0.y; b[2] = y0.z; b[3] = y0.w;
      b[4] = y1.x; b[5] = y1.y; b[6] = y1.z; b[7] = y1.w;
#pragma unroll
      for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 8; i++) {
    float *cp = C + (size_t)(m0 + ty * 8 + i) * N + n0 + tx * 8;
    *(float4 *)cp = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *(float4 *)(cp + 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

__global__ void init_mat(float *x, size_t n, uint32_t salt) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i ^ salt);
}

int main(int argc, char **argv) {
  auto known = kit::sweep_known();
  kit::Args args(argc, argv, known);
  kit::Device d = kit::open_device("sgemm");
  kit::SweepOpts o = kit::sweep_opts(args);
  auto variants = args.words("variant", "sgemm");
  for (auto &v : variants)
    if (v != "sgemm") kit::Args::die("unknown variant " + v);
  long long maxb = *std::max_element(o.res.begin(), o.res.end());
  size_t maxblocks = (size_t)d.prop.multiProcessorCount * maxb * o.waves;
  const int M = TILES_M * TM;
  const int tiles_n = (int)((maxblocks + TILES_M - 1) / TILES_M);
  const int N = tiles_n * TN;
  const uint32_t sa = 0xA0A0u, sb = 0xB0B0u;
  float *A, *B, *C;
  CK(cudaMalloc(&A, (size_t)M * K * sizeof(float)));
  CK(cudaMalloc(&B, (size_t)K * N * sizeof(float)));
  CK(cudaMalloc(&C, (size_t)M * N * sizeof(float)));
  init_mat<<<1024, 256>>>(A, (size_t)M * K, sa);
  init_mat<<<1024, 256>>>(B, (size_t)K * N, sb);
  CK(cudaGetLastError());
  std::printf("INFO prog=sgemm M=%d N=%d K=%d tile=%dx%dx%d\n", M, N, K, TM, TN, TK);
  char extra[96];
  std::snprintf(extra, sizeof extra, "K=%d tile=%dx%d regtile=8x8 flops_per_block=%d", K, TM, TN,
                2 * TM * TN * K);
  int failures = kit::sweep(
      "sgemm", d, o, "val_sgemm", (const void *)val_sgemm, BLOCK,
      [&](const kit::Point &) { CK(cudaMemset(C, 0xff, (size_t)M * N * sizeof(float))); },
      [&](const kit::Point &p) { val_sgemm<<<p.grid, BLOCK, p.dyn>>>(A, B, C, N); },
      [&](const kit::Point &p, std::string &detail) {
        kit::Rng r((uint64_t)p.grid);
        int bad = 0;
        double worst = 0;
        for (int s = 0; s < 512; s++) {
          int blk = s == 0 ? p.grid - 1 : (int)r.below((uint64_t)p.grid);
          int m = (blk % TILES_M) * TM + (int)r.below(TM);
          int n = (blk / TILES_M) * TN + (int)r.below(TN);
          double ref = 0, mag = 0;
          for (int k = 0; k < K; k++) {
            double av = kit::hash_float((uint32_t)((size_t)m * K + k) ^ sa);
            double bv = kit::hash_float((uint32_t)((size_t)k * N + n) ^ sb);
            ref += av * bv;
            mag += std::fabs(av * bv);
          }
          float got = 0;
          CK(cudaMemcpy(&got, C + (size_t)m * N + n, sizeof(float), cudaMemcpyDeviceToHost));
          double err = std::fabs((double)got - ref);
          worst = std::max(worst, err / (mag + 1e-30));
          if (!(err <= 1e-5 * mag + 1e-6)) bad++;
        }
        char buf[96];
        std::snprintf(buf, sizeof buf, "bad_of_512_samples=%d worst_rel=%.2e", bad, worst);
        detail = buf;
        return bad == 0;
      },
      extra);
  return failures ? 1 : 0;
}
