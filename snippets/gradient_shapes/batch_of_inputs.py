import torch
import torch.nn as nn

torch.manual_seed(0)
# weight has shape (2, 3): (outputs, inputs)
layer = nn.Linear(3, 2)
inputs = torch.randn(5, 3)       # a batch of 5 examples
targets = torch.randn(5, 2)

outputs = layer(inputs)          # shape (5, 2)
loss = ((outputs - targets) ** 2).sum()
loss.backward()

for name, p in layer.named_parameters():
    print(f"{name}: shape {tuple(p.shape)},"
          f" grad shape {tuple(p.grad.shape)}")

# One delta row per example; the batch is summed away:
# dloss/dW = delta^T inputs, (2, 5) @ (5, 3) = (2, 3)
delta = 2 * (outputs.detach() - targets)
print("delta shape:", tuple(delta.shape))
print("weight.grad equals delta^T inputs:",
      torch.allclose(layer.weight.grad, delta.T @ inputs))
print("bias.grad equals delta summed over the batch:",
      torch.allclose(layer.bias.grad, delta.sum(dim=0)))
