# snippet: graph loss
import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(1, 1)
loss_function = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

x = torch.tensor([[1.0], [2.0], [3.0]])
target = torch.tensor([[2.0], [4.0], [6.0]])

optimizer.zero_grad()
prediction = model(x)
loss = loss_function(prediction, target)

loss.backward()
optimizer.step()

print("loss:       ", round(loss.item(), 4))
print("weight.grad:", model.weight.grad)
print("bias.grad:  ", model.bias.grad)
