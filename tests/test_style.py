"""The code base and every golden are what ``ruff`` would leave them (CI runs this file).

``ruff check`` over the repository (its configuration in ``pyproject.toml`` excludes the
generated goldens, which carry host code as their sources wrote it), ``ruff format --check`` over
the package, tests, scripts and benchmarks, and over every golden: the translator's output is
already formatted, so a user's formatter does not rewrite a fresh translation.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = ["translator", "validation", "tests", "scripts", "benchmarks", "setup.py"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_ruff_check_is_clean() -> None:
    run = _ruff("check", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_code_is_ruff_formatted() -> None:
    run = _ruff("format", "--check", *CODE)
    assert run.returncode == 0, run.stdout + run.stderr


def test_goldens_are_ruff_format_stable() -> None:
    goldens = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("examples/**/expected_*/*.py"))
    assert len(goldens) > 50
    run = _ruff("format", "--check", "--no-cache", *goldens)
    assert run.returncode == 0, run.stdout + run.stderr


def test_golden_lines_fit_in_100_columns_but_what_the_source_carries() -> None:
    # What tiletrans writes fits in 100 columns, its provenance header included (long paths
    # wrap); a line carried from the source stays as its author wrote it (a long docstring
    # line, say).
    over: list[str] = []
    for golden in sorted(ROOT.glob("examples/**/expected_*/*.py")):
        source = (golden.parent.parent / golden.name).read_text().splitlines()
        carried = {line.strip() for line in source}  # re-indented into a kernel, too
        for number, line in enumerate(golden.read_text().splitlines(), start=1):
            if len(line) > 100 and line.strip() not in carried:
                over.append(f"{golden.relative_to(ROOT)}:{number}: {line}")
    assert not over, "\n".join(over[:20]) + f"\n({len(over)} lines)"
