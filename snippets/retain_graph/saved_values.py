import torch


def saved_input(t):
    """Read the value that y = x ** 2 saved for its backward pass.

    Attributes starting with _saved on a grad_fn expose what autograd
    stored (see "Saved tensors" in PyTorch's autograd mechanics notes).
    """
    try:
        return t.grad_fn._saved_self
    except RuntimeError:
        return "freed"


x = torch.tensor(2.0, requires_grad=True)

y = x ** 2
print("before backward():                ", saved_input(y))

y.backward(retain_graph=True)
print("after backward(retain_graph=True):", saved_input(y))

y = x ** 2
y.backward()
print("after a plain backward():         ", saved_input(y))
