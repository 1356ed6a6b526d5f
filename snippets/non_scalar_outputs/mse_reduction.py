import torch
import torch.nn as nn

# A batch of 2 examples with 3 outputs each: 6 squared errors.
prediction = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
target = torch.zeros(2, 3)
squared = (prediction - target) ** 2

print("default reduction:", nn.MSELoss().reduction)
print("MSELoss():        ", nn.MSELoss()(prediction, target))
print("sum / 6 elements: ", squared.sum() / squared.numel())
print("sum / 2 examples: ", squared.sum() / 2)
summed = nn.MSELoss(reduction="sum")
each = nn.MSELoss(reduction="none")
print("reduction='sum':  ", summed(prediction, target))
print("reduction='none': ", each(prediction, target))
