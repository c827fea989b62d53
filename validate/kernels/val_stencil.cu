// SPDX-License-Identifier: GPL-3.0-or-later
// VALIDATION 7: 2D 5-point stencil, out = c0*in[y][x] + c1*(N + S + W + E).
//
// Plain global loads (the L1 catches the reuse between neighbours), no
// shared memory.  The compiler keeps a column's values in registers from one
// row to the next (16 rows per unrolled iteration), so a point costs about 3
// loads: that is the code being validated, as the SASS in the archive shows.  Block 128 threads = 32 columns x 4 row groups; each thread
// walks ROWS consecutive rows of one column, so a block covers a 32 x
// (4*ROWS) tile.  The interior is WIDTH wide; a one-cell halo of fixed
// values surrounds it, so no thread branches.  Block b of a launch computes
// tile (b % TILES_X, b / TILES_X); the grid is sized for the largest launch.
// Check: 4096 sampled points against the same formula on the host (the
// compiler may contract to FMA, so the tolerance is 1e-5 relative).
#include "common.cuh"

constexpr int BLOCK = 128;
constexpr int BX = 32, BY = 4;
constexpr int ROWS = 32;            // rows per thread
constexpr int TILE_H = BY * ROWS;   // 128
constexpr int TILES_X = 64;
constexpr int WIDTH = TILES_X * BX; // 2048 interior columns
constexpr int PITCH = WIDTH + 2;

__global__ void __launch_bounds__(BLOCK, 16)
    val_stencil5(const float *__restrict__ in, float *__restrict__ out, float c0, float c1) {
  const int x = (blockIdx.x % TILES_X) * BX + (threadIdx.x % BX) + 1;
  const int y0 = (blockIdx.x / TILES_X) * TILE_H + (threadIdx.x / BX) * ROWS + 1;
  for (int r = 0; r < ROWS; r++) {
    size_t i = (size_t)(y0 + r) * PITCH + x;
    float v = c0 * in[i] + c1 * ((in[i - PITCH] + in[i + PITCH]) + (in[i - 1] + in[i + 1]));
    out[i] = v;
  }
}

__global__ void init_grid(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i ^ 0x5151u);
}

int main(int argc, char **argv) {
  auto known = kit::sweep_known();
  kit::Args args(argc, argv, known);
  kit::Device d = kit::open_device("stencil");
  kit::SweepOpts o = kit::sweep_opts(args);
  auto variants = args.words("variant", "stencil5");
  for (auto &v : variants)
    if (v != "stencil5") kit::Args::die("unknown variant " + v);
  long long maxb = *std::max_element(o.res.begin(), o.res.end());
  size_t maxblocks = (size_t)d.prop.multiProcessorCount * maxb * o.waves;
  const size_t tiles_y = (maxblocks + TILES_X - 1) / TILES_X;
  const size_t height = tiles_y * TILE_H + 2;
  const size_t n = height * PITCH;
  const float c0 = 0.5f, c1 = 0.125f;
  float *in, *out;
  CK(cudaMalloc(&in, n * sizeof(float)));
  CK(cudaMalloc(&out, n * sizeof(float)));
  init_grid<<<1024, 256>>>(in, n);
  CK(cudaGetLastError());
  std::vector<float> h_in(n);
  CK(cudaMemcpy(h_in.data(), in, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("INFO prog=stencil width=%d height=%zu pitch=%d rows_per_thread=%d\n", WIDTH, height - 2,
              PITCH, ROWS);
  char extra[96];
  std::snprintf(extra, sizeof extra, "points_per_block=%d", BX * TILE_H);
  int failures = kit::sweep(
      "stencil", d, o, "val_stencil5", (const void *)val_stencil5, BLOCK,
      [&](const kit::Point &) { CK(cudaMemset(out, 0xff, n * sizeof(float))); },
      [&](const kit::Point &p) { val_stencil5<<<p.grid, BLOCK, p.dyn>>>(in, out, c0, c1); },
      [&](const kit::Point &p, std::string &detail) {
        kit::Rng r((uint64_t)p.grid + 99);
        int bad = 0;
        for (int s = 0; s < 4096; s++) {
          int blk = s == 0 ? p.grid - 1 : (int)r.below((uint64_t)p.grid);
          size_t x = (size_t)(blk % TILES_X) * BX + r.below(BX) + 1;
          size_t y = (size_t)(blk / TILES_X) * TILE_H + r.below(TILE_H) + 1;
          size_t i = y * PITCH + x;
          float want = c0 * h_in[i] + c1 * ((h_in[i - PITCH] + h_in[i + PITCH]) + (h_in[i - 1] + h_in[i + 1]));
          float got = 0;
          CK(cudaMemcpy(&got, out + i, sizeof(float), cudaMemcpyDeviceToHost));
          if (!(std::fabs(got - want) <= 1e-5f * (std::fabs(want) + 1.0f))) bad++;
        }
        detail = "bad_of_4096_samples=" + std::to_string(bad);
        return bad == 0;
      },
      extra);
  return failures ? 1 : 0;
}
