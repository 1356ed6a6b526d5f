import torch
import torch.nn as nn

torch.manual_seed(0)
tokens = torch.tensor([1, 4, 2, 7])

for sparse in (False, True):
    embedding = nn.Embedding(10, 8, sparse=sparse)
    embedding(tokens).sum().backward()
    grad = embedding.weight.grad
    print(f"sparse={sparse}: layout={grad.layout}, "
          f"shape={tuple(grad.shape)}")
    if grad.is_sparse:
        rows = grad.coalesce().indices()[0].tolist()
        print(f"  stores only the rows that were looked up: {rows}")
    else:
        zero_rows = (grad.abs().sum(dim=1) == 0).sum().item()
        print(f"  stores all 10 rows; {zero_rows} of them are all zeros")
