import torch
import torch.nn as nn

x = torch.tensor([[1.0], [2.0], [3.0]])
target = 2 * x


def total_grad_norm(parameters):
    # The L2 norm of all parameter gradients taken together, the number
    # torch.nn.utils.clip_grad_norm_ also returns.
    norms = [p.grad.norm() for p in parameters if p.grad is not None]
    return torch.linalg.vector_norm(torch.stack(norms)).item()


for lr in (0.01, 0.3):
    torch.manual_seed(0)  # same starting weights for both runs
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_function = nn.MSELoss()

    print(f"learning rate {lr}")
    for step in range(3):
        optimizer.zero_grad()
        loss = loss_function(model(x), target)
        loss.backward()
        grad_norm = total_grad_norm(model.parameters())
        optimizer.step()
        print(
            f"  step {step + 1}: loss={loss.item():.4f}  "
            f"grad norm={grad_norm:.4f}"
        )
