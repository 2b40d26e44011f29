# A cuTile sample written as a script, as NVIDIA's cutile-examples are: the kernel, then the
# problem and its launch at module level (here on whatever device torch defaults to).
import math

import cuda.tile as ct
import torch

INV_LOG_2 = 1.0 / math.log(2)


@ct.kernel
def softmax(x: ct.Array, y: ct.Array, tile_size: ct.Constant):
    block_idx = ct.bid(0)
    tile_x = ct.load(x, (block_idx, 0), (1, tile_size), padding_mode=ct.PaddingMode.NEG_INF)
    tile_x = tile_x.astype(ct.float32) * INV_LOG_2
    tile_x = ct.exp2(tile_x - ct.max(tile_x))
    ct.store(y, (block_idx, 0), ct.truediv(tile_x, ct.sum(tile_x)).astype(y.dtype))


m, n = 13, 100
x = torch.randn(size=[m, n], dtype=torch.float32)
y = torch.empty_like(x)
ct.launch(torch.cuda.current_stream(), (m,), softmax, (x, y, 128))
