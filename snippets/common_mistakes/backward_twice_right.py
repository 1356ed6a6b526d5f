import torch

w = torch.tensor(0.5, requires_grad=True)
state = torch.tensor(1.0)

for step in range(1, 3):
    state = torch.tanh(w * state + 1)
    loss = (state - 0.2) ** 2
    loss.backward()
    print(f"step {step}: w.grad = {w.grad.item():.4f}")
    w.grad = None
    # Keep the value, drop its history: the next step starts here.
    state = state.detach()
