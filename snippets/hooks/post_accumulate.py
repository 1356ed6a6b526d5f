import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
lr = 0.1


def step_now(param):
    # Runs once param.grad holds this backward pass's gradient:
    # update the parameter there and free its gradient.
    with torch.no_grad():
        param -= lr * param.grad
    print(f"updated a parameter of shape {tuple(param.shape)}")
    param.grad = None


for p in model.parameters():
    p.register_post_accumulate_grad_hook(step_now)

before = model.weight.detach().clone()
loss = model(torch.randn(8, 2)).pow(2).mean()
loss.backward()
print("weight changed during backward():",
      not torch.equal(before, model.weight.detach()))
print("weight.grad afterwards:", model.weight.grad)
