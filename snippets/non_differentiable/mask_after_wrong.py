import torch

# The entropy term p * log(p), with the usual rule 0 * log(0) = 0
p = torch.tensor([0.0, 0.5], requires_grad=True)
print("log(p) =", torch.log(p.detach()))

# Masking the result AFTER log(p) has been computed at p = 0
terms = torch.where(p > 0, p * torch.log(p), torch.zeros_like(p))
terms.sum().backward()

print("terms  =", terms)
print("p.grad =", p.grad)
