# snippet: raises RuntimeError: backward through the graph a second time
import torch

w = torch.tensor(0.5, requires_grad=True)
state = torch.tensor(1.0)     # carried from one step to the next

for step in range(1, 3):
    state = torch.tanh(w * state + 1)   # step 2 builds on step 1
    loss = (state - 0.2) ** 2
    loss.backward()                     # step 2 reaches step 1's graph
    print(f"step {step}: w.grad = {w.grad.item():.4f}")
    w.grad = None
