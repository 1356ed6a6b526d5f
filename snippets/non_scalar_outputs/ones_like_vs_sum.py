import torch

# Way 1: hand backward() a tensor of ones.
x1 = torch.tensor([-1.0, 0.5, 4.0], requires_grad=True)
y1 = x1 ** 2
y1.backward(torch.ones_like(y1))

# Way 2: reduce y to a scalar with sum(), then call backward()
# without arguments.
x2 = torch.tensor([-1.0, 0.5, 4.0], requires_grad=True)
y2 = x2 ** 2
y2.sum().backward()

print("y.backward(torch.ones_like(y)):", x1.grad)
print("y.sum().backward():            ", x2.grad)
print("identical:", torch.equal(x1.grad, x2.grad))
