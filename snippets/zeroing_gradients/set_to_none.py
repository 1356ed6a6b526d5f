import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

def compute_gradients():
    loss = (model(torch.tensor([[2.0]])) - 1.0).pow(2).mean()
    loss.backward()

compute_gradients()
print("After backward():                  ", model.bias.grad)

optimizer.zero_grad()  # default: set_to_none=True
print("After zero_grad():                 ", model.bias.grad)

compute_gradients()
optimizer.zero_grad(set_to_none=False)
print("After zero_grad(set_to_none=False):", model.bias.grad)
