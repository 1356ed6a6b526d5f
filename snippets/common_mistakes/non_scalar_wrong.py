# snippet: raises RuntimeError: only for scalar outputs
import torch
from torch import nn

torch.manual_seed(0)

model = nn.Linear(1, 1)
inputs = torch.tensor([[1.0], [2.0], [3.0]])
targets = torch.tensor([[2.0], [4.0], [6.0]])

# reduction="none" keeps one loss per example, for logging them:
loss_function = nn.MSELoss(reduction="none")
loss = loss_function(model(inputs), targets)
print("loss has shape", tuple(loss.shape))

loss.backward()
