import torch
from torch import nn

calls = []
layer = nn.Linear(2, 1)
x = torch.ones(1, 2, requires_grad=True)

handles = {
    "tensor": x.register_hook(lambda g: calls.append("tensor")),
    "module": layer.register_full_backward_hook(
        lambda m, gi, go: calls.append("module")),
    "post-accumulate": layer.weight.register_post_accumulate_grad_hook(
        lambda p: calls.append("post-accumulate")),
}
out = layer(x).sum()
handles["node"] = out.grad_fn.register_hook(
    lambda gi, go: calls.append("node"))

for name, handle in handles.items():
    print(f"{name:<15} hook: register returned a {type(handle).__name__}")
    handle.remove()

out.backward()
print("hooks called after remove():", calls)
