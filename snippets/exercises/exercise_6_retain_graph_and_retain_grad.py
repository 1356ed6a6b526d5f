# %% [markdown]
# # Exercise 6: Keeping gradients and graphs
#
# **Level:** Intermediate
#
# Two calls with similar names and different jobs: `retain_grad()` keeps the gradient of an
# intermediate tensor, and `retain_graph=True` keeps the graph for another backward pass.
#
# With `x = 1.5` (tracking gradients), build `h = x ** 2 - 4` and `loss = h ** 2`.
#
# 1. Make `h` keep its gradient, then call `loss.backward(retain_graph=True)`.
#    Print `h.grad` and `x.grad`.
# 2. Call `loss.backward()` a second time on the same graph. Print `x.grad` again
#    and explain the new value.
# 3. Try a third `loss.backward()`, catch the `RuntimeError`, and print the first
#    part of its message. Why does the third call fail when the second did not?
#
# Work out $\frac{\partial\,\text{loss}}{\partial h}$ and
# $\frac{\partial\,\text{loss}}{\partial x}$ on paper first.

# %% tags=["scaffold"]
import torch

x = torch.tensor(1.5, requires_grad=True)
h = x ** 2 - 4
loss = h ** 2

print("h is a leaf?", h.is_leaf)

# Your code: steps 1 to 3 of the task. The third pass must not
# stop the cell: catch its RuntimeError and print the message.

# %% [markdown] tags=["solution"]
# ## Solution
#
# `retain_grad()` must come before the backward pass. `retain_graph=True` on the first call
# keeps the saved values, so the second call can run; the second call does not pass it, and
# frees them.

# %% tags=["solution"]
import torch

x = torch.tensor(1.5, requires_grad=True)
h = x ** 2 - 4
loss = h ** 2

h.retain_grad()
loss.backward(retain_graph=True)
print("after the first pass:  h.grad =", h.grad,
      " x.grad =", x.grad)

loss.backward()
print("after the second pass: h.grad =", h.grad,
      " x.grad =", x.grad)

try:
    loss.backward()
except RuntimeError as error:
    print("third pass:", str(error)[:50])

# %% [markdown] tags=["solution"]
# ## What happened
#
# At $x = 1.5$ the intermediate value is $h = 2.25 - 4 = -1.75$. By the chain rule:
#
# $$
# \begin{aligned}
# \frac{\partial\,\text{loss}}{\partial h} &= 2h = -3.5, \\
# \frac{\partial\,\text{loss}}{\partial x} &= 2h \cdot 2x \\
# &= -3.5 \times 3 = -10.5
# \end{aligned}
# $$
#
# The second pass computes the same gradients and **adds** them: $-21$ for `x`, and
# $-7$ for `h`, whose gradient `retain_grad()` keeps the same way.
# The second call did not pass `retain_graph=True`, so it freed the graph's saved
# values, and the third call finds nothing to work with. The message says "a second time"
# although this is the third pass: it means any pass that needs values the graph has freed.
