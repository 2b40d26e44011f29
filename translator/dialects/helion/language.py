"""Helion expressions, ``helion.language`` calls: ``hl.zeros``/``hl.full``, ``hl.arange``,
``hl.load``, ``hl.rand``, and the tile shapes they (and ``.reshape``/``.expand``) take:
``[tile_m, tile_n]`` lists of tiles, block sizes, sizes and 1s.

A mixin of :class:`translator.dialects.helion.expressions.ExprBuilder`, which holds the state the
methods read (``self.scope``...); split out so that each file reads one part of an expression.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import literal_or_none, source_of
from translator.ir import nodes as ir
from translator.ir.counters import row_major_offsets
from translator.ir.shapes import ScalarType, TileType, TileVarType, dtype_of
from translator.ir.visit import has_lane_index_dtype


class LanguageReader:
    """``hl.*`` calls and tile shapes, as IR expressions and dims."""

    def _language(self, fn: str, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        loc = self.locate(node)
        if fn.startswith("tile_") and fn.removeprefix("tile_") in ir.TILE_ATTRS:
            # `hl.tile_index(tile)`: the older spelling of `tile.index`.
            if len(args) != 1 or kwargs:
                raise self.error(node, f"hl.{fn} takes one tile")
            return self.expr(cst.Attribute(args[0], cst.Name(fn.removeprefix("tile_"))))
        if fn in ("zeros", "full"):
            shape_node = kwargs.get("shape", args[0] if args else None)
            if shape_node is None:
                raise self.error(node, f"hl.{fn} needs a shape")
            shape = self.tile_shape(shape_node)
            if fn == "zeros":
                value: ir.Expr = ir.Const(0.0)
                dtype_node = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            else:
                value_node = kwargs.get("value", args[1] if len(args) > 1 else None)
                if value_node is None:
                    raise self.error(node, "hl.full needs a fill value")
                value = self.expr(value_node)
                dtype_node = kwargs.get("dtype", args[2] if len(args) > 2 else None)
            dtype = self.dtype(dtype_node) if dtype_node is not None else ir.F32
            return ir.Full(shape, value, dtype, loc=loc)
        if fn == "arange":
            if len(args) != 1 or kwargs:
                raise self.error(
                    node,
                    "only hl.arange(n) with one argument is supported",
                    "use tile.index for the indices of a tile",
                )
            (dim,) = self.tile_shape(cst.List([cst.Element(args[0])]))
            return ir.Arange(dim, loc=loc)
        if fn == "load":
            tensor = args[0] if args else kwargs.get("tensor")
            index = args[1] if len(args) > 1 else kwargs.get("index")
            if not isinstance(tensor, cst.Name) or not self.scope.is_tensor(tensor.value):
                raise self.error(node, "hl.load needs a host tensor")
            if not isinstance(index, (cst.List, cst.Tuple)):
                raise self.error(node, "hl.load needs an index list")
            items = self.index_items(tensor.value, [e.value for e in index.elements], node)
            load = ir.Load(tensor.value, items, 0.0, loc=loc)
            pred = self.check_lane_mask(load, kwargs.get("extra_mask"), node)
            return load if pred is None else dataclasses.replace(load, mask=pred)
        if fn == "rand":
            return self._rand(args, kwargs, node)
        if fn == "inline_triton":
            return self._inline_triton(args, kwargs, node)
        raise self.error(node, f"hl.{fn}(...) is not supported in an expression here")

    def _inline_triton(self, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``hl.inline_triton(snippet, args=(a, b), output_like=...)`` where ``[frontend.inline]``
        names the snippet: the IR op it computes over ``a, b`` (``tl.rand({0}, {1})`` is the
        IR's ``rand``, the draw Triton makes). Other Triton code is opaque to the IR."""
        params = ("triton_source", "args", "output_like")
        given = dict(zip(params, args)) | kwargs
        known = self.grammar["frontend"].get("inline", {})
        snippet = given.get("triton_source")
        text = literal_or_none(snippet) if snippet is not None else None
        op = known.get(text) if isinstance(text, str) else None
        if op is None or set(given) - set(params) or len(args) > len(params):
            spelled = ", ".join(f"`{k}`" for k in known)
            raise self.error(
                node,
                "only the inlined Triton snippets the IR knows are supported",
                f"known: {spelled}; write the computation in torch and hl calls",
            )
        operands = given.get("args")
        if not isinstance(operands, (cst.Tuple, cst.List)):
            raise self.error(node, "hl.inline_triton's args must be a tuple of operands")
        if "output_like" not in given:
            raise self.error(
                node,
                "hl.inline_triton needs `output_like=`",
                "pass a tensor of the result's shape and dtype (`hl.zeros([tile], dtype=...)`)",
            )
        values = []
        for element in operands.elements:
            value = self.expr(element.value)
            # Lane indices are int64 under `index_dtype=torch.int64`, and so is what the snippet
            # gets (`tl.rand` draws another stream for int64 offsets).
            dtype = dtype_of(self.type_of(value, element.value))
            if self.index_bits == 64 and dtype == ir.I32 and has_lane_index_dtype(value):
                value = ir.Cast(value, ir.I64)
            values.append(value)
        e = ir.Call(op, tuple(values), loc=self.locate(node))
        self.type_of(e, node)
        return e

    def _rand(self, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``hl.rand(shape, seed, device=None, offsets=None)``: the IR's ``rand(seed, offsets)``
        at ``offsets`` if given (as int64, which Helion draws them in), else at each element's
        row-major index over the full extents of the tiles ``shape`` names (Helion's counter)."""
        params = ("shape", "seed", "device", "offsets")
        unknown = sorted(set(kwargs) - set(params))
        if unknown or len(args) > len(params):
            raise self.error(node, f"unsupported arguments to hl.rand: {unknown or args[4:]}")
        given = dict(zip(params, args)) | kwargs
        if "seed" not in given or "shape" not in given:
            raise self.error(node, "hl.rand needs a shape and a seed")
        seed = self.expr(given["seed"])
        self.type_of(seed, given["seed"])
        offsets_node = given.get("offsets")
        if offsets_node is not None and not (
            isinstance(offsets_node, cst.Name) and offsets_node.value == "None"
        ):
            offsets = self.expr(offsets_node)
            if dtype_of(self.type_of(offsets, offsets_node)) != ir.I64:
                offsets = ir.Cast(offsets, ir.I64)
        else:
            offsets = row_major_offsets(self._rand_tiles(given["shape"], node))
        e = ir.Call("rand", (seed, offsets), loc=self.locate(node))
        self.type_of(e, node)
        return e

    def _rand_tiles(self, shape: cst.BaseExpression, node: cst.Call) -> list[ir.TileVar]:
        """The tiles of ``hl.rand``'s shape: each a block of lanes from 0 (Helion counts a
        tile's lanes by their index in the whole dim)."""
        help_ = "name hl.tile loop variables that start at 0, or pass offsets= explicitly"
        if not isinstance(shape, (cst.List, cst.Tuple)) or not shape.elements:
            raise self.error(shape, "hl.rand's shape must be a list of tile variables", help_)
        tiles = []
        for element in shape.elements:
            v = element.value
            t = self.scope.env.vars.get(v.value) if isinstance(v, cst.Name) else None
            if not isinstance(t, TileVarType):
                raise self.error(v, f"hl.rand over `{source_of(v)}`, which is no tile", help_)
            if t.tile.scalar or t.tile.begin is not None or t.tile.step is not None:
                raise self.error(
                    v, f"hl.rand over `{v.value}`, which is no block of lanes from 0", help_
                )
            tiles.append(t.tile)
        return tiles

    def _own_dim(self, node: cst.BaseExpression) -> ir.Dim | None:
        """The dim ``d`` of a device value for ``v.size(d)`` (``hl.arange(row.size(0))`` spans
        the lanes of ``row = x[i, :]``), or None when ``node`` is not that."""
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
            and len(node.args) == 1
            and isinstance(node.func.value, cst.Name)
            and not self.scope.is_tensor(node.func.value.value)
        ):
            return None
        d = literal_or_none(node.args[0].value)
        t = self.type_of(self.expr(node.func.value), node)
        if not isinstance(t, TileType) or not isinstance(d, int):
            return None
        if not -len(t.dims) <= d < len(t.dims):
            raise self.error(node, f"`{source_of(node)}`: the value has {len(t.dims)} dims")
        return t.dims[d]

    def _tile_of_block(self, node: cst.BaseExpression) -> str | None:
        """The tile in scope that ``node`` (a registered block size) is the block of: inside
        ``for tile_bt in hl.tile(bt, block_size=block_size_m)``, ``hl.zeros([block_size_m,
        ...])`` has the tile's rows (Helion's kl_div example). None where no tile, or more than
        one, has that block."""
        if not isinstance(node, cst.Name) or node.value not in self.scope.env.vars:
            return None
        if isinstance(self.scope.env.vars[node.value], TileVarType):
            return None
        try:
            block = self.expr(node)
        except TranslationError:
            return None
        if not isinstance(block, ir.Name):
            return None
        tiles = [
            name
            for name, t in self.scope.env.vars.items()
            if isinstance(t, TileVarType)
            and not t.tile.scalar
            and t.tile.block in (block, block.id)
        ]
        return tiles[0] if len(tiles) == 1 else None

    def tile_shape(self, node: cst.BaseExpression) -> tuple[ir.Dim, ...]:
        """A shape list of tiles, block sizes, sizes and 1s (``[tile_m, tile_n]``)."""
        if not isinstance(node, (cst.List, cst.Tuple)):
            raise self.error(node, "tile shapes must be a list, e.g. [tile_m, tile_n]")
        tiles = [self._tile_of_block(e.value) for e in node.elements]
        if len(tiles) >= 2 and all(tiles) and len(set(tiles)) == len(tiles):
            # Every entry the block of a distinct tile in scope: the tiles' shape. A single
            # block, or one whose tile is not in scope yet, keeps its lanes (a lane sum's
            # `hl.zeros([tile_m, block_n])` before the loop over `block_n`'s tiles).
            return tuple(ir.BlockDim(t) for t in tiles)  # type: ignore[arg-type]
        dims: list[ir.Dim] = []
        for element in node.elements:
            v = element.value
            if isinstance(v, cst.Name):
                t = self.scope.env.vars.get(v.value)
                if v.value in self.scope.block_names:
                    dims.append(ir.BlockDim(self.scope.block_names[v.value]))
                    continue
                if isinstance(t, TileVarType):
                    dims.append(ir.UnitDim() if t.tile.scalar else ir.BlockDim(v.value))
                    continue
                if isinstance(t, ScalarType):
                    dims.append(ir.FullDim(ir.Name(v.value)))
                    continue
            if (
                isinstance(v, cst.Attribute)
                and v.attr.value == "block_size"
                and isinstance(v.value, cst.Name)
                and isinstance(self.scope.env.vars.get(v.value.value), TileVarType)
            ):
                dims.append(ir.BlockDim(v.value.value))
                continue
            own = self._own_dim(v)
            if own is not None:
                dims.append(own)
                continue
            value = literal_or_none(v)
            if value == 1:
                dims.append(ir.UnitDim())
                continue
            expr = self.expr(v)
            t = self.type_of(expr, v)
            if isinstance(t, ScalarType):
                dims.append(ir.FullDim(expr))
                continue
            raise self.error(
                v, f"unsupported shape entry `{source_of(v)}`", "use tile variables, sizes or 1"
            )
        return tuple(dims)
