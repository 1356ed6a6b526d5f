import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
blocks = nn.ModuleList(
    nn.Sequential(nn.Linear(64, 64), nn.Tanh()) for _ in range(8))
x = torch.randn(32, 64, requires_grad=True)
weights = {p.data_ptr() for p in blocks.parameters()}
saved = {"weights": 0, "activations": 0, "bytes": 0}
forward_runs = [0]


def pack(t):
    # Called for every tensor the forward pass saves for backward.
    if t.data_ptr() in weights:
        saved["weights"] += 1       # a parameter: no extra memory
    else:
        saved["activations"] += 1
        saved["bytes"] += t.numel() * t.element_size()
    return t.detach()               # no reference to t itself


def unpack(t):
    return t


def count_run(module, inputs):
    forward_runs[0] += 1


for block in blocks:
    block.register_forward_pre_hook(count_run)   # as a block starts


def run(use_checkpoint):
    saved.update(weights=0, activations=0, bytes=0)
    forward_runs[0] = 0
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        h = x
        for block in blocks:
            if use_checkpoint:
                h = checkpoint(block, h, use_reentrant=False)
            else:
                h = block(h)
        loss = h.pow(2).mean()
    x.grad = None
    loss.backward()
    print(f"checkpoint={use_checkpoint!s:<5}:"
          f" {saved['activations']:>2} activations,"
          f" {saved['bytes']:>6} bytes;"
          f" {saved['weights']} weights; {forward_runs[0]} block runs")
    return x.grad.clone()


plain = run(use_checkpoint=False)
checkpointed = run(use_checkpoint=True)
print("same gradient either way:", torch.equal(plain, checkpointed))
