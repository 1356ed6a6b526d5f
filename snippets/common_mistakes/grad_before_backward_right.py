import torch

w = torch.tensor(1.0, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)

for step in range(1, 4):
    optimizer.zero_grad()
    loss = (w * 2.0 - 6.0) ** 2
    loss.backward()
    print("step", step, "logged w.grad =", w.grad)   # after backward
    optimizer.step()
