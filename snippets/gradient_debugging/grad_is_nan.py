import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([1.0, 2.0])     # the same point as a

# The distance between two points, written out by hand.
distance = torch.sqrt(((a - b) ** 2).sum())
print("distance:", distance)
distance.backward()
print("a.grad:  ", a.grad)

# sqrt alone at 0 gives inf, not NaN.
z = torch.tensor(0.0, requires_grad=True)
torch.sqrt(z).backward()
print("d sqrt(z) / dz at 0:", z.grad)

# The library's norm defines its gradient at 0 (as 0).
a.grad = None
torch.linalg.vector_norm(a - b).backward()
print("with torch.linalg.vector_norm, a.grad:", a.grad)
