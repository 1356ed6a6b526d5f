# %% [markdown]
# # Exercise 14: The gradient of a weight matrix
#
# **Level:** Advanced
#
# A layer without bias computes $y = Wx$. Here $W$ is $3 \times 2$, $x = (2, -1)$, the
# target is $t = (1, 0, 2)$, and the loss is $L = \frac{1}{2}\sum_i (y_i - t_i)^2$.
#
# 1. Predict the shape of `W.grad` before you run anything.
# 2. Work out $\delta = \frac{\partial L}{\partial y}$ by hand, then
#    $\frac{\partial L}{\partial W_{ij}}$ for one entry. Which two numbers does it
#    multiply? Write the whole gradient as one product of $\delta$ and $x$.
# 3. Run the backward pass and check `W.grad` against your product, computed from
#    tensors that autograd does not track (`torch.outer` may help).
# 4. Now the same layer sees a batch: the rows of `X` are three inputs, and the loss
#    adds the three examples' losses. Predict `W.grad` as a sum of three outer
#    products, then as one matrix product of the batch's $\delta$s and `X`, and check
#    both against autograd.

# %% tags=["scaffold"]
import torch

W = torch.tensor([[1.0, 0.0],
                  [0.5, -1.0],
                  [2.0, 1.0]], requires_grad=True)
x = torch.tensor([2.0, -1.0])
t = torch.tensor([1.0, 0.0, 2.0])

X = torch.tensor([[2.0, -1.0],
                  [1.0, 0.0],
                  [0.0, 3.0]])
T = torch.tensor([[1.0, 0.0, 2.0],
                  [0.0, 1.0, 1.0],
                  [1.0, -2.0, 4.0]])

print("W has shape", tuple(W.shape), " x has shape",
      tuple(x.shape))

# Your code: steps 3 and 4 of the task. Clear W.grad before the
# batch's backward pass.

# %% [markdown] tags=["solution"]
# ## Solution
#
# $\delta$ is the gradient of the loss with respect to the layer's output; the weight
# gradient is its outer product with the input, and for a batch the sum of the
# examples' outer products.

# %% tags=["solution"]
import torch

W = torch.tensor([[1.0, 0.0],
                  [0.5, -1.0],
                  [2.0, 1.0]], requires_grad=True)
x = torch.tensor([2.0, -1.0])
t = torch.tensor([1.0, 0.0, 2.0])

y = W @ x
loss = 0.5 * ((y - t) ** 2).sum()
loss.backward()

delta = (y - t).detach()
print("delta =", delta)
print("W.grad =", W.grad)
print("outer(delta, x) equal:",
      torch.equal(W.grad, torch.outer(delta, x)))

# A batch: one input per row of X, one target per row of T
X = torch.tensor([[2.0, -1.0],
                  [1.0, 0.0],
                  [0.0, 3.0]])
T = torch.tensor([[1.0, 0.0, 2.0],
                  [0.0, 1.0, 1.0],
                  [1.0, -2.0, 4.0]])

W.grad = None
Y = X @ W.T                    # row n is W @ X[n]
loss = 0.5 * ((Y - T) ** 2).sum()
loss.backward()

D = (Y - T).detach()           # row n is example n's delta
by_sum = sum(torch.outer(D[n], X[n]) for n in range(3))
print("batch W.grad =", W.grad)
print("sum of outer products equal:",
      torch.allclose(W.grad, by_sum))
print("D.T @ X equal:", torch.allclose(W.grad, D.T @ X))

# %% [markdown] tags=["solution"]
# ## Why an outer product
#
# Entry $W_{ij}$ multiplies $x_j$ and adds to $y_i$ only, so
# $\frac{\partial y_i}{\partial W_{ij}} = x_j$ and, by the chain rule,
#
# $$
# \frac{\partial L}{\partial W_{ij}} = \frac{\partial L}{\partial y_i}\,x_j = \delta_i x_j,
# \qquad
# \frac{\partial L}{\partial W} = \delta\, x^\top .
# $$
#
# Here $y = Wx = (2, 2, 3)$, so $\delta = y - t = (1, 2, 1)$, and
#
# $$
# \delta x^\top =
# \begin{bmatrix} 1 \\ 2 \\ 1 \end{bmatrix}
# \begin{bmatrix} 2 & -1 \end{bmatrix}
# = \begin{bmatrix} 2 & -1 \\ 4 & -2 \\ 2 & -1 \end{bmatrix},
# $$
#
# a $3 \times 2$ matrix, the shape of $W$: an $(\text{outputs} \times 1)$ column times a
# $(1 \times \text{inputs})$ row. Every row of the gradient is a multiple of $x$: one
# example can only move $W$ along its own input.
#
# For a batch, each example adds its own $\delta_n x_n^\top$, and stacking the $\delta$s
# as the rows of $D$ and the inputs as the rows of $X$ turns the sum into one matrix
# product, $\sum_n \delta_n x_n^\top = D^\top X$: the weight gradient of a linear layer
# over a batch, as the "Gradients of vectors and matrices" page derives it.
