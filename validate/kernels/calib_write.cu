// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17, item 7): write policy of L1 and L2.
//
// A fixed sequence of launches; each profiled one (kernels wp_*) is preceded
// by what it depends on, and most by flush_l2 (reads 512 MiB of another buffer
// with ld.global.cg, so the L2 holds none of the test data, dirty lines
// included).  Meant for `ncu --replay-mode application --cache-control none`:
// every pass reruns the whole sequence, so each profiled kernel sees the cache
// state the sequence left (ncu's own flush would erase it).
//   1 wp_store_f4      16 MiB, float4 stores (fits L2)   dram__bytes_write: written back during the kernel?
//   2 wp_load_f4       the same 16 MiB right after       lts hit rate: did the stores allocate in L2?
//   3 wp_store_f4      1 GiB (17x L2)                   DRAM writes vs bytes stored
//   4 wp_load_f4       the first 16 MiB of that 1 GiB   evicted (DRAM) or kept?
//   5 wp_store_part    16 MiB region, one 4-byte store per 32-byte sector (partial sectors)
//   6 wp_load_f4       that region right after          hit rate of partially written sectors (fill?)
//   7 wp_store_part    1 GiB region, partial sectors    dram__bytes_read: fills for partial writes?
//   8 wp_store_then_load 16 MiB: each thread stores a float4; after a block
//                        barrier it loads the float4 the next warp stored   l1tex hit rate of a load after a store
//   9 wp_load_twice    16 MiB: the same with a load in place of the store   L1 hit baseline
//  10 wp_load_f4       16 MiB cold (after a flush)       baseline miss
// All wp_* kernels: grid = SMs * 8 blocks of 256 threads, grid-stride.
// Every launch prints a LAUNCH line (seq = ncu's order of wp_* results).
// Check: after the sequence, the 16 MiB region of step 8 holds the stored
// values, and the sum of step 8's loads equals what was stored.
#include "common.cuh"

constexpr int BLOCK = 256;

__global__ void flush_l2(const float4 *__restrict__ buf, size_t n4, float *out) {
  size_t T = (size_t)gridDim.x * blockDim.x, g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  float s = 0;
  for (size_t i = g; i < n4; i += T) {
    float4 v;
    asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(buf + i));
    s += v.x + v.w;
  }
  if (s == 1234.5f) out[g] = s;
}

__global__ void __launch_bounds__(BLOCK) wp_store_f4(float4 *dst, size_t n4, float val) {
  size_t T = (size_t)gridDim.x * BLOCK, g = blockIdx.x * (size_t)BLOCK + threadIdx.x;
  for (size_t i = g; i < n4; i += T) dst[i] = make_float4(val, val + 1, val + 2, (float)(i & 1023));
}

__global__ void __launch_bounds__(BLOCK) wp_load_f4(const float4 *__restrict__ src, size_t n4, float *out) {
  size_t T = (size_t)gridDim.x * BLOCK, g = blockIdx.x * (size_t)BLOCK + threadIdx.x;
  float s = 0;
  for (size_t i = g; i < n4; i += T) {
    float4 v = src[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  out[g] = s;
}

// one 4-byte store per 32-byte sector: element 8*i of a float array
__global__ void __launch_bounds__(BLOCK) wp_store_part(float *dst, size_t nsect, float val) {
  size_t T = (size_t)gridDim.x * BLOCK, g = blockIdx.x * (size_t)BLOCK + threadIdx.x;
  for (size_t i = g; i < nsect; i += T) dst[8 * i] = val;
}

// Block-sized chunks: every thread stores one float4, the block syncs, and
// each thread then loads the float4 that a thread of the *next warp* stored
// (a different address, so no compiler can forward the value or drop the
// load; same SM, so an L1 that keeps written data would hit).
__global__ void __launch_bounds__(BLOCK) wp_store_then_load(float4 *buf, size_t nchunks, float val, float *out) {
  float s = 0;
  const int t = threadIdx.x, u = (threadIdx.x + 32) % BLOCK;
  for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
    buf[c * BLOCK + t] = make_float4(val, val, val, val);
    __syncthreads();
    float4 v = buf[c * BLOCK + u];
    s += (v.x + v.y) + (v.z + v.w);
    __syncthreads();
  }
  out[blockIdx.x * BLOCK + t] = s;
}

// Same shape with loads only: each thread loads its float4, the block syncs,
// then loads the one the next warp loaded (L1 hit baseline for plain loads).
__global__ void __launch_bounds__(BLOCK) wp_load_twice(const float4 *buf, size_t nchunks, float *out) {
  float s = 0;
  const int t = threadIdx.x, u = (threadIdx.x + 32) % BLOCK;
  for (size_t c = blockIdx.x; c < nchunks; c += gridDim.x) {
    float4 v = buf[c * BLOCK + t];
    __syncthreads();
    float4 w = buf[c * BLOCK + u];
    s += (v.x + w.y) + (v.z + w.w);
    __syncthreads();
  }
  out[blockIdx.x * BLOCK + t] = s;
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"fit", "big", "flush"});
  kit::Device d = kit::open_device("write");
  const int nsm = d.prop.multiProcessorCount;
  size_t fit = (size_t)a.num("fit", 16LL << 20), big = (size_t)a.num("big", 1LL << 30);
  size_t fl = (size_t)a.num("flush", 512LL << 20);
  float4 *buf, *fbuf;
  float *out;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&fbuf, fl));
  const int grid = nsm * 8;
  CK(cudaMalloc(&out, (size_t)grid * BLOCK * 4));
  CK(cudaMemset(buf, 0, big));
  CK(cudaMemset(fbuf, 0, fl));
  CK(cudaDeviceSynchronize());
  int seq = 0;
  auto flush = [&] {
    flush_l2<<<grid, BLOCK>>>(fbuf, fl / 16, out);
    CK(cudaGetLastError());
  };
  auto note = [&](const char *k, const char *what, size_t bytes) {
    CK(cudaDeviceSynchronize());
    std::printf("LAUNCH seq=%d prog=write kernel=%s step=\"%s\" bytes=%zu grid=%d block=%d\n", seq++, k, what, bytes,
                grid, BLOCK);
    std::fflush(stdout);
  };
  auto sync = [] {
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  };
  float *fb = (float *)buf;
  // 1, 2
  flush();
  note("wp_store_f4", "store_fit_16MiB", fit);
  wp_store_f4<<<grid, BLOCK>>>(buf, fit / 16, 1.0f);
  sync();
  note("wp_load_f4", "load_after_store_fit_16MiB", fit);
  wp_load_f4<<<grid, BLOCK>>>(buf, fit / 16, out);
  sync();
  // 3, 4
  flush();
  note("wp_store_f4", "store_big_1GiB", big);
  wp_store_f4<<<grid, BLOCK>>>(buf, big / 16, 2.0f);
  sync();
  note("wp_load_f4", "load_first_16MiB_after_store_big", fit);
  wp_load_f4<<<grid, BLOCK>>>(buf, fit / 16, out);
  sync();
  // 5, 6
  flush();
  note("wp_store_part", "store_partial_4B_per_sector_fit_16MiB_region", fit / 8);
  wp_store_part<<<grid, BLOCK>>>(fb, fit / 32, 3.0f);
  sync();
  note("wp_load_f4", "load_after_partial_store_fit_16MiB", fit);
  wp_load_f4<<<grid, BLOCK>>>(buf, fit / 16, out);
  sync();
  // 7
  flush();
  note("wp_store_part", "store_partial_4B_per_sector_big_1GiB_region", big / 8);
  wp_store_part<<<grid, BLOCK>>>(fb, big / 32, 4.0f);
  sync();
  // 8
  flush();
  note("wp_store_then_load", "store_then_load_same_thread_16MiB", fit);
  wp_store_then_load<<<grid, BLOCK>>>(buf, fit / 16 / BLOCK, 5.0f, out);
  sync();
  std::vector<float> ho((size_t)grid * BLOCK);
  CK(cudaMemcpy(ho.data(), out, ho.size() * 4, cudaMemcpyDeviceToHost));
  // block b handles the chunks c = b, b + grid, ... < nchunks; each adds 4 * 5.0f
  size_t nchunks = fit / 16 / BLOCK;
  bool ok = true;
  for (size_t g = 0; g < ho.size(); g++) {
    size_t blk = g / BLOCK, nch = nchunks > blk ? (nchunks - blk + grid - 1) / grid : 0;
    if (ho[g] != 20.0f * (float)nch) ok = false;
  }
  std::vector<float> hb(fit / 4);
  CK(cudaMemcpy(hb.data(), buf, fit, cudaMemcpyDeviceToHost));
  for (float x : hb)
    if (x != 5.0f) ok = false;
  // 9
  flush();
  note("wp_load_twice", "load_twice_same_thread_16MiB", fit);
  wp_load_twice<<<grid, BLOCK>>>(buf, fit / 16 / BLOCK, out);
  sync();
  // 10
  flush();
  note("wp_load_f4", "load_cold_16MiB", fit);
  wp_load_f4<<<grid, BLOCK>>>(buf, fit / 16, out);
  sync();
  std::printf("INFO prog=write check=%s fit=%zu big=%zu flush=%zu\n", ok ? "ok" : "FAIL", fit, big, fl);
  return ok ? 0 : 1;
}
