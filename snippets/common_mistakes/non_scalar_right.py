import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(1, 1)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

loss_function = nn.MSELoss(reduction="none")
per_example = loss_function(model(inputs), targets)
print("per example:", per_example.detach().flatten())

loss = per_example.mean()      # one number to differentiate
loss.backward()
print("loss:", round(loss.item(), 4),
      " weight.grad:", model.weight.grad)
