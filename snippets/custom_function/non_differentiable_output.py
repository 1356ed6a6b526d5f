import torch


class SortValues(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return torch.sort(x)          # values, and integer indices

    @staticmethod
    def setup_context(ctx, inputs, output):
        values, indices = output
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        # Still called with a gradient for each output.
        (indices,) = ctx.saved_tensors
        grad_x = torch.zeros_like(grad_values)
        grad_x[indices] = grad_values  # send each back to its place
        return grad_x


x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
values, indices = SortValues.apply(x)
print("values: ", values.requires_grad, " indices:", indices.requires_grad)
(values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print("x.grad:", x.grad)
