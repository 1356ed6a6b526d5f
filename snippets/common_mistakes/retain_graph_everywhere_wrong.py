import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_function = nn.MSELoss()

data = torch.tensor([[1.0], [2.0], [3.0]])
target = torch.tensor([[2.0], [4.0], [6.0]])

losses = []        # kept for logging later (a common habit)

for step in range(1, 6):
    optimizer.zero_grad()
    loss = loss_function(model(data), target)  # a new graph every step
    loss.backward(retain_graph=True)  # "just in case"
    optimizer.step()
    losses.append(loss)
    print(
        f"step {step}: loss={loss.item():.4f}  "
        f"weight={model.weight.item():.4f}"
    )


def still_holds_buffers(loss):
    try:
        loss.grad_fn._saved_self     # the prediction saved by MSELoss
        return True
    except RuntimeError:  # raised once the saved values are freed
        return False


kept = sum(still_holds_buffers(loss) for loss in losses)
print(
    "graphs whose saved tensors are still in memory:",
    f"{kept} of {len(losses)}",
)
