import torch

w = torch.tensor(3.0, requires_grad=True)
x = torch.tensor(2.0)

for step in range(1, 3):
    loss = (w * x - 10) ** 2
    loss.backward()                    # adds to w.grad; nothing clears it
    print(f"step {step}: w.grad = {w.grad!r}")

print("expected every step:", 2 * (3.0 * 2 - 10) * 2)
