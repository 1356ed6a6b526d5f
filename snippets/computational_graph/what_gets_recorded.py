import torch

x = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
c = torch.tensor([2.0, 2.0, 2.0])       # requires no gradient

y = x * c          # one tracked input is enough
print("x * c:      requires_grad", y.requires_grad,
      " grad_fn", type(y.grad_fn).__name__)

z = c * 2          # no tracked input: nothing recorded
print("c * 2:      requires_grad", z.requires_grad, " grad_fn", z.grad_fn)

print("x:          requires_grad", x.requires_grad, " grad_fn", x.grad_fn)

# Results with integer or boolean values carry no gradient,
# even when every input is tracked.
i = x.argmax()
print("x.argmax(): requires_grad", i.requires_grad, " grad_fn", i.grad_fn,
      " dtype", i.dtype)
m = x > 1.5
print("x > 1.5:    requires_grad", m.requires_grad, " grad_fn", m.grad_fn,
      " dtype", m.dtype)

# A function that reads only x's shape records nothing either.
o = torch.zeros_like(x)
print("zeros_like: requires_grad", o.requires_grad, " grad_fn", o.grad_fn)
