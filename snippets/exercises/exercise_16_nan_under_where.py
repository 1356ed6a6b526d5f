# %% [markdown]
# # Exercise 16: A NaN under torch.where
#
# **Level:** Advanced
#
# The function $\operatorname{sinc}(x) = \frac{\sin x}{x}$ is undefined at 0, where its
# limit is 1, and it is smooth there: its derivative at 0 is 0. The scaffold computes it
# with `torch.where`, which picks $\frac{\sin x}{x}$ where $x \ne 0$ and 1 elsewhere.
# The values come out right. The gradient does not.
#
# 1. Run the scaffold. Which element of `x.grad` is wrong, and what should it be?
# 2. `where` picked 1 at $x = 0$, so why does the division matter there at all? Find
#    out what gradient `where` sends to the division's output (`retain_grad()` on it
#    will show you), and what the division's backward pass makes of it at $x = 0$.
# 3. Fix the function so that its values stay the same and its gradient is right
#    everywhere, 0 at $x = 0$ included. The rule: no element that reaches the division
#    may be 0, even one that `where` will not pick.
# 4. Check the other two elements against the derivative by hand,
#    $\frac{x \cos x - \sin x}{x^2}$.

# %% tags=["scaffold"]
import torch

x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
y = torch.where(x != 0, torch.sin(x) / x, 1.0)
print("y =", y.detach())

y.sum().backward()
print("x.grad =", x.grad)

# %% [markdown] tags=["solution"]
# ## Solution
#
# First the diagnosis: the gradient that reaches the division's output, and what comes
# out of it. Then the fix: the division gets a safe copy of `x`, with 1 in place of 0,
# so it never divides by 0, and `where` still picks 1 at $x = 0$.

# %% tags=["solution"]
import torch

x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
ratio = torch.sin(x) / x
ratio.retain_grad()
y = torch.where(x != 0, ratio, 1.0)
y.sum().backward()
print("into the division: ", ratio.grad)
print("out of it, x.grad: ", x.grad)

# The fix: nothing that reaches the division is 0
x.grad = None
safe = torch.where(x != 0, x, 1.0)
y = torch.where(x != 0, torch.sin(safe) / safe, 1.0)
print("y =", y.detach())
y.sum().backward()
print("fixed x.grad =", x.grad)

with torch.no_grad():
    by_hand = (x * torch.cos(x) - torch.sin(x)) / x ** 2
print("by hand:      ", by_hand)

# %% [markdown] tags=["solution"]
# ## How the NaN gets past the mask
#
# `where` sends the full upstream gradient to the branch it picked and 0 to the other:
# at $x = 0$ the division's output received 0. But the division's backward pass still
# runs for every element. Its gradient with respect to the numerator is the upstream
# gradient divided by $x$, here $0 / 0$, which is NaN, and `sin`'s backward pass
# multiplies that NaN by $\cos 0$ on its way to `x.grad`: still NaN. `where` masked the
# value, not the arithmetic of the branch it did not pick.
#
# The fix removes the 0 before the division, where it does harm: `safe` is 1 at
# $x = 0$, so the division computes $\sin 1 / 1$, a finite value that `where` then
# ignores, and the gradient of the ignored branch is a finite number times 0, which
# is 0. The other two elements keep their derivatives, equal to the formula:
# at $x = -1$, $\frac{-\cos 1 + \sin 1}{1} = 0.3012$, and at $x = 2$,
# $\frac{2\cos 2 - \sin 2}{4} = -0.4354$. (The formula itself is $0/0$ at $x = 0$:
# its limit there is 0, the value the fixed gradient gives.)
