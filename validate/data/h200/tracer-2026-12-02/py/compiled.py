import torch
def f(x, y):
    return torch.relu(x * y + 1.0).sum(dim=-1)
g = torch.compile(f)
x = torch.randn(2048, 1024, device="cuda")
y = torch.randn(2048, 1024, device="cuda")
r = g(x, y)
torch.cuda.synchronize()
print("compiled ok", float(r.sum()))
