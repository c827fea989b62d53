import torch
x = torch.randn(4096, 1024, device="cuda")
y = torch.nn.functional.layer_norm(x, (1024,))
torch.cuda.synchronize()
print("layer_norm ok", float(y.abs().sum()))
