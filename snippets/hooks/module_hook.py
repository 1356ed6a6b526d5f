import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)


def report(module, grad_input, grad_output):
    # grad_output: the gradient with respect to the layer's output;
    # grad_input: the one it sends back, with respect to its input.
    print("grad_output:", [tuple(g.shape) for g in grad_output])
    print("grad_input: ", [tuple(g.shape) for g in grad_input])


handle = layer.register_full_backward_hook(report)
x = torch.randn(4, 3, requires_grad=True)
layer(x).sum().backward()
print("x.grad has the shape of grad_input:", tuple(x.grad.shape))
handle.remove()
