import torch

# Data and targets are inputs, not things we optimize:
# leave requires_grad off.
x = torch.tensor([1.0, 2.0, 3.0])
target = torch.tensor([2.0, 4.0, 6.0])

# Only the parameter asks for gradients.
w = torch.tensor(0.5, requires_grad=True)

loss = ((w * x - target) ** 2).mean()
loss.backward()

print("x.requires_grad:", x.requires_grad, "| x.grad:", x.grad)
print("target.requires_grad:", target.requires_grad,
      "| target.grad:", target.grad)
print("w.requires_grad:", w.requires_grad, "| w.grad:", w.grad)

# Work that needs no gradient (evaluation, parameter updates)
# goes under no_grad().
with torch.no_grad():
    prediction = w * x

print("prediction under no_grad() requires_grad:",
      prediction.requires_grad)
print("prediction under no_grad() grad_fn:", prediction.grad_fn)

# The same operation outside no_grad() is tracked.
tracked = w * x
print("same operation outside no_grad() requires_grad:",
      tracked.requires_grad)
print("its grad_fn type:", type(tracked.grad_fn).__name__)
