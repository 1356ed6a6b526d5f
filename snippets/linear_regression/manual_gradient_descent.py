import torch

x = torch.tensor(2.0)
target = torch.tensor(10.0)

w = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)

learning_rate = 0.01

for step in range(10):
    prediction = w * x + b                  # forward pass
    loss = (prediction - target) ** 2       # loss

    loss.backward()                         # gradients

    with torch.no_grad():                   # update, without recording it
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad

    w.grad.zero_()                          # clear for the next step
    b.grad.zero_()

    print(
        f"Step {step + 1}: "
        f"Loss={loss.item():.4f}, "
        f"w={w.item():.4f}, "
        f"b={b.item():.4f}"
    )
