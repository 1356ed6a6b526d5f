import torch

x = torch.tensor(2.0)
target = torch.tensor(10.0)

w = torch.tensor(3.0, requires_grad=True)   # weight
b = torch.tensor(1.0, requires_grad=True)   # bias

prediction = w * x + b                      # 3 * 2 + 1 = 7
loss = (prediction - target) ** 2           # (7 - 10)^2 = 9

loss.backward()

print("Prediction:", prediction)
print("Loss:", loss)
print("Weight gradient:", w.grad)
print("Bias gradient:", b.grad)
