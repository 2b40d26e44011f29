"""Start-up cost: translating imports none of the heavy runtimes (torch, the DSLs, numpy).

A one-file translation is a whole process whose time is mostly imports; torch alone is seconds.
Translation reads sources statically, so importing a runtime is never needed: one slipped in
through ``translator.ir.interpreter`` (the cuTile backend took ``next_power_of_2`` from it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HEAVY = ("torch", "triton", "helion", "tilelang", "cuda", "numpy", "jax")

_SCRIPT = """
import json, sys
from pathlib import Path
from translator.api import translate_file
from translator.diagnostics import TranslationError
from translator.dialects import source_dialects, target_dialects
for src in source_dialects():
    example = sorted(Path("examples", src).glob("*.py"))[0]
    for dst in target_dialects():
        try:
            translate_file(example, src, dst)
        except TranslationError:
            pass
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_translating_every_pair_imports_no_runtime() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TRITON_INTERPRET", None)
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    imported = set(json.loads(out.splitlines()[-1]))
    assert "libcst" in imported  # the script did translate
    assert imported.isdisjoint(HEAVY), sorted(imported & set(HEAVY))
