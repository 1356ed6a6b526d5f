import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * 3
loss = y ** 2


def show(name):
    def hook(grad):
        print(f"gradient arriving at {name}: {grad!r}")
    return hook


y.register_hook(show("y"))     # runs during backward, for the non-leaf y
x.register_hook(show("x"))
loss.backward()

print("x.grad after the pass:", x.grad)   # hooks only look
