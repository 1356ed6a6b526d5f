import torch

# Two outputs of three inputs: y = J x, so the Jacobian of y is J,
# a 2 x 3 matrix that is not square.
J = torch.tensor([[1.0, 2.0, 0.0],
                  [0.0, 3.0, 4.0]])
x = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
y = J @ x                        # matrix times vector: 2 outputs

v = torch.tensor([1.0, 10.0])    # one entry per output
y.backward(v)

print("x.grad:", x.grad)
print("v @ J: ", v @ J)          # v^T J: three entries, like x
