# %% [markdown]
# # Exercise 5: Predict the output
#
# **Level:** Intermediate
#
# This exercise is about reading code as autograd reads it. The program below runs
# without printing anything. Read it, and **write down your answers to the six
# questions before you run anything**; then print what you need to check them.
#
# 1. After the first `backward()`, what is `a.grad`?
# 2. Is `b` a leaf, and does it require gradients?
# 3. After the second `backward()`, what is `a.grad`?
# 4. What is `k.grad`?
# 5. After the third `backward()`, what is `a.grad`? (One factor of `e` is detached.)
# 6. Does `flag` require gradients?
#
# For each answer, say which rule of the chapter gives it.

# %% tags=["scaffold"]
import torch

a = torch.tensor(2.0, requires_grad=True)
k = torch.tensor(5.0)

b = a * 3
c = b * a + a
c.backward()
# Questions 1 and 2

d = k * a
d.backward()
# Questions 3 and 4

e = a * a.detach()
e.backward()
# Question 5

flag = a > 1
# Question 6

# %% [markdown] tags=["solution"]
# ## Solution
#
# The same program, with a print after each question.

# %% tags=["solution"]
import torch

a = torch.tensor(2.0, requires_grad=True)
k = torch.tensor(5.0)

b = a * 3
c = b * a + a
c.backward()
print("1. a.grad:", a.grad)
print("2. b.is_leaf:", b.is_leaf,
      " b.requires_grad:", b.requires_grad)

d = k * a
d.backward()
print("3. a.grad:", a.grad)
print("4. k.grad:", k.grad,
      " k.requires_grad:", k.requires_grad)

e = a * a.detach()
e.backward()
print("5. a.grad:", a.grad)

flag = a > 1
print("6. flag.requires_grad:", flag.requires_grad,
      " dtype:", flag.dtype)
try:
    flag.requires_grad_()
except RuntimeError as error:
    print("   flag.requires_grad_():", error)

# %% [markdown] tags=["solution"]
# ## The rules behind each answer
#
# 1. $c = 3a \cdot a + a = 3a^2 + a$, so $\frac{dc}{da} = 6a + 1 = 13$ at $a = 2$. `a`
#    reaches `c` along three paths, through `b` ($a \times 3 = 6$), as the second
#    factor of `b * a` ($b = 6$) and through `+ a` (1), and autograd adds them:
#    $6 + 6 + 1 = 13$.
# 2. `b` was made by a recorded operation on `a`, so it requires gradients but is not a
#    leaf: it has a `grad_fn`, and a plain `backward()` leaves its `.grad` at `None`
#    (`retain_grad()` asks it to keep one).
# 3. $\frac{dd}{da} = k = 5$, and a second pass **adds** to `.grad`: $13 + 5 = 18$. Nothing
#    cleared the gradient in between.
# 4. `k` was created without `requires_grad=True`, so autograd computed nothing for it:
#    its `.grad` is `None`. It is a leaf all the same.
# 5. `a.detach()` returns a tensor with the same value that autograd does not track, so
#    `e` is differentiated as $a \cdot 2$: the pass adds 2, not $2a = 4$, and `a.grad`
#    becomes 20.
# 6. A comparison gives a `torch.bool` tensor, and only floating-point and complex tensors
#    can require gradients: `flag` does not, even though `a` does, and asking it to
#    raises. A result made from a tensor that requires gradients does not always require
#    them itself.
