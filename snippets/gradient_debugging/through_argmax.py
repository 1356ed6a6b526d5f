import torch

scores = torch.tensor([1.0, 3.0, 2.0], requires_grad=True)
w = torch.tensor(2.0, requires_grad=True)

# 1. The loss uses scores only through argmax: an integer, no graph.
best = scores.argmax()
loss = w * best
loss.backward()
print("best:", best.item(), " w.grad:", w.grad, " scores.grad:",
      scores.grad)

# 2. With nothing else tracked in it, the loss has no graph at all.
try:
    (best * 1.0).backward()
except RuntimeError as error:
    print("RuntimeError:", error)

# 3. Indexing with the position picks one element: a one-hot gradient.
scores[best].backward()
print("scores[best]: scores.grad:", scores.grad)
