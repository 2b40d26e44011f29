import triton


@triton.jit
def _inner(x):
    return x * 2.0


@triton.jit
def double_it(x):
    return _inner(x)
