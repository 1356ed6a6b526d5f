import torch
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
params = dict(model.named_parameters())
inputs, targets = torch.randn(4, 3), torch.randn(4, 1)


def loss_of_one(params, x, t):
    # one example: add the batch dimension the model expects
    out = functional_call(model, params, (x.unsqueeze(0),))
    return ((out - t) ** 2).mean()


# grad differentiates with respect to params; vmap maps it over
# the examples: one weight gradient per example.
per_example = vmap(grad(loss_of_one), in_dims=(None, 0, 0))(
    params, inputs, targets)
print("per-example weight gradients:",
      tuple(per_example["weight"].shape))

# The same, one backward() per example:
for i in range(4):
    model.zero_grad()
    loss_of_one(params, inputs[i], targets[i]).backward()
    same = torch.allclose(model.weight.grad,
                          per_example["weight"][i])
    print(f"example {i}: equal to its own backward():", same)
