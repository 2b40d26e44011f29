"""A toy-DSL module: one pointwise kernel and the host function that launches it."""

import torch
import toy


@toy.pointwise
def axpy(x: toy.Tensor, y: toy.Tensor, out: toy.Tensor, alpha: float):
    out[...] = x[...] * alpha + y[...]


def scaled_sum(x: torch.Tensor, y: torch.Tensor, alpha: float = 2.0) -> torch.Tensor:
    """``alpha * x + y`` for two tensors of one shape."""
    assert x.shape == y.shape
    out = torch.empty_like(x)
    # The kernel sees flat tensors.
    axpy(x.reshape(-1), y.reshape(-1), out.view(-1), alpha)
    return out
