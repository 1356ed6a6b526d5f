import torch
from torch import nn


def fresh_gradients():
    # Large initial weights: the gradients explode.
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(8, 8) for _ in range(6)])
    for p in model.parameters():
        nn.init.normal_(p, std=2.0)
    model(torch.randn(4, 8)).pow(2).mean().backward()
    return model


def total_norm(model):
    grads = [p.grad.flatten() for p in model.parameters()]
    return torch.cat(grads).norm().item()


def largest(model):
    return max(p.grad.abs().max().item() for p in model.parameters())


model = fresh_gradients()
print(f"before:          total norm {total_norm(model):.4g},"
      f" largest entry {largest(model):.4g}")
returned = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"clip_grad_norm_  total norm {total_norm(model):.4g},"
      f" largest entry {largest(model):.4g}"
      f" (it returned {returned.item():.4g})")

model = fresh_gradients()
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
print(f"clip_grad_value_ total norm {total_norm(model):.4g},"
      f" largest entry {largest(model):.4g}")
