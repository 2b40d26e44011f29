"""``tl.dot``: matrix products, masked where the contracted block is one the host computes."""

from __future__ import annotations

import libcst as cst

from translator.dialects.cst_utils import call_args
from translator.dialects.triton.lift_dispatch import handles_family
from translator.dialects.triton.lifted import Data, DTypeVal, Pending, Static, Val
from translator.ir import nodes as ir
from translator.ir.shapes import dims_of, dot_precision, dtype_of


class DotsMixin:
    """``tl.dot`` of :class:`KernelLifter`."""

    @handles_family("dots")
    def dot(self, name: str, op: str, node: cst.Call) -> Data:
        """``tl.dot(a, b, acc=None, out_dtype=...)``."""
        args, kwargs = call_args(node)
        names = ["a", "b", "acc"]
        vals: dict[str, Val] = dict(zip(names, (self.ev(a) for a in args)))
        out_dtype: ir.DTypeExpr = ir.F32
        # Triton rounds float32 operands to tf32 unless told otherwise (TRITON_F32_DEFAULT only
        # changes the default of the process that runs it; the source says nothing of it).
        precision = "tf32"
        for k, v in kwargs.items():
            if k == "acc":
                vals["acc"] = self.ev(v)
            elif k == "out_dtype":
                dt = self.ev(v)
                if not isinstance(dt, DTypeVal):
                    raise self.error(v, "out_dtype must be a dtype")
                out_dtype = dt.dtype
            elif k in ("allow_tf32", "input_precision"):
                precision = self._dot_precision(k, v)
            elif k == "max_num_imprecise_acc":
                continue  # fp8 accumulation: no IR form, and no float32 dot reads it
            else:
                raise self.error(v, f"unsupported tl.dot option `{k}=`")
        a, b = self.to_data(vals["a"], node), self.to_data(vals["b"], node)
        acc_v = vals.get("acc")
        if isinstance(acc_v, Static) and acc_v.value is None:
            acc_v = None
        ta, tb = self.type_of(a.expr, node), self.type_of(b.expr, node)
        da, db = dims_of(ta), dims_of(tb)
        if len(da) != 2 or len(db) != 2:
            raise self.error(node, "tl.dot of tiles that are not 2-D is not supported yet")
        if isinstance(acc_v, Pending):
            # `acc = tl.zeros((BM, BN))` before any access named the tiles: the product's.
            acc_v = self.materialize(acc_v, (da[0], db[1]), node)
        acc = self.to_data(acc_v, node) if acc_v is not None else None
        kdim = da[-1]
        tile = self.tile_of_dim(kdim)
        masked = False
        if tile is None or tile.exact:
            for operand, dims, axis in ((a, da, -1), (b, db, -2)):
                if dims[axis] in operand.div:
                    raise self.error(
                        node,
                        "tl.dot contracts lanes past the end of "
                        f"{self._dim_text(kdim)} whose values the IR cannot "
                        "reproduce",
                        "load the operands with other=0.0",
                    )
        else:
            pa, pb = a.pad(kdim), b.pad(db[-2])
            if not ((pa is not None and pa == 0.0) or (pb is not None and pb == 0.0)):
                raise self.error(
                    node,
                    "tl.dot contracts the padded lanes of a block the host "
                    "computes; load an operand with other=0.0",
                )
            masked = True
        # `tl.dot(tl.where(offs_k < K, a, 0.0), b)` is the masked dot of a and b.
        if a.where_of is not None and a.where_of[0] == kdim and a.pad(kdim) == 0.0:
            a, masked = a.where_of[1], True
        if b.where_of is not None and b.where_of[0] == db[-2] and b.pad(db[-2]) == 0.0:
            b, masked = b.where_of[1], True
        e = ir.Dot(
            a.expr,
            b.expr,
            acc.expr if acc is not None else None,
            out_dtype,
            masked=masked,
            precision=dot_precision(dtype_of(ta), dtype_of(tb), precision),
            loc=self.locate(node),
        )
        self.type_of(e, node)
        div = frozenset(x for x in a.div | b.div if x != kdim)
        if acc is not None:
            div |= acc.div
        return Data(e, (), div)

    def _dot_precision(self, key: str, node: cst.BaseExpression) -> str:
        """The input precision ``tl.dot``'s ``allow_tf32=``/``input_precision=`` asks for."""
        value = self.ev(node)
        if not isinstance(value, Static):
            raise self.error(
                node, f"tl.dot's `{key}=` must be a constant", f"write {key}=<literal>"
            )
        if key == "allow_tf32":
            return "tf32" if value.value else "ieee"
        if not isinstance(value.value, str) or value.value.lower() not in ir.DOT_PRECISIONS:
            raise self.error(
                node,
                f"tl.dot input_precision={value.value!r} has no IR form",
                f"use one of {', '.join(repr(p) for p in ir.DOT_PRECISIONS)}",
            )
        return value.value.lower()
