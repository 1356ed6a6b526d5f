# snippet: curves manual[:,0]="manual update" sgd[:,0]="optim.SGD"
# snippet: curves xlabel=step ylabel="loss (squared error)"
import torch


def train(update, steps=10, lr=0.01):
    """Fit w*x + b to one point; return (loss, w, b) after every step."""
    x, target = torch.tensor(2.0), torch.tensor(10.0)
    w = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    optimizer = torch.optim.SGD([w, b], lr=lr)
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = (w * x + b - target) ** 2
        loss.backward()
        if update == "sgd":
            optimizer.step()
        elif update == "manual":              # the page's manual loop
            with torch.no_grad():
                w -= lr * w.grad
                b -= lr * b.grad
        elif update == "add_alpha":           # what SGD does internally
            with torch.no_grad():
                w.add_(w.grad, alpha=-lr)
                b.add_(b.grad, alpha=-lr)
        history.append((loss.item(), w.item(), b.item()))
    return history


def printed(history):
    return [f"Loss={l:.4f}, w={w:.4f}, b={b:.4f}" for l, w, b in history]


manual, sgd, add_alpha = train("manual"), train("sgd"), train("add_alpha")

largest = max(
    abs(p - q) for m, s in zip(manual, sgd) for p, q in zip(m, s)
)

print("manual vs SGD, printed lines (4 decimals) identical:",
      printed(manual) == printed(sgd))
print("manual vs SGD, raw float32 values identical:        ",
      manual == sgd)
print("manual vs SGD, largest raw difference:              ",
      f"{largest:.2e}")
print("add_(grad, alpha=-lr) vs SGD, raw values identical: ",
      add_alpha == sgd)
