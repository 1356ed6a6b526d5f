import torch

x = torch.tensor(2.0, requires_grad=True)

# Adding a constant: the local derivative is always 1, so the graph
# saves no tensor for the backward pass, and nothing can be freed.
y = x + 1
y.backward()
y.backward()          # no error, and no retain_graph=True
print("y = x + 1, two passes: x.grad =", x.grad)

x.grad = None
# Squaring: the local derivative is 2x, so the graph saves x.
z = x ** 2
z.backward()
try:
    z.backward()      # the saved x was freed by the first pass
except RuntimeError as error:
    message = str(error).split(" (")[0]
    print("z = x ** 2, second pass: RuntimeError:", message)
