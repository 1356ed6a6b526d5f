# snippet: raises RuntimeError: only for scalar outputs
import torch

x = torch.tensor(
    [1.0, 2.0, 3.0],
    requires_grad=True,
)

y = x ** 2
print("y =", y.detach(), "- three outputs, not one")

y.backward()
