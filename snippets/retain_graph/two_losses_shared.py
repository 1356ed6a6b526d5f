import torch

w = torch.tensor(3.0, requires_grad=True)
x = torch.tensor(2.0)

# One shared intermediate feeds two different losses.
hidden = w * x            # hidden = 6
loss1 = hidden ** 2       # d loss1 / dw = 2 * hidden * x = 24
loss2 = 5 * hidden        # d loss2 / dw = 5 * x          = 10

# The first pass must keep the shared part (hidden = w * x) alive ...
loss1.backward(retain_graph=True)
print("after loss1.backward():", w.grad)

# ... because the second pass runs through it again (24 + 10 = 34).
loss2.backward()
print("after loss2.backward():", w.grad)

# The same total in a single pass, with no retain_graph at all:
w.grad = None
hidden = w * x
total = hidden ** 2 + 5 * hidden
total.backward()
print("(loss1 + loss2).backward():", w.grad)
