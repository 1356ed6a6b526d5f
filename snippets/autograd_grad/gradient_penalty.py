import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
points = torch.randn(4, 2, requires_grad=True)

# The penalty asks the critic's gradient with respect to its
# input to have norm 1 at every point (as in WGAN-GP).
scores = critic(points)
(g,) = torch.autograd.grad(scores.sum(), points, create_graph=True)
penalty = ((g.norm(dim=1) - 1) ** 2).mean()
print("input-gradient norms:", g.norm(dim=1).detach().round(decimals=4))
print("penalty:", round(penalty.item(), 4))

# create_graph=True made the penalty a function of the weights.
penalty.backward()
w = critic[0].weight.grad
print("first layer's weight gradient, norm:", round(w.norm().item(), 4))
