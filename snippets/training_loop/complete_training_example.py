# snippet: curves losses="training loss" xlabel=epoch ylabel="loss (MSE)"
import torch
import torch.nn as nn

torch.manual_seed(0)  # a fixed random start, so the losses repeat

model = nn.Linear(1, 1)

optimizer = torch.optim.SGD(
    model.parameters(),
    lr=0.01,
)

x = torch.tensor([[1.0], [2.0], [3.0]])
target = torch.tensor([[2.0], [4.0], [6.0]])

losses = []

for epoch in range(5):
    optimizer.zero_grad()

    prediction = model(x)

    loss = ((prediction - target) ** 2).mean()

    loss.backward()

    optimizer.step()

    losses.append(loss.item())

    print(
        f"Epoch {epoch + 1}, "
        f"Loss: {loss.item():.4f}"
    )
