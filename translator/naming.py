"""Names that backends derive from IR names (DSL-neutral conventions)."""

from __future__ import annotations

import re


def tile_suffix(tile_name: str) -> str:
    """The short name of a tile variable: ``tile_m`` → ``m``, ``tm`` → ``m``, ``tile`` → ``tile``."""
    if tile_name.startswith("tile_") and len(tile_name) > 5:
        return tile_name[5:]
    if len(tile_name) == 2 and tile_name[0] == "t":
        return tile_name[1]
    return tile_name


def constant_name(name: str) -> str:
    """``block_size_m`` → ``BLOCK_SIZE_M``."""
    return re.sub(r"[^0-9A-Za-z]+", "_", name).upper()


def unique(base: str, taken: set[str]) -> str:
    """``base``, or ``base_2``, ``base_3``... whichever is not in ``taken`` (which is updated)."""
    name, i = base, 1
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name
