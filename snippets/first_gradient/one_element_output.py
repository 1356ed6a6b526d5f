import torch

x = torch.tensor([[2.0]], requires_grad=True)
y = x ** 2            # shape (1, 1): one element, but not 0-d

print("y.shape:", y.shape, " elements:", y.numel())
y.backward()          # no argument needed: there is only one element
print("x.grad:", x.grad)

# One element is not the whole rule:
# the implicit 1 is only for real values.
z = torch.tensor([[1.0 + 2.0j]], requires_grad=True)
try:
    (z * z).backward()
except RuntimeError as error:
    print("complex output:", error)
