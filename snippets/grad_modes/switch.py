import torch

w = torch.tensor(3.0, requires_grad=True)


def step(x, training):
    # One function for both phases: record only while training.
    with torch.set_grad_enabled(training):
        return w * x


print("training:  ", step(torch.tensor(2.0), True).requires_grad)
print("evaluating:", step(torch.tensor(2.0), False).requires_grad)
print("grad mode on again after:", torch.is_grad_enabled())
