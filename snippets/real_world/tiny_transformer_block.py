import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D_MODEL, D_FF = 10, 8, 16


class TinyTransformerBlock(nn.Module):
    """Embedding -> one-head self-attention -> feed-forward -> logits."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, D_MODEL)
        self.query = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.key = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.value = nn.Linear(D_MODEL, D_MODEL, bias=False)
        self.norm1 = nn.LayerNorm(D_MODEL)
        self.ff_in = nn.Linear(D_MODEL, D_FF)
        self.ff_out = nn.Linear(D_FF, D_MODEL)
        self.norm2 = nn.LayerNorm(D_MODEL)
        self.to_logits = nn.Linear(D_MODEL, VOCAB)

    def forward(self, tokens):
        h = self.embedding(tokens)  # embedding lookup
        q, k, v = self.query(h), self.key(h), self.value(h)
        # attention scores (matrix multiplication)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D_MODEL)
        seq_len = tokens.shape[-1]
        causal = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1)
        # no peeking ahead
        scores = scores.masked_fill(causal, float("-inf"))
        attention = F.softmax(scores, dim=-1)  # softmax
        h = self.norm1(h + attention @ v)  # layer normalization
        # linear layers with a GELU activation, then layer normalization
        h = self.norm2(h + self.ff_out(F.gelu(self.ff_in(h))))
        return self.to_logits(h)  # logits


model = TinyTransformerBlock()

tokens = torch.tensor([[1, 4, 2, 7]])    # a batch of one 4-token sequence
targets = torch.tensor([[4, 2, 7, 3]])   # the next token at each position

logits = model(tokens)
loss = F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))
loss.backward()  # one backward pass through everything

print(f"cross-entropy loss: {loss.item():.4f}")
print(f"parameters: {sum(p.numel() for p in model.parameters())}")
print()
for name, p in model.named_parameters():
    has_grad = p.grad is not None
    norm = f"{p.grad.norm().item():.4f}" if has_grad else "-"
    shape = str(tuple(p.shape))
    print(f"{name:<18} {shape:<8} grad: {has_grad}  norm: {norm}")

used_rows = (model.embedding.weight.grad.abs().sum(dim=1) > 0).sum().item()
print()
print(f"embedding rows with a non-zero gradient: {used_rows} of {VOCAB}")
