import torch


def double(grad):
    return grad * 2           # a hook may replace the gradient


print("registered in the loop, never removed:")
x = torch.tensor(2.0, requires_grad=True)
for step in range(1, 4):
    x.register_hook(double)   # one more hook on x every step
    x.grad = None
    (x ** 2).backward()
    print(f"  step {step}: x.grad =", x.grad)

print("removed through its handle after each step:")
x = torch.tensor(2.0, requires_grad=True)
for step in range(1, 4):
    handle = x.register_hook(double)
    x.grad = None
    (x ** 2).backward()
    handle.remove()           # x has no hook left
    print(f"  step {step}: x.grad =", x.grad)

print("register_hook returned a", type(handle).__name__)
