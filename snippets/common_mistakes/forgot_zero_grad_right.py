import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_function = nn.MSELoss()

# The same tiny fixed "dataloader" as in the wrong version.
batch = (
    torch.tensor([[1.0], [2.0], [3.0]]),
    torch.tensor([[2.0], [4.0], [6.0]]),
)
dataloader = [batch] * 8


def weight_grad():
    return 0.0 if model.weight.grad is None else model.weight.grad.item()


print("iteration     loss  this batch's gradient",
      " weight.grad used by step()")
for i, (data, target) in enumerate(dataloader, start=1):
    optimizer.zero_grad()    # start every iteration from an empty .grad
    output = model(data)
    loss = loss_function(output, target)
    before = weight_grad()
    loss.backward()
    optimizer.step()
    this_batch = weight_grad() - before
    used = weight_grad()
    print(f"{i:9}  {loss.item():7.4f}  {this_batch:21.4f}  {used:26.4f}")
