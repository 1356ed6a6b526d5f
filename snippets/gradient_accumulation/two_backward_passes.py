import torch

x = torch.tensor(2.0, requires_grad=True)

y = x ** 2
y.backward()
print("After the first backward: ", x.grad)

# Build a fresh graph and run backward again, without clearing x.grad
y = x ** 2
y.backward()
print("After the second backward:", x.grad)
