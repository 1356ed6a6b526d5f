# snippet: graph y
import torch

x = torch.tensor(
    [1.0, 2.0, 3.0],
    requires_grad=True,
)

y = x ** 2                      # y = [x1^2, x2^2, x3^2]

gradient = torch.ones_like(y)   # the vector v in v^T J
print("y:       ", y.detach())
print("gradient:", gradient)

y.backward(gradient)

print("x.grad:  ", x.grad)
print("2 * x:   ", 2 * x.detach())
