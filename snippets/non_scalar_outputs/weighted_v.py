import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2

# A non-uniform v weights each output's contribution.
v = torch.tensor([1.0, 0.1, 0.01])
y.backward(v)

print("v:                ", v)
print("x.grad:           ", x.grad)

# Same thing as differentiating the weighted sum of the outputs.
x2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(v * x2 ** 2).sum().backward()
print("(v * y).sum() ->  ", x2.grad)
