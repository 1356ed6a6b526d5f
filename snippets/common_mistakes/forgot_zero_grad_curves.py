# snippet: curves wrong="without zero_grad()" right="with zero_grad()"
# snippet: curves xlabel=iteration ylabel="loss (MSE)"
import torch
import torch.nn as nn

x = torch.tensor([[1.0], [2.0], [3.0]])
target = torch.tensor([[2.0], [4.0], [6.0]])


def train(clear_gradients, iterations=20):
    torch.manual_seed(0)  # the same starting weights for both runs
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_function = nn.MSELoss()
    losses = []
    for _ in range(iterations):
        if clear_gradients:
            optimizer.zero_grad()
        loss = loss_function(model(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


wrong, right = train(clear_gradients=False), train(clear_gradients=True)

print(f"after 20 iterations without zero_grad(): loss={wrong[-1]:.4f}")
print(f"after 20 iterations with zero_grad():    loss={right[-1]:.4f}")
