"""A toy tile DSL for the plugin test (tests/test_plugins.py): a ``@toy.pointwise`` kernel writes
``out[...] = expression of x[...] and scalars`` over whole (flat) tensors, which plain torch runs
as written."""

Tensor = "torch.Tensor"


def pointwise(fn):
    """Mark ``fn`` as a toy kernel; it runs as the torch code it is."""
    return fn
