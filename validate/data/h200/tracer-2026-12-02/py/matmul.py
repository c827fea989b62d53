import sys, torch
dt = {"fp32": torch.float32, "bf16": torch.bfloat16}[sys.argv[1]]
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(1024, 1024, device="cuda", dtype=dt)
b = torch.randn(1024, 1024, device="cuda", dtype=dt)
c = a @ b
torch.cuda.synchronize()
print("matmul", sys.argv[1], "ok", float(c.float().abs().sum()))
