import torch

# A prediction chases a target computed from the same weight,
# as in bootstrapped targets (temporal-difference learning).
w = torch.tensor(2.0, requires_grad=True)
x, x_next = torch.tensor(1.0), torch.tensor(3.0)


def forward():
    prediction = w * x
    target = 0.5 * w * x_next           # depends on w too
    return prediction, target


prediction, target = forward()
((prediction - target) ** 2).backward()
print("target not detached: w.grad =", w.grad)

w.grad = None
prediction, target = forward()
((prediction - target.detach()) ** 2).backward()
print("target detached:     w.grad =", w.grad)
print("target.detach().requires_grad:", target.detach().requires_grad)
