import cupy
x = cupy.arange(1 << 22, dtype=cupy.float32)
s = cupy.sum(x)
cupy.cuda.Device().synchronize()
print("cupy.sum ok", float(s))
