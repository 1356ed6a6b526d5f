import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_function = nn.MSELoss()

x = torch.tensor([[1.0], [2.0], [3.0]])
target = torch.tensor([[2.0], [4.0], [6.0]])

# One training iteration
optimizer.zero_grad()                      # 1. clear old gradients
prediction = model(x)                      # 2. forward pass
loss = loss_function(prediction, target)   # 3. loss
loss.backward()                            # 4. backward pass: fills .grad
print(f"Loss before the step: {loss.item():.4f}")
print(f"dLoss/dWeight: {model.weight.grad.item():.4f}")
print(f"dLoss/dBias:   {model.bias.grad.item():.4f}")
optimizer.step()                           # 5. update the parameters

# Measure the loss again with the updated parameters
with torch.no_grad():
    new_loss = loss_function(model(x), target)
print(f"Loss after the step:  {new_loss.item():.4f}")
