import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2

print("y has shape", tuple(y.shape), "- a scalar")

# A scalar output: backward() starts from an implicit gradient of 1.
y.backward()
print(x.grad)
