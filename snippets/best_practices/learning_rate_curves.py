# snippet: curves converging="lr = 0.05 (converges)" diverging="lr = 0.3 (diverges)"
# snippet: curves xlabel=step ylabel="loss (MSE, log scale)" log
import torch
import torch.nn as nn

x = torch.tensor([[1.0], [2.0], [3.0]])
target = 2 * x


def losses_with(lr, steps=12):
    torch.manual_seed(0)  # the same starting weights for every rate
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_function = nn.MSELoss()
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_function(model(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


converging, diverging = losses_with(0.05), losses_with(0.3)

print(f"lr=0.05: loss {converging[0]:.4f} -> {converging[-1]:.4f}")
print(f"lr=0.3:  loss {diverging[0]:.4f} -> {diverging[-1]:.4g}")
