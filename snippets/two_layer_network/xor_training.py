# snippet: curves linear_losses="linear model" net_losses="2 layers, ReLU"
# snippet: curves xlabel=step ylabel="loss (MSE)"
import torch
import torch.nn as nn

# XOR: the target is 1 when exactly one input is 1. No straight line
# separates the 1s from the 0s, so a linear model cannot fit it.
inputs = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
targets = torch.tensor([[0.0], [1.0], [1.0], [0.0]])


def train(model, steps=100, lr=0.2):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_function = nn.MSELoss()
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_function(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


torch.manual_seed(0)
linear = nn.Linear(2, 1)
linear_losses = train(linear)

torch.manual_seed(0)
net = nn.Sequential(
    nn.Linear(2, 8),   # hidden layer: 8 units
    nn.ReLU(),         # the nonlinearity
    nn.Linear(8, 1),   # output layer
)
net_losses = train(net)

for step in [0, 19, 39, 59, 79, 99]:
    print(f"step {step + 1:3d}: linear {linear_losses[step]:.4f}"
          f"   network {net_losses[step]:.4f}")

with torch.no_grad():
    linear_outputs = linear(inputs).flatten()
    net_outputs = net(inputs).flatten()
print("linear model's outputs:", linear_outputs.round(decimals=3))
print("network's outputs:     ", net_outputs.round(decimals=3))

print("parameters and the shapes of their gradients:")
for name, p in net.named_parameters():
    print(f"  {name}: {tuple(p.shape)}, grad {tuple(p.grad.shape)}")
