"""Helion device code (the body of a top-level ``hl.tile`` loop) → IR statements."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from translator.dialects.cst_utils import call_args, resolve, source_of, statement_comments
from translator.ir import nodes as ir
from translator.ir.shapes import TensorType, TileVarType

if TYPE_CHECKING:
    from translator.dialects.helion.frontend import EntryParser

_AUG = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*",
    cst.DivideAssign: "/", cst.FloorDivideAssign: "//", cst.ModuloAssign: "%",
    cst.PowerAssign: "**", cst.BitAndAssign: "&", cst.BitOrAssign: "|", cst.BitXorAssign: "^",
}
_ATOMICS = {"atomic_add": "add", "atomic_max": "max", "atomic_min": "min"}


class DeviceParser:
    """Parses the statements of one kernel, sharing the entry's scope and expression builder."""

    def __init__(self, entry: EntryParser) -> None:
        self.entry = entry
        self.scope = entry.scope
        self.build = entry.build
        self.locate = entry.locate
        self.grammar = entry.grammar

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None):
        return self.entry.error(node, message, hint)

    def block(self, body: cst.BaseSuite) -> list[ir.Stmt]:
        """Parse an indented block of device statements."""
        if not isinstance(body, cst.IndentedBlock):
            raise self.error(body, "put device statements on their own lines")
        out: list[ir.Stmt] = []
        for node in body.body:
            comments = statement_comments(node)
            self.build.pending = []
            self.build.device = True
            stmts = self.statement(node)
            stmts = self.build.pending + stmts
            self.build.pending = []
            if stmts and comments:
                import dataclasses

                stmts[0] = dataclasses.replace(stmts[0], comments=comments + stmts[0].comments)
            out.extend(stmts)
        return out

    def statement(self, node: cst.BaseStatement) -> list[ir.Stmt]:
        if isinstance(node, cst.For):
            return [self._loop(node)]
        if isinstance(node, cst.If):
            return [self._if(node)]
        if isinstance(node, cst.SimpleStatementLine):
            out: list[ir.Stmt] = []
            for small in node.body:
                out.extend(self.small(small))
            return out
        raise self.error(
            node,
            f"unsupported device statement `{source_of(node).strip().splitlines()[0]}`",
            "device code may assign, store, loop over hl.tile and branch on scalars",
        )

    def small(self, node: cst.BaseSmallStatement) -> list[ir.Stmt]:
        loc = self.locate(node)
        if isinstance(node, cst.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment is not supported")
            target = node.targets[0].target
            return self._assign(target, node.value, node)
        if isinstance(node, cst.AnnAssign) and node.value is not None:
            return self._assign(node.target, node.value, node)
        if isinstance(node, cst.AugAssign):
            op = _AUG.get(type(node.operator))
            if op is None:
                raise self.error(node, "unsupported augmented assignment")
            target = node.target
            if isinstance(target, cst.Name):
                current = self.build.expr(target)
                value = ir.BinOp(op, current, self.build.expr(node.value), loc=loc)
                return [self._bind(target.value, value, node)]
            if isinstance(target, cst.Subscript):
                current = self.build.expr(target)
                value = ir.BinOp(op, current, self.build.expr(node.value), loc=loc)
                return [self._store(target, value, node)]
            raise self.error(node, "unsupported augmented assignment target")
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            return [self._call_stmt(node.value)]
        if isinstance(node, cst.Expr) and isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
            return []
        if isinstance(node, cst.Pass):
            return []
        raise self.error(node, f"unsupported device statement `{source_of(node).strip()}`")

    def _assign(self, target: cst.BaseExpression, value_node: cst.BaseExpression,
                node: cst.CSTNode) -> list[ir.Stmt]:
        if isinstance(target, cst.Subscript):
            return [self._store(target, self.build.expr(value_node), node)]
        if isinstance(target, cst.Name):
            return [self._bind(target.value, self.build.expr(value_node), node)]
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value_node, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
            values = [self.build.expr(e.value) for e in value_node.elements]
            if len(names) != len(values) or not all(isinstance(n, cst.Name) for n in names):
                raise self.error(node, "unpack tuples of equal length into names")
            return [self._bind(n.value, v, node) for n, v in zip(names, values)]  # type: ignore[union-attr]
        raise self.error(node, f"unsupported assignment target `{source_of(target)}`")

    def _bind(self, name: str, value: ir.Expr, node: cst.CSTNode) -> ir.Stmt:
        old = self.scope.env.vars.get(name)
        if isinstance(old, (TensorType, TileVarType)):
            raise self.error(node, f"cannot rebind `{name}` inside a kernel",
                             "use a new name for the device value")
        t = self.build.type_of(value, node)
        self.scope.env.vars[name] = t
        self.scope.used_names.add(name)
        return ir.Assign(name, value, loc=self.locate(node))

    def _store(self, target: cst.Subscript, value: ir.Expr, node: cst.CSTNode) -> ir.Stmt:
        if not isinstance(target.value, cst.Name) or not self.scope.is_tensor(target.value.value):
            raise self.error(node, f"stores must write a host tensor, not `{source_of(target.value)}`")
        tensor = target.value.value
        index = self.build.index_items(tensor, target.slice, node)
        self.build.type_of(value, node)
        return ir.Store(tensor, index, value, loc=self.locate(node))

    def _call_stmt(self, call: cst.Call) -> ir.Stmt:
        fn = resolve(call.func, self.entry.aliases)
        lang = {v: k for k, v in self.grammar["language"].items()}
        name = lang.get(fn or "")
        args, kwargs = call_args(call)
        if name == "store" or name in _ATOMICS:
            tensor = args[0] if args else None
            index = args[1] if len(args) > 1 else kwargs.get("index")
            value = args[2] if len(args) > 2 else kwargs.get("value")
            if not isinstance(tensor, cst.Name) or not self.scope.is_tensor(tensor.value):
                raise self.error(call, f"hl.{name} needs a host tensor first")
            if not isinstance(index, (cst.List, cst.Tuple)) or value is None:
                raise self.error(call, f"hl.{name}(tensor, [indices], value)")
            for key in kwargs:
                if key not in ("index", "value", "sem"):
                    raise self.error(call, f"hl.{name}({key}=...) is not supported yet")
            items = self.build.index_items(tensor.value, [e.value for e in index.elements], call)
            v = self.build.expr(value)
            if name == "store":
                return ir.Store(tensor.value, items, v, loc=self.locate(call))
            return ir.AtomicRMW(_ATOMICS[name], tensor.value, items, v, loc=self.locate(call))
        raise self.error(
            call,
            f"unsupported call statement `{source_of(call)}`",
            "device code may call hl.store or hl.atomic_* as statements; assign other values",
        )

    def _loop(self, node: cst.For) -> ir.Stmt:
        if node.orelse is not None:
            raise self.error(node, "for-else is not supported")
        tiles = self.entry.tile_vars(node, top_level=False)
        outer = self.scope.env
        inner = outer.child()
        for t in tiles:
            inner.bind_tile(t)
        self.scope.env = inner
        saved_pending = self.build.pending
        body = self.block(node.body)
        self.build.pending = saved_pending
        self.build.device = True
        self.scope.env = outer
        # Values assigned in the loop and defined before it are loop-carried; keep their types.
        for name, t in inner.vars.items():
            if name in outer.vars:
                outer.vars[name] = t
        return ir.TileLoop(tiles, tuple(body), loc=self.locate(node))

    def _if(self, node: cst.If) -> ir.Stmt:
        test = self.build.expr(node.test)
        saved = self.build.pending
        outer = self.scope.env
        self.scope.env = outer.child()
        body = self.block(node.body)
        self.scope.env = outer.child()
        orelse: list[ir.Stmt] = []
        if isinstance(node.orelse, cst.Else):
            orelse = self.block(node.orelse.body)
        elif isinstance(node.orelse, cst.If):
            orelse = [self._if(node.orelse)]
        self.scope.env = outer
        self.build.pending = saved
        self.build.device = True
        return ir.If(test, tuple(body), tuple(orelse), loc=self.locate(node))
