import torch

x = torch.arange(4.0, requires_grad=True)  # [0., 1., 2., 3.]

# A scalar function of a vector: y = 2 x^T x = 2 (x0^2 + ... + x3^2)
y = 2 * torch.dot(x, x)
y.backward()

print("x      =", x)
print("y      =", y)
print("x.grad =", x.grad)
print("4 * x  =", 4 * x.detach())
print("x.grad equals 4x:", torch.equal(x.grad, 4 * x.detach()))
print("shape of x:", tuple(x.shape))
print("shape of x.grad:", tuple(x.grad.shape))
