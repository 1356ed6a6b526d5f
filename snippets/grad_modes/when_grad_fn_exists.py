import torch

x = torch.tensor(2.0, requires_grad=True)   # tracked
c = torch.tensor(3.0)                       # not tracked


def describe(name, t):
    node = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    print(f"{name:<22} requires_grad={t.requires_grad!s:<5}"
          f" grad_fn={node}")


describe("x * c", x * c)        # one tracked input is enough
describe("c * 2", c * 2)        # no tracked input: no node
with torch.no_grad():
    describe("x * c in no_grad()", x * c)   # tracking switched off
with torch.inference_mode():
    describe("x * c in inference", x * c)   # the same, with less overhead
describe("x.detach() * c", x.detach() * c)  # cut off the graph
describe("x (a leaf)", x)
describe("x > 1", x > 1)        # a boolean result is not tracked
describe("x.argmax()", x.argmax())   # nor an integer one

# detach() makes no copy: the result reads the same memory as x.
d = x.detach()
print("x.detach() shares x's storage:", d.data_ptr() == x.data_ptr())
