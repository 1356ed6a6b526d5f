"""Runs that try to break the general statements of the exercise notebooks (dev/claims.md, "General
statements of the exercises"). Each block prints what it found; the claims record quotes it.

Run: .venv/bin/python dev/counter-examples/exercises.py (torch only; nothing of this project).
"""

import torch
from torch.func import grad

# "Only floating-point and complex tensors can require gradients" (exercise 5, question 6)
for dtype in (torch.bool, torch.int64, torch.float16, torch.complex64):
    try:
        torch.zeros(2, dtype=dtype).requires_grad_()
        print(f"{dtype}: can require gradients")
    except RuntimeError as error:
        print(f"{dtype}: {error}")

# "A plain backward() leaves a non-leaf's .grad at None" (exercises 5 and 11): backward(inputs=)
# is not plain, and fills it; this run is why the exercises no longer say "unless retain_grad()".
a = torch.tensor(2.0, requires_grad=True)
b = a * 3
(b * a).backward(inputs=[b])
print("non-leaf b given in inputs=:", b.grad)

# "backward() with no argument works only when the output has a single element" (exercise 7)
for shape in [(1, 1), (0,), (2,)]:
    t = torch.ones(shape, requires_grad=True)
    try:
        (t * 2).backward()
        print(f"shape {shape}: works")
    except RuntimeError as error:
        print(f"shape {shape}: {error}")

# "Without remove(), the hook stays on w for every later backward pass" (exercise 10)
w = torch.tensor(0.5, requires_grad=True)
calls = []
w.register_hook(lambda g: calls.append(g.item()))
for _ in range(3):
    ((4 * w - 10) ** 2).backward()
print("hook calls over three passes:", calls)

# "With torch.autograd.grad, a derivative differentiated again needs create_graph=True"
# (exercise 17): torch.func.grad nests without the flag, hence the "With torch.autograd.grad".
print("torch.func.grad twice:", grad(grad(lambda x: x**4 - 3 * x**2))(torch.tensor(2.0)))
x = torch.tensor(2.0, requires_grad=True)
(first,) = torch.autograd.grad(3 * x, x)  # a constant derivative: still no grad_fn
try:
    torch.autograd.grad(first, x)
except RuntimeError as error:
    print("autograd.grad of a derivative made without create_graph:", error)
