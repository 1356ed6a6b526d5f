import torch

# A straight line, y = 4x: its slope is 4 wherever x is.
x = torch.tensor(5.0, requires_grad=True)
y = 4 * x
y.backward()   # dy/dx = 4
print("y = 4x at x = 5:  x.grad =", x.grad)

# A cubic, y = x³: its slope 3x² depends on x.
x = torch.tensor(3.0, requires_grad=True)
y = x ** 3
y.backward()   # dy/dx = 3x²
print("y = x³ at x = 3:  x.grad =", x.grad, " y =", y.item())
