"""Tests of whole-entry renaming (``translator.ir.renaming``)."""

from __future__ import annotations

from translator.ir import nodes as ir
from translator.ir.renaming import names_in, rename


def _entry() -> ir.Entry:
    tile = ir.TileVar("tile_k_2", ir.Name("K"), "block_size")
    load = ir.Load("x", (ir.TileIndex("tile_k_2"),))
    body = (
        ir.Kernel(
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
            hints=(("tile_k_2", "tile_k_2"),),
        ),
        ir.Return(ir.Name("y")),
    )
    return ir.Entry(
        name="f",
        params=(ir.Param("x", "tensor"), ir.Param("y", "tensor"), ir.Param("K", "int")),
        body=body,
        tunables=(ir.Tunable("block_size", "block_size", 64, (32, 64)),),
        configs=((("block_size", 64),),),
    )


def test_rename_reaches_every_reference_and_nothing_else():
    entry = rename(_entry(), {"tile_k_2": "tile_k", "block_size": "block_k"})
    (kernel, _) = entry.body
    assert kernel.grid[0].name == "tile_k" and kernel.grid[0].block == "block_k"
    assign, store = kernel.body
    assert assign.value.lhs.index == (ir.TileIndex("tile_k"),)
    assert assign.value.rhs == ir.TileAttr("tile_k", "begin")
    assert store.index == (ir.TileIndex("tile_k"),)
    # Comments are text, hint keys and tunable kinds are words: they stay.
    assert assign.comments == ("# tile_k_2 is",)
    assert kernel.hints == (("tile_k_2", "tile_k"),)
    assert entry.tunables == (ir.Tunable("block_k", "block_size", 64, (32, 64)),)
    assert entry.configs == ((("block_k", 64),),)


def test_names_in_lists_names_not_words():
    names = names_in(_entry())
    assert {"tile_k_2", "x", "y", "v", "K", "block_size"} <= names
    assert not names & {"+", "begin", "tensor", "int", "# tile_k_2 is", "f", "k"}


def test_an_empty_mapping_returns_the_node_itself():
    entry = _entry()
    assert rename(entry, {}) is entry
