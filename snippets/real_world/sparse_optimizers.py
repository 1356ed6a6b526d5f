import torch
import torch.nn as nn

# Adagrad builds a sparse tensor and warns unless you choose whether
# its invariants are checked: opt out explicitly, as the warning asks.
torch.sparse.check_sparse_tensor_invariants.disable()

optimizers = {
    "SGD": torch.optim.SGD,
    "Adagrad": torch.optim.Adagrad,
    "SparseAdam": torch.optim.SparseAdam,
    "Adam": torch.optim.Adam,
}

for name, make in optimizers.items():
    torch.manual_seed(0)
    embedding = nn.Embedding(10, 8, sparse=True)
    optimizer = make(embedding.parameters(), lr=0.1)
    embedding(torch.tensor([1, 4])).sum().backward()
    try:
        optimizer.step()
        print(f"{name:<10} steps with a sparse gradient")
    except RuntimeError as error:
        print(f"{name:<10} refuses: {error}")
