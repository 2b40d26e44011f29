"""The PNG plots of ``tiletrans migrate --report FILE.md`` (matplotlib, imported only here).

Two figures beside the report, linked from it: the outcomes per DSL pair (stacked bars: translated
and verified, translated, refused, error) and, when the run benchmarked its translations
(``--bench``), the distribution of speed ratios (source time / translation time: above 1 the
translation is faster). matplotlib is the optional extra ``tiletrans[report]``; without it the
report is written without plots and says how to get them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

#: Bar colours of the outcome columns (in :data:`translator.migrate.COLUMNS` order).
COLOURS = {
    "translated + verified": "#2ca02c",
    "translated": "#1f77b4",
    "refused": "#ff7f0e",
    "error": "#d62728",
}


class PlotsUnavailable(Exception):
    """matplotlib is not installed."""


def _figure(width: float, height: float):
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as err:
        raise PlotsUnavailable("plots need matplotlib: pip install 'tiletrans[report]'") from err
    # A Figure with its own Agg canvas: no pyplot, no global state, no display needed.
    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def outcomes_png(path: str, table: dict[str, Counter[str]], columns: Sequence[str]) -> None:
    """Stacked horizontal bars: for each DSL pair, how many files ended in each column."""
    pairs = sorted(p for p in table if not p.startswith("no kernel"))
    fig = _figure(8, 1.2 + 0.5 * max(len(pairs), 1))
    ax = fig.add_subplot()
    left = [0] * len(pairs)
    for col in columns:
        counts = [table[p].get(col, 0) for p in pairs]
        ax.barh(pairs, counts, left=left, label=col, color=COLOURS.get(col))
        left = [a + b for a, b in zip(left, counts)]
    ax.set_xlabel("files")
    ax.set_title("tiletrans migrate: outcomes by DSL pair")
    ax.invert_yaxis()
    # Beside the bars, never over them.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.savefig(path, format="png")


def speed_png(path: str, ratios: Sequence[float]) -> None:
    """A histogram of the speed ratios (log scale: 0.5 and 2 are as far from 1)."""
    import math

    fig = _figure(8, 4)
    ax = fig.add_subplot()
    logs = [math.log2(r) for r in ratios if r > 0]
    ax.hist(logs, bins=max(5, min(20, len(logs) // 2)), color="#1f77b4")
    ax.axvline(0.0, color="black", linewidth=1)
    # Ticks every half power of two (0.71×, 1×, 1.41×...) over the range of the data.
    low, high = min(logs, default=0.0), max(logs, default=0.0)
    ticks = [t / 2 for t in range(-8, 9) if low - 0.5 <= t / 2 <= high + 0.5]
    ax.set_xticks(ticks, [f"{2.0**t:.2g}×" for t in ticks])
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("speed ratio (source time / translation time; right of 1×: translation faster)")
    ax.set_ylabel("files")
    ax.set_title(f"speed ratios of {len(logs)} benchmarked translations")
    fig.savefig(path, format="png")


def write_plots(
    report: str,
    table: dict[str, Counter[str]],
    columns: Sequence[str],
    ratios: Sequence[float],
) -> list[tuple[str, str]]:
    """Write the plots beside ``report`` (``NAME.outcomes.png``, ``NAME.speed.png`` when there
    are ratios); ``(title, file name relative to the report)`` of each written. Raises
    :class:`PlotsUnavailable` without matplotlib."""
    stem = os.path.splitext(os.path.basename(report))[0]
    folder = os.path.dirname(os.path.abspath(report))
    os.makedirs(folder, exist_ok=True)
    written = []
    name = f"{stem}.outcomes.png"
    outcomes_png(os.path.join(folder, name), table, columns)
    written.append(("Outcomes by DSL pair", name))
    if ratios:
        name = f"{stem}.speed.png"
        speed_png(os.path.join(folder, name), ratios)
        written.append(("Speed ratios", name))
    return written


__all__ = ["PlotsUnavailable", "outcomes_png", "speed_png", "write_plots"]
