# %% [markdown]
# # Exercise 11: Why is the gradient None?
#
# **Level:** Intermediate
#
# Three small programs fit a weight to the same data, and each author expected a
# gradient where the scaffold prints `None`. Each has a different cause.
#
# 1. Run the scaffold. For every `None`, find the line that causes it. Read everything
#    the run prints, the warning too: which of the tensors does it speak about?
# 2. In B, `w_b` does get a gradient. Is it the gradient of the fit? Where does it
#    come from?
# 3. Fix each program so that every tensor named in the loop gets the gradient of its
#    loss, without changing what the loss computes. Keep what the author wanted: double
#    precision in A, a printable copy of the predictions in B, a small random start in C.
# 4. Check one of your gradients by hand.

# %% tags=["scaffold"]
import torch

x = torch.tensor([1.0, 2.0, 3.0])
target = torch.tensor([2.0, 3.5, 5.0])

# A: the weight is kept in double precision
w_a = torch.tensor(1.0, requires_grad=True).double()
loss_a = ((w_a * x - target) ** 2).mean()
loss_a.backward()

# B: the predictions are detached so that they can be printed
w_b = torch.tensor(1.0, requires_grad=True)
b_b = torch.tensor(0.0, requires_grad=True)
shown = (w_b * x + b_b).detach()
print("B's predictions:", shown)
loss_b = ((shown - target) ** 2).mean() + 0.01 * w_b ** 2
loss_b.backward()

# C: a small random start
torch.manual_seed(0)
w_c = torch.randn(1, requires_grad=True) * 0.1
loss_c = ((w_c * x - target) ** 2).mean()
loss_c.backward()

for name, value in [("A: w_a", w_a), ("B: w_b", w_b),
                    ("B: b_b", b_b), ("C: w_c", w_c)]:
    print(f"{name}.grad =", value.grad)

# %% [markdown] tags=["solution"]
# ## Solution
#
# **A, a cast.** `.double()` changed the dtype, so it returned a new tensor made by an
# operation that autograd recorded: `w_a` is not a leaf, and a plain `backward()` fills
# no `.grad` on a non-leaf (the warning says so, and names `retain_grad()` as the way to
# ask for one). Create the tensor in `float64` instead.
#
# **B, a detach.** `shown` is cut from the graph, so the fit term of the loss reaches
# neither `w_b` nor `b_b`: `b_b.grad` stays `None`. `w_b` gets only the gradient of the
# penalty $0.01 w^2$, $0.02w = 0.02$. Compute the loss from the tracked predictions,
# and detach only the copy you print.
#
# **C, a non-leaf.** `* 0.1` is an operation too: `w_c` is its result, not the leaf that
# `randn` created. Scale first, then ask for gradients with `requires_grad_()`, which
# keeps the tensor a leaf.

# %% tags=["solution"]
import torch

x = torch.tensor([1.0, 2.0, 3.0])
target = torch.tensor([2.0, 3.5, 5.0])

# A: created in double precision, so it is a leaf
w_a = torch.tensor(1.0, dtype=torch.float64,
                   requires_grad=True)
loss_a = ((w_a * x - target) ** 2).mean()
loss_a.backward()

# B: the loss uses the tracked predictions
w_b = torch.tensor(1.0, requires_grad=True)
b_b = torch.tensor(0.0, requires_grad=True)
prediction = w_b * x + b_b
print("B's predictions:", prediction.detach())
loss_b = ((prediction - target) ** 2).mean() + 0.01 * w_b ** 2
loss_b.backward()

# C: scaled before it requires gradients
torch.manual_seed(0)
w_c = (torch.randn(1) * 0.1).requires_grad_()
loss_c = ((w_c * x - target) ** 2).mean()
loss_c.backward()

for name, value in [("A: w_a", w_a), ("B: w_b", w_b),
                    ("B: b_b", b_b), ("C: w_c", w_c)]:
    print(f"{name}.is_leaf = {value.is_leaf},",
          "grad =", value.grad)

# %% [markdown] tags=["solution"]
# ## Checking A by hand
#
# With the residuals $r_i = w x_i - t_i = (-1, -1.5, -2)$ at $w = 1$,
#
# $$
# \frac{\partial L}{\partial w} = \frac{2}{3} \sum_i r_i x_i
# $$
#
# $$
# = \frac{2}{3}(-1 - 3 - 6) = -6.6667,
# $$
#
# and B's weight gets the same plus the penalty's $0.02$: $-6.6467$. B's bias gets
# $\frac{2}{3} \sum_i r_i = \frac{2}{3}(-4.5) = -3$.
#
# The three causes are the ones to check first whenever a gradient is `None`: is the
# tensor you read the leaf you created (no cast or arithmetic after
# `requires_grad=True`), and does a path from the loss reach it without a `detach()`?
