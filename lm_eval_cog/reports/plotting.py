"""Saving figures: every figure as PNG (embedded in the HTML page) and SVG (for papers).

matplotlib runs with the Agg backend: the tools run on headless machines and never open a window.
"""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

#: One look for every figure of the reports.
#: ``svg.hashsalt`` fixes the ids matplotlib writes into SVGs (random otherwise): reruns give the same bytes.
STYLE = {
    "figure.dpi": 100, "savefig.dpi": 110, "axes.spines.top": False, "axes.spines.right": False, "font.size": 9,
    "svg.hashsalt": "lm-eval-cog",
}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class FigureFile:
    """A saved figure: its files and the words that go with it."""

    stem: str
    title: str
    caption: str
    png: Path
    svg: Path

    def data_uri(self) -> str:
        """The PNG as a ``data:`` URI, so that an HTML page shows it with no other file."""
        return "data:image/png;base64," + base64.b64encode(self.png.read_bytes()).decode("ascii")


def new_figure(width: float = 6.0, height: float = 3.5, **kwargs: Any) -> tuple[Any, Any]:
    """``plt.subplots`` in the reports' style."""
    with plt.rc_context(STYLE):
        return plt.subplots(figsize=(width, height), **kwargs)


def save_figure(fig: Any, out_dir: Path, stem: str, title: str, caption: str = "") -> FigureFile:
    """Write ``<stem>.png`` and ``<stem>.svg`` under ``out_dir`` and close the figure."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    png, svg = out_dir / f"{stem}.png", out_dir / f"{stem}.svg"
    with plt.rc_context(STYLE):
        fig.tight_layout()
        # SVG text stays text (smaller files, searchable); no timestamp, so reruns give the same bytes.
        fig.savefig(png, format="png", metadata={"Software": None})
        fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return FigureFile(stem=stem, title=title, caption=caption, png=png, svg=svg)
