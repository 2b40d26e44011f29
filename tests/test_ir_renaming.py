"""Tests of renaming (``translator.ir.renaming``) over kernels and entries."""

from __future__ import annotations

from ir_build import hand_module

from translator.ir import nodes as ir
from translator.ir.renaming import names_in, rename

HINTS = ir.Hints(schedule="flat", extras=(("helion.tile_k_2", "tile_k_2"),))


def _module() -> ir.Module:
    tile = ir.TileVar("tile_k_2", ir.Name("K"), "block_size")
    load = ir.Load("x", (ir.TileIndex("tile_k_2"),))
    kernel = ir.InlineKernel(
        "k",
        (tile,),
        (
            ir.Assign(
                "v",
                ir.BinOp("+", load, ir.TileAttr("tile_k_2", "begin")),
                comments=("# tile_k_2 is",),
            ),
            ir.Store("y", (ir.TileIndex("tile_k_2"),), ir.Name("v")),
        ),
        tunables=(ir.Tunable("block_size", "block_size", 64, (32, 64)),),
        configs=((("block_size", 64),),),
        hints=HINTS,
    )
    entry = ir.Entry(
        name="f",
        params=(ir.Param("x", "tensor"), ir.Param("y", "tensor"), ir.Param("K", "int")),
        body=(kernel, ir.Return(ir.Name("y"))),
        hints=(("assumed_unit_stride", ("x", "y")),),
    )
    return hand_module("f.py", entry)


def test_rename_reaches_every_reference_in_a_kernel_and_nothing_else():
    kernel = rename(_module().kernel("k"), {"tile_k_2": "tile_k", "block_size": "block_k"})
    assert kernel.name == "k"
    assert kernel.params == (ir.Param("x", "tensor"), ir.Param("y", "tensor"), ir.Param("K", "int"))
    assert kernel.grid[0].name == "tile_k" and kernel.grid[0].block == "block_k"
    assign, store = kernel.body
    assert assign.value.lhs.index == (ir.TileIndex("tile_k"),)
    assert assign.value.rhs == ir.TileAttr("tile_k", "begin")
    assert store.index == (ir.TileIndex("tile_k"),)
    # Comments are text, tunable kinds are words, and a kernel's hints are settings: they stay.
    assert assign.comments == ("# tile_k_2 is",)
    assert kernel.hints == HINTS
    assert kernel.tunables == (ir.Tunable("block_k", "block_size", 64, (32, 64)),)
    assert kernel.configs == ((("block_k", 64),),)


def test_rename_of_an_entry_reaches_its_launches_and_host_facts():
    entry = _module().entries[0]
    renamed = rename(entry, {"x": "src", "k": "other"})
    assert [p.name for p in renamed.params] == ["src", "y", "K"]
    launch, ret = renamed.body
    # The launch passes the renamed host value; which kernel it launches, and how the source
    # spells the argument at the launch site, are no names of the entry.
    assert launch.args == (ir.Name("src"), ir.Name("y"), ir.Name("K"))
    assert (launch.kernel, launch.texts) == ("k", ("x", "y", "K"))
    assert ret == entry.body[1]
    # A host fact's key is a word; the tensors it lists are names.
    assert renamed.hints == (("assumed_unit_stride", ("src", "y")),)


def test_names_in_lists_names_not_words():
    names = names_in(_module().kernel("k"))
    assert {"tile_k_2", "x", "y", "v", "K", "block_size"} <= names
    assert not names & {"+", "begin", "tensor", "int", "# tile_k_2 is", "f", "k", "flat"}
    assert not names & {"helion.tile_k_2"}
    assert {"x", "y", "K"} <= names_in(_module().entries[0])
    assert not names_in(_module().entries[0]) & {"k", "f", "assumed_unit_stride"}


def test_an_empty_mapping_returns_the_node_itself():
    module = _module()
    assert rename(module, {}) is module
    kernel = module.kernel("k")
    assert rename(kernel, {}) is kernel
