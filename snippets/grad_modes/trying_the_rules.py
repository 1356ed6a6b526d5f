import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.inference_mode():
    c = torch.tensor([3.0, 4.0])

# The refusal is about saving: w + c saves nothing for backward.
(w + c).sum().backward()
print("w + c with an inference tensor c: w.grad =", w.grad)
try:
    (w * c).sum().backward()          # MulBackward0 would save c
except RuntimeError as error:
    print("w * c: RuntimeError:", str(error).split(".")[0])

# In place is allowed inside inference mode:
with torch.inference_mode():
    c.add_(1)
print("c.add_(1) inside inference_mode:", c)

# Each block puts grad mode back, even when it ends in an error.
for block in (torch.no_grad, torch.inference_mode,
              lambda: torch.set_grad_enabled(False)):
    try:
        with block():
            raise ValueError("leave the block early")
    except ValueError:
        pass
    print("grad mode after the block:", torch.is_grad_enabled())
