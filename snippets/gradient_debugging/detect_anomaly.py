import os
import warnings

import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([1.0, 2.0])
here = os.path.basename(__file__)

with warnings.catch_warnings(record=True) as caught:
    with torch.autograd.set_detect_anomaly(True):
        squares = (a - b) ** 2
        distance = torch.sqrt(squares.sum())
        try:
            distance.backward()
        except RuntimeError as error:
            print("RuntimeError:", error)

# Anomaly mode also warns, with the traceback of the forward call that
# created the failing node. Print its first line and this file's frame.
report = str(caught[0].message).splitlines()
print(report[0])
for number, line in enumerate(report):
    if line.strip().startswith("File") and here in line:
        print(f"  {here},", line.split(", ", 1)[1])
        print("   ", report[number + 1].strip())

# An inf alone is not an anomaly: sqrt at 0 passes without an error.
z = torch.tensor(0.0, requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    torch.sqrt(z).backward()
print("under anomaly mode, d sqrt(z) / dz at 0:", z.grad)
