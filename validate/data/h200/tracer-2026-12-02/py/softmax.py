import torch
x = torch.randn(4096, 1024, device="cuda")
y = torch.softmax(x, dim=-1)
torch.cuda.synchronize()
print("softmax ok", float(y.sum()))
