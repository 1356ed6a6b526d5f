# %% [markdown]
# # Exercise 13: Find the bug in a training loop
#
# **Level:** Advanced
#
# The loop below should teach a one-weight linear model the line $y = 0.5x - 2$. It runs
# without an error, but the model learns nothing: the loss never moves.
#
# 1. Run the scaffold and look at the losses it prints.
# 2. Print `model.weight.grad` just before `optimizer.step()`. What do you see?
# 3. Find the line in the wrong place, move it, and check that the loss falls.

# %% tags=["scaffold"]
import torch
import torch.nn as nn

torch.manual_seed(0)
inputs = torch.tensor([[-1.5], [-0.5], [0.5], [1.5]])
targets = 0.5 * inputs - 2

model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_function = nn.MSELoss()

for step in range(5):
    loss = loss_function(model(inputs), targets)
    loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    print(f"step {step + 1}: loss {loss.item():.4f}")

# %% [markdown] tags=["solution"]
# ## Solution
#
# The solution prints what the broken order leaves for `step()`, then runs the corrected
# loop. Its comments name the line that was in the wrong place.

# %% tags=["solution"]
import torch
import torch.nn as nn

torch.manual_seed(0)
inputs = torch.tensor([[-1.5], [-0.5], [0.5], [1.5]])
targets = 0.5 * inputs - 2

model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_function = nn.MSELoss()

# What the broken order leaves for step():
loss = loss_function(model(inputs), targets)
loss.backward()
optimizer.zero_grad()
print("broken order, weight.grad before step():",
      model.weight.grad)

# The bug: zero_grad() ran between backward() and step(). It
# threw the fresh gradients away (by default it sets every .grad
# to None), so step() had nothing to apply. Clear them BEFORE
# the backward pass instead:
for step in range(30):
    optimizer.zero_grad()  # clear the previous step's gradients
    loss = loss_function(model(inputs), targets)
    loss.backward()
    optimizer.step()
    if step % 5 == 4:
        print(f"step {step + 1:2d}: loss {loss.item():.6f}")

print(f"learned: weight {model.weight.item():.4f},"
      f" bias {model.bias.item():.4f}")

# %% [markdown] tags=["solution"]
# ## How to find such a bug
#
# A loss that does not move at all, not even a little, means that the parameters did not
# change. Either the update never happens, or it has no gradient to apply. Print the
# gradients right before `optimizer.step()` to tell the two apart.
#
# The order that works is the one from "The training loop" page: clear, forward,
# backward, step. `zero_grad()` may also come last, after `step()`, as long as it
# never sits between `backward()` and `step()`.
