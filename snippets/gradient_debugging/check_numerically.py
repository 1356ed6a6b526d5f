import torch


def f(x):
    return (3 * x + 4) ** 2


# 1. A central finite difference against autograd, at x = 2.
x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
f(x).backward()
h = 1e-6
with torch.no_grad():
    numeric = (f(x + h) - f(x - h)) / (2 * h)
print(f"autograd: {x.grad.item():.6f}   "
      f"finite difference: {numeric.item():.6f}")

# 2. torch.autograd.gradcheck does the same for every input element.
xs = torch.tensor(
    [-1.0, 0.5, 2.0], dtype=torch.float64, requires_grad=True
)
print("gradcheck(f):", torch.autograd.gradcheck(f, (xs,)))


# 3. A hand-written backward with a bug: it forgets the factor 3.
class BuggySquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (3 * x + 4) ** 2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * (3 * x + 4)   # should be * 3 as well


ok = torch.autograd.gradcheck(
    BuggySquare.apply, (xs,), raise_exception=False
)
print("gradcheck(BuggySquare):", ok)
