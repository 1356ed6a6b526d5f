import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)

z = x * y
z.backward(inputs=[x])   # only x's gradient is wanted

print("x.grad:", x.grad)
print("y.grad:", y.grad)
