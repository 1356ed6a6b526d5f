import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(1, 1)
x = torch.tensor([[1.0], [2.0], [3.0]])
target = torch.tensor([[2.0], [4.0], [6.0]])

prediction = model(x)
loss = nn.functional.mse_loss(prediction, target)

# x and target have no node of their own ...
print("x.grad_fn:", x.grad_fn, " target.grad_fn:", target.grad_fn)

# ... but the nodes keep them: the weight's gradient needs x,
# the loss's gradient needs target.
addmm = loss.grad_fn.next_functions[0][0]
print(type(addmm).__name__, "saved x:",
      torch.equal(addmm._saved_mat1, x))
print(type(loss.grad_fn).__name__, "saved target:",
      torch.equal(loss.grad_fn._saved_target, target))
