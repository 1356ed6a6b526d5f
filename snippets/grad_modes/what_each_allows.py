import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)


def first_line(error):
    return str(error).split(".")[0] + "."


with torch.no_grad():
    a = w * 2
with torch.set_grad_enabled(False):
    b = w * 2
with torch.inference_mode():
    c = w * 2

for name, t in (("no_grad", a), ("set_grad_enabled(False)", b),
                ("inference_mode", c)):
    print(f"{name:<24} requires_grad={t.requires_grad}"
          f"  is_inference={t.is_inference()}")

# Afterwards, outside the block: use each result in a tracked
# computation, then change it in place.
for name, t in (("no_grad", a), ("set_grad_enabled(False)", b),
                ("inference_mode", c)):
    try:
        (w * t).sum().backward()
        used = f"used with w: w.grad = {w.grad.tolist()}"
        w.grad = None
    except RuntimeError as error:
        used = "used with w: RuntimeError: " + first_line(error)
    print(f"{name}: {used}")
    try:
        t.add_(1)
        print(f"{name}: add_(1) gives {t.tolist()}")
    except RuntimeError as error:
        print(f"{name}: add_(1): RuntimeError: {first_line(error)}")
