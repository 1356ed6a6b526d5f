# snippet: curves sigmoid_norms="sigmoid" tanh_norms="tanh" log
# snippet: curves xlabel=layer
# snippet: curves ylabel="norm of the weight gradient"
import torch
from torch import nn


def deep_stack(activation, depth=12, width=16):
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), activation()]
    return nn.Sequential(*layers)


def weight_grad_norms(activation):
    torch.manual_seed(0)
    model = deep_stack(activation)
    x = torch.randn(32, 16)
    model(x).pow(2).mean().backward()
    linears = [m for m in model if isinstance(m, nn.Linear)]
    return [m.weight.grad.norm().item() for m in linears]


sigmoid_norms = weight_grad_norms(nn.Sigmoid)
tanh_norms = weight_grad_norms(nn.Tanh)
for name, norms in (("sigmoid", sigmoid_norms), ("tanh", tanh_norms)):
    print(f"{name:<8} layer 1: {norms[0]:.2e}   layer 12: {norms[-1]:.2e}"
          f"   ratio: {norms[-1] / norms[0]:.2g}")
