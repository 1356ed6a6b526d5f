"""Throwaway snippets more than one test module runs (the real chapter is in chapter.py)."""

# A graph picture drawn from a run: format with x; x = 2 gives x.grad = 60.
GRAPH_SNIPPET = """
import torch
from snippet_runner.pictures import show_graph

x = torch.tensor({x}, requires_grad=True)
u = 3 * x + 4
y = u ** 2
show_graph(y)
y.backward()
print(x.grad)
"""
