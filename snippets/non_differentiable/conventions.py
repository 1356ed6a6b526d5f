import torch

# Each function has a corner or a vertical tangent at 0. What does
# autograd give as its derivative there, and on either side?
functions = {
    "relu(x)": torch.relu,
    "abs(x)": torch.abs,
    "x.clamp(min=0)": lambda x: x.clamp(min=0),
    "maximum(x, 0)": lambda x: torch.maximum(x, torch.zeros_like(x)),
    "sqrt(x)": torch.sqrt,
}

print("at x = [-1, 0, 2]:")
for name, f in functions.items():
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y = f(x)
    y.sum().backward()
    print(f"{name:15s} value {y.detach()}, gradient {x.grad}")
