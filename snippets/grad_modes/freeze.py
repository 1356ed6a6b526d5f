import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))

# Freeze the first layer: its parameters stop requiring gradients.
model[0].requires_grad_(False)

x = torch.randn(5, 3)
loss = model(x).pow(2).mean()
loss.backward()

for name, p in model.named_parameters():
    grad = None if p.grad is None else tuple(p.grad.shape)
    print(f"{name:<9} requires_grad={p.requires_grad!s:<5} grad={grad}")

# Give the optimizer only what still trains.
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)
print("parameters the optimizer updates:", len(trainable))
