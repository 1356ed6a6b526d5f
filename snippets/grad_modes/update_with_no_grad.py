import torch

w = torch.tensor(3.0, requires_grad=True)
loss = (w * 2 - 4) ** 2
loss.backward()

with torch.no_grad():
    w -= 0.1 * w.grad          # not recorded: the update is allowed
print("w after the step:", w)
print("still a leaf that requires grad:", w.is_leaf, w.requires_grad)
