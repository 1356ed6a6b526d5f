import torch

# A layer with 3 inputs and 2 outputs, y = W x + b, on one input x
W = torch.tensor([[0.5, -1.0, 2.0],
                  [1.5, 0.0, -0.5]], requires_grad=True)
b = torch.tensor([0.1, -0.2], requires_grad=True)
x = torch.tensor([1.0, 2.0, -1.0])
target = torch.tensor([1.0, 0.0])

y = W @ x + b
loss = ((y - target) ** 2).sum()
loss.backward()

print("y =", y)
print("W.grad, shape", tuple(W.grad.shape), "like W:")
print(W.grad)

# By hand: delta = dloss/dy = 2 (y - target), a vector of 2;
# dloss/dW = delta x^T, the outer product, 2 x 3 like W
delta = 2 * (y.detach() - target)
print("delta =", delta)
print("delta x^T:")
print(torch.outer(delta, x))
print("W.grad equals delta x^T:",
      torch.allclose(W.grad, torch.outer(delta, x)))
print("b.grad =", b.grad, " equals delta:", torch.allclose(b.grad, delta))
