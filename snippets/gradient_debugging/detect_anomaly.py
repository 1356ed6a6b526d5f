import os
import warnings

import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)
here = os.path.basename(__file__)

with warnings.catch_warnings(record=True) as caught:
    with torch.autograd.set_detect_anomaly(True):
        y = torch.where(x > 0, torch.sqrt(x), torch.zeros_like(x))
        try:
            y.sum().backward()
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
