import triton


@triton.jit
def _inner(x):
    return x + 100.0


@triton.jit
def shift_it(x):
    return _inner(x)
