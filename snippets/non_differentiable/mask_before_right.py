import torch

p = torch.tensor([0.0, 0.5], requires_grad=True)

# Masking the input BEFORE log: where p is 0, log sees a harmless 1
safe_p = torch.where(p > 0, p, torch.ones_like(p))
terms = torch.where(p > 0, p * torch.log(safe_p), torch.zeros_like(p))
terms.sum().backward()

print("terms  =", terms)
print("p.grad =", p.grad)
