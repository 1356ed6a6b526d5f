"""The namespace and parser pytest-markdown-docs uses for every ```python fence in docs/ and README.md.

Fences in docs/ are short fragments such as the ``optimizer.zero_grad()`` … ``optimizer.step()``
pattern. Rather than marking them to be skipped, each runs against a small but real training setup:
a seeded ``nn.Linear(1, 1)``, its SGD optimizer, an MSE loss and a two-batch dataloader. This file
sits at the root because pytest only applies a conftest's hooks to files below it.
"""

from __future__ import annotations

import re


def pytest_markdown_docs_globals():
    import torch
    from torch import nn

    torch.manual_seed(0)
    x = torch.tensor([[1.0], [2.0], [3.0]])
    y = 2 * x
    model = nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_function = nn.MSELoss()
    prediction = model(x)
    shared = torch.tensor(3.0, requires_grad=True) * 2
    return {
        "torch": torch,
        "nn": nn,
        "model": model,
        "optimizer": optimizer,
        "loss_function": loss_function,
        "dataloader": [(x[:2], y[:2]), (x[2:], y[2:])],
        "x": x,
        "y": y,
        "inputs": x,
        "targets": y,
        "target": y,
        "data": x,
        "prediction": prediction,
        "output": prediction,
        "loss": loss_function(prediction, y),
        "loss1": shared**2,
        "loss2": shared * 3,
        "w": torch.tensor(3.0, requires_grad=True),
        "b": torch.tensor(1.0, requires_grad=True),
        "tensor": torch.tensor(2.0, requires_grad=True) * 3,
    }


class _ContainerAwareParser:
    """markdown-it parses CommonMark, where the indented body of a Material admonition or content
    tab is an indented code block, so a fence inside one would never be found, and never run.
    We un-indent those bodies (keeping every line in place, so reported line numbers stay right)
    before handing the text to markdown-it."""

    CONTAINER = re.compile(r"^(?P<indent>\s*)(?:!!!|\?\?\?\+?|===)\s")

    def __init__(self, parser):
        self._parser = parser

    def parse(self, text: str):
        return self._parser.parse(self.flatten(text))

    @classmethod
    def flatten(cls, text: str) -> str:
        lines = text.splitlines()
        out, depth_indents = [], []
        for line in lines:
            stripped = line.lstrip()
            indent = len(line) - len(stripped)
            while depth_indents and stripped and indent < depth_indents[-1]:
                depth_indents.pop()
            body_indent = depth_indents[-1] if depth_indents else 0
            out.append(line[body_indent:] if line[:body_indent].strip() == "" else line)
            if cls.CONTAINER.match(line):
                depth_indents.append(indent + 4)
        return "\n".join(out) + "\n"


def pytest_markdown_docs_markdown_it():
    from markdown_it import MarkdownIt

    return _ContainerAwareParser(MarkdownIt(config="commonmark"))
