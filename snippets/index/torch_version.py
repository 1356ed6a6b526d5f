# Which PyTorch produced the outputs on this site.
import torch

print("PyTorch", torch.__version__)
print("CUDA available:", torch.cuda.is_available())
