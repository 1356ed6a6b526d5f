import torch
import torch.autograd.forward_ad as fwAD
from torch.func import jacfwd, jacrev, jvp, vjp


def f(x):
    return torch.stack([x[0] * x[1], x[1] + x[2] ** 2])


x = torch.tensor([1.0, 2.0, 3.0])
J = jacrev(f)(x)

# Forward mode pushes a direction u of the input forward: J u.
u = torch.tensor([1.0, 0.0, 0.0])
_, Ju = jvp(f, (x,), (u,))
print("jvp, J u (one column of J): ", Ju)

# Reverse mode pulls a weight v of the outputs back: v^T J.
v = torch.tensor([1.0, 0.0])
_, pull = vjp(f, x)
(vJ,) = pull(v)
print("vjp, v^T J (one row of J):  ", vJ)
print("J:", J.tolist())

# jacfwd builds J column by column, jacrev row by row.
print("jacfwd equals jacrev:", torch.equal(jacfwd(f)(x), J))

# The same forward mode with dual numbers:
with fwAD.dual_level():
    dual = fwAD.make_dual(x, u)
    print("forward_ad tangent:", fwAD.unpack_dual(f(dual)).tangent)
