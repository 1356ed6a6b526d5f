import torch

# Each function has a kink or a vertical tangent at 0. What does
# autograd give as its derivative there?
functions = {
    "relu(x)": torch.relu,
    "abs(x)": torch.abs,
    "x.clamp(min=0)": lambda x: x.clamp(min=0),
    "maximum(x, 0)": lambda x: torch.maximum(x, torch.zeros_like(x)),
    "sqrt(x)": torch.sqrt,
}

for name, f in functions.items():
    x = torch.tensor(0.0, requires_grad=True)
    f(x).backward()
    print(f"{name:15s} at 0: value {f(x).item()}, gradient {x.grad.item()}")
