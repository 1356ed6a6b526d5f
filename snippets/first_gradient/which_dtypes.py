# snippet: raises RuntimeError: Only Tensors of floating point and complex dtype
import torch

real = torch.tensor(2.0, requires_grad=True)
print("float32:  ", real.dtype, real.requires_grad)

# Complex numbers can be tracked too.
z = torch.tensor(2.0 + 1.0j, requires_grad=True)
print("complex64:", z.dtype, z.requires_grad)

# An integer tensor cannot: this line raises.
n = torch.tensor(2, requires_grad=True)
