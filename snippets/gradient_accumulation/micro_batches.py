import torch
import torch.nn as nn

torch.manual_seed(0)

model = nn.Linear(1, 1)
loss_function = nn.MSELoss()  # averages over the samples it is given

inputs = torch.linspace(-1.0, 1.0, 8).reshape(8, 1)  # a batch of 8
targets = 2 * inputs + 1

# 1) The whole batch of 8 in one backward pass
model.zero_grad()
loss_function(model(inputs), targets).backward()
full_batch_grad = model.weight.grad.clone()

# 2) Four micro-batches of 2, accumulating into .grad
model.zero_grad()
accumulation_steps = 4
for step, (micro_inputs, micro_targets) in enumerate(
    zip(inputs.split(2), targets.split(2)), start=1
):
    loss = loss_function(model(micro_inputs), micro_targets)
    loss = loss / accumulation_steps
    loss.backward()  # adds this micro-batch's share to model.weight.grad
    grad = model.weight.grad.item()
    print(f"after micro-batch {step}: weight.grad = {grad:.4f}")
accumulated_grad = model.weight.grad.clone()

print()
print(f"full batch of 8:      {full_batch_grad.item():.4f}")
print(f"4 micro-batches of 2: {accumulated_grad.item():.4f}")
print("same gradient:", torch.allclose(full_batch_grad, accumulated_grad))
