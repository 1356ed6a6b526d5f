# %% [markdown]
# # Exercise 12: Mini training loop
#
# **Level:** Advanced
#
# Train the linear model $\hat{y} = wx + b$ until it has learned $y = 1 - 3x$,
# that is until $w \approx -3$ and $b \approx 1$.
#
# Write a loop that, on every iteration:
#
# 1. computes predictions from the training data,
# 2. computes the mean squared error between predictions and targets,
# 3. calls `backward()`,
# 4. updates `w` and `b` with gradient descent,
# 5. clears the gradients,
# 6. prints the loss.
#
# At the end, print `w` and `b`.
#
# This exercise uses plain tensors `w` and `b` with `requires_grad=True` and no
# optimizer, so every step is yours to write. Two questions to answer before you write
# the update: why must it not be recorded by autograd, and what would happen to the
# second iteration if you left out step 5?

# %% tags=["scaffold"]
import torch

# w and b start from random values; the seed makes them repeat.
torch.manual_seed(0)

# Training data: five inputs and their targets from y = 1 - 3x
x = torch.tensor([[-2.0], [-1.0], [0.0], [1.0], [2.0]])
y = 1 - 3 * x

w = torch.randn(1, requires_grad=True)
b = torch.randn(1, requires_grad=True)
learning_rate = 0.1

print(f"Before training: w={w.item():.4f}, b={b.item():.4f}")

for step in range(20):
    # Your code: steps 1 to 6 of the task, with learning_rate.
    pass

# Unchanged until the loop does something:
print(f"After training:  w={w.item():.4f}, b={b.item():.4f}")

# %% [markdown] tags=["solution"]
# ## Solution
#
# The update is wrapped in `torch.no_grad()` so that it is not recorded in the graph, and
# `zero_()` clears the gradients afterwards so that the next iteration does not add to them.

# %% tags=["solution"]
# snippet: curves losses="training loss" xlabel=iteration ylabel="loss (MSE)"
import torch

torch.manual_seed(0)

x = torch.tensor([[-2.0], [-1.0], [0.0], [1.0], [2.0]])
y = 1 - 3 * x

w = torch.randn(1, requires_grad=True)
b = torch.randn(1, requires_grad=True)
learning_rate = 0.1

print(f"Start: w={w.item():.4f}, b={b.item():.4f}")

losses = []

for step in range(20):
    prediction = w * x + b                 # forward pass
    loss = ((prediction - y) ** 2).mean()  # mean squared error

    loss.backward()  # gradients land in w.grad and b.grad

    with torch.no_grad():  # parameter update, not tracked
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad

    w.grad.zero_()  # clear before the next iteration
    b.grad.zero_()

    losses.append(loss.item())
    print(f"Iteration {step + 1:2d}: loss={loss.item():.6f}")

print(f"Learned: w={w.item():.4f}, b={b.item():.4f}")

# %% [markdown] tags=["solution"]
# ## What the loop did
#
# With $N$ training points the loss and its gradients are
#
# $$
# L = \frac{1}{N} \sum_{i=1}^{N} (w x_i + b - y_i)^2
# $$
#
# $$
# \frac{\partial L}{\partial w} = \frac{2}{N} \sum_{i=1}^{N} (w x_i + b - y_i)\, x_i
# $$
#
# $$
# \frac{\partial L}{\partial b} = \frac{2}{N} \sum_{i=1}^{N} (w x_i + b - y_i)
# $$
#
# and each iteration moves the parameters a small step against them:
# $w \leftarrow w - \eta \frac{\partial L}{\partial w}$, $b \leftarrow b - \eta \frac{\partial L}{\partial b}$
# with learning rate $\eta = 0.1$. The loss shrinks on every iteration and, after 20 of them,
# $w$ is essentially $-3$ and $b$ close to 1.
#
# **Why these inputs?** They are centered on zero ($\sum_i x_i = 0$), so a change in $b$ does not
# disturb the gradient of $w$ and the other way round. With inputs that are all positive, such
# as 1, 2, 3 and 4, $w$ and $b$ are coupled, and $b$ creeps towards 1 much more slowly. The run
# below counts the iterations each case needs until $w$ and $b$ are both within 0.01 of $-3$
# and 1, from the same random start.

# %% tags=["solution"]
def steps_to_learn(inputs, rate):
    """Iterations until w and b are within 0.01 of -3 and 1."""
    torch.manual_seed(0)
    targets = 1 - 3 * inputs
    w = torch.randn(1, requires_grad=True)
    b = torch.randn(1, requires_grad=True)
    for step in range(1, 2001):
        error = w * inputs + b - targets
        (error ** 2).mean().backward()
        with torch.no_grad():
            w -= rate * w.grad
            b -= rate * b.grad
        w.grad.zero_()
        b.grad.zero_()
        if abs(w.item() + 3) < 0.01 and abs(b.item() - 1) < 0.01:
            return step
    return None


centered = torch.tensor([[-2.0], [-1.0], [0.0], [1.0], [2.0]])
positive = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
for name, inputs in [("-2 to 2", centered), ("1 to 4", positive)]:
    for rate in (0.1, 0.05):
        steps = steps_to_learn(inputs, rate)
        print(f"inputs {name}, learning rate {rate}:"
              f" {steps} iterations")

# %% [markdown] tags=["solution"]
# The centered inputs need 22 iterations at a learning rate of 0.1, and 47 at 0.05. The
# inputs 1 to 4 need 183 at 0.1, and 368 at 0.05: about eight times as many as the
# centered ones at the same rate. That is why the exercise uses centered inputs, and why
# inputs are often normalized before training. If you train on 1 to 4 yourself, print
# only every 20th iteration.
