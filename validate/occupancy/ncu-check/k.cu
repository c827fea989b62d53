#include <cstdio>
template <int S> __global__ void ks(float *p) {
  __shared__ float s[S > 0 ? S / 4 : 1];
  s[threadIdx.x % (S > 0 ? S / 4 : 1)] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = s[(threadIdx.x + 1) % (S > 0 ? S / 4 : 1)];
}
__global__ void kd(float *p) {
  extern __shared__ float d[];
  d[threadIdx.x] = p[threadIdx.x];
  __syncthreads();
  p[threadIdx.x] = d[(threadIdx.x + 1) % blockDim.x];
}
int main() {
  float *p; cudaMalloc(&p, 1 << 24);
  ks<0><<<264, 256>>>(p);              // 1: 8 blocks (warps) x 1 KB
  ks<12288><<<264, 32>>>(p);           // 2: 17 blocks
  kd<<<264, 128, 5000>>>(p);           // 3: 16 blocks x 6144
  ks<0><<<264, 1024>>>(p);             // 4: 2 blocks
  cudaFuncSetAttribute(ks<4>, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
  ks<4><<<264, 256>>>(p);              // 5: carveout 50 %
  ks<0><<<264, 32>>>(p);               // 6: 32 blocks x 1 KB = 32 KB
  kd<<<264, 64, 20000>>>(p);           // 7: 21120 B x 11 blocks
  cudaDeviceSynchronize();
  printf("done %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
