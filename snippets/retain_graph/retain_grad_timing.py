import torch

x = torch.tensor(2.0, requires_grad=True)

# 1. Registered after the forward pass, before backward(): it works.
y = x * 3
loss = y ** 2
y.retain_grad()
loss.backward()
print("registered before the pass:  y.grad =", y.grad)

# 2. Registered after a backward pass. The graph still exists
#    (retain_graph=True), yet the pass that already ran filled nothing.
x.grad = None
y = x * 3
loss = y ** 2
loss.backward(retain_graph=True)
y.retain_grad()
print("registered after the pass:   y.grad =", y.grad)

# Only a backward pass that starts after the call fills y.grad.
loss.backward()
print("after one more pass:         y.grad =", y.grad)
print("x.grad, from both passes:    x.grad =", x.grad)
