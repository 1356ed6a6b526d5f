import torch

x = torch.tensor(2.0, requires_grad=True)
h = x * 3
loss = h ** 2


def show_and_halve(grad):
    print("the gradient arriving at h:", grad)
    return grad / 2          # what flows on from h instead


h.register_hook(show_and_halve)
loss.backward()
print("x.grad:", x.grad)
