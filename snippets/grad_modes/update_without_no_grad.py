# snippet: raises RuntimeError: a leaf Variable that requires grad is being used in an in-place operation
import torch

w = torch.tensor(3.0, requires_grad=True)
loss = (w * 2 - 4) ** 2
loss.backward()
print("w.grad:", w.grad)

# A by-hand gradient step, written without torch.no_grad():
w -= 0.1 * w.grad
