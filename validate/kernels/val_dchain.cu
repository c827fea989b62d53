// SPDX-License-Identifier: GPL-3.0-or-later
// VALIDATION 3: DRAM load chains with K dependent ALU instructions per load.
//
// A 1 GiB buffer is cut into 128-byte lines; line L holds 32 copies of the
// index of the line that follows L on one random cycle over all lines.  Each
// warp walks its own stretch of that cycle: per step, every lane loads word
// `lane` of the current line (one coalesced 128-byte request, 4 sectors), then
// K dependent IMADs (x = x*one + zero, one/zero are runtime arguments, so
// they stay) turn the value into the next line index.  So each step is one
// DRAM-latency load followed by K dependent ALU instructions, and the next
// load needs all of them.  Stretches of different warps never overlap, and a
// launch touches each line at most once, so every load misses L1 and L2.
// Block 128 threads (4 warps), STEPS loads per warp.
// Check: each warp's final index equals the host's walk of the cycle.
#include "common.cuh"

constexpr int BLOCK = 128;
constexpr int WARPS_PER_BLOCK = BLOCK / 32;
constexpr int STEPS = 64;  // dependent loads per warp
constexpr int ROUNDS = 8;  // sets of start positions, see main()

template <int K>
__device__ __forceinline__ void dchain_body(const uint32_t *__restrict__ lines,
                                            const uint32_t *__restrict__ starts, uint32_t *out,
                                            uint32_t one, uint32_t zero) {
  const int lane = threadIdx.x & 31;
  const int gw = blockIdx.x * WARPS_PER_BLOCK + (threadIdx.x >> 5);
  uint32_t idx = starts[gw];
#pragma unroll 1
  for (int s = 0; s < STEPS; s++) {
    uint32_t x = lines[(size_t)idx * 32 + lane];
#pragma unroll
    for (int k = 0; k < K; k++) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(one), "r"(zero));
    idx = x;
  }
  if (lane == 0) out[gw] = idx;
}

__global__ void __launch_bounds__(BLOCK, 16)
    val_dchain_k0(const uint32_t *lines, const uint32_t *starts, uint32_t *out, uint32_t one, uint32_t zero) {
  dchain_body<0>(lines, starts, out, one, zero);
}
__global__ void __launch_bounds__(BLOCK, 16)
    val_dchain_k4(const uint32_t *lines, const uint32_t *starts, uint32_t *out, uint32_t one, uint32_t zero) {
  dchain_body<4>(lines, starts, out, one, zero);
}
__global__ void __launch_bounds__(BLOCK, 16)
    val_dchain_k16(const uint32_t *lines, const uint32_t *starts, uint32_t *out, uint32_t one, uint32_t zero) {
  dchain_body<16>(lines, starts, out, one, zero);
}

// lines[order[i]][*] = order[i+1]
__global__ void init_lines(uint32_t *lines, const uint32_t *order, uint64_t n) {
  uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  uint64_t i = t / 32;
  if (i >= n) return;
  lines[(size_t)order[i] * 32 + (t & 31)] = order[(i + 1) % n];
}

int main(int argc, char **argv) {
  auto known = kit::sweep_known();
  known.push_back("bytes");
  known.push_back("seed");
  kit::Args args(argc, argv, known);
  kit::Device d = kit::open_device("dchain");
  kit::SweepOpts o = kit::sweep_opts(args);
  auto variants = args.words("variant", "k0,k4,k16");
  size_t bytes = (size_t)args.num("bytes", 1LL << 30);
  uint64_t n = bytes / 128;  // lines
  std::vector<uint32_t> order = kit::cycle_order(n, 0, (uint64_t)args.num("seed", 4242));

  uint32_t *lines, *d_order, *starts, *out;
  CK(cudaMalloc(&lines, n * 128));
  CK(cudaMalloc(&d_order, n * sizeof(uint32_t)));
  CK(cudaMemcpy(d_order, order.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  init_lines<<<(unsigned)((n * 32 + 255) / 256), 256>>>(lines, d_order, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaFree(d_order));

  long long maxb = *std::max_element(o.res.begin(), o.res.end());
  size_t maxwarps = (size_t)d.prop.multiProcessorCount * maxb * o.waves * WARPS_PER_BLOCK;
  if (maxwarps * STEPS > n) kit::Args::die("buffer too small for the largest launch");
  CK(cudaMalloc(&starts, ROUNDS * maxwarps * sizeof(uint32_t)));
  CK(cudaMalloc(&out, maxwarps * sizeof(uint32_t)));
  std::vector<uint32_t> h_starts(ROUNDS * maxwarps), h_out(maxwarps), want(ROUNDS * maxwarps);
  int failures = 0;

  for (const std::string &v : variants) {
    const void *fn;
    const char *name;
    int k;
    if (v == "k0") { k = 0; fn = (const void *)val_dchain_k0; name = "val_dchain_k0"; }
    else if (v == "k4") { k = 4; fn = (const void *)val_dchain_k4; name = "val_dchain_k4"; }
    else if (v == "k16") { k = 16; fn = (const void *)val_dchain_k16; name = "val_dchain_k16"; }
    else kit::Args::die("unknown variant " + v);
    char extra[96];
    std::snprintf(extra, sizeof extra, "k=%d steps=%d buffer_bytes=%zu", k, STEPS, (size_t)(n * 128));
    // Timing mode repeats launches: each launch uses the next of ROUNDS sets
    // of start positions (shifted along the cycle) so a repeated launch does
    // not find the previous launch's lines in L2.  ncu mode makes one launch.
    unsigned launches = 0;
    failures += kit::sweep(
        "dchain", d, o, name, fn, BLOCK,
        [&](const kit::Point &p) {
          size_t warps = (size_t)p.grid * WARPS_PER_BLOCK;
          uint64_t spacing = n / warps;  // >= STEPS, checked above
          for (int r = 0; r < ROUNDS; r++) {
            uint64_t shift = (uint64_t)r * (spacing / ROUNDS);
            for (size_t w = 0; w < warps; w++) {
              uint64_t pos = (w * spacing + shift) % n;
              h_starts[r * warps + w] = order[pos];
              want[r * warps + w] = order[(pos + STEPS) % n];
            }
          }
          CK(cudaMemcpy(starts, h_starts.data(), ROUNDS * warps * sizeof(uint32_t), cudaMemcpyHostToDevice));
          CK(cudaMemset(out, 0xff, warps * sizeof(uint32_t)));
          launches = 0;
        },
        [&](const kit::Point &p) {
          const uint32_t *s = starts + (size_t)(launches++ % ROUNDS) * p.grid * WARPS_PER_BLOCK;
          if (k == 0) val_dchain_k0<<<p.grid, BLOCK, p.dyn>>>(lines, s, out, 1u, 0u);
          if (k == 4) val_dchain_k4<<<p.grid, BLOCK, p.dyn>>>(lines, s, out, 1u, 0u);
          if (k == 16) val_dchain_k16<<<p.grid, BLOCK, p.dyn>>>(lines, s, out, 1u, 0u);
        },
        [&](const kit::Point &p, std::string &detail) {
          size_t warps = (size_t)p.grid * WARPS_PER_BLOCK;
          CK(cudaMemcpy(h_out.data(), out, warps * sizeof(uint32_t), cudaMemcpyDeviceToHost));
          size_t last = (size_t)((launches + ROUNDS - 1) % ROUNDS) * warps;
          size_t bad = 0;
          for (size_t w = 0; w < warps; w++)
            if (h_out[w] != want[last + w]) bad++;
          detail = "bad=" + std::to_string(bad);
          return bad == 0;
        },
        extra);
  }
  return failures ? 1 : 0;
}
