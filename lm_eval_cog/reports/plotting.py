"""Saving figures: every figure as PNG (embedded in the HTML page) and SVG (for papers).

matplotlib runs with the Agg backend: the tools run on headless machines and never open a window.
"""

from __future__ import annotations

import base64
import dataclasses
import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from lm_eval_cog.reports.files import write_bytes  # noqa: E402

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


def plain(text: object) -> str:
    """Text from the inputs (task names, labels, deck names) as matplotlib shows it literally: a ``$``
    would start mathtext (and an unbalanced one fail the figure); a lone surrogate has no glyph or UTF-8."""
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8").replace("$", r"\$")


def save_figure(fig: Any, out_dir: Path, stem: str, title: str, caption: str = "") -> FigureFile:
    """Write ``<stem>.png`` and ``<stem>.svg`` under ``out_dir`` and close the figure.

    ``out_dir`` is a folder of the output (``figures/``): it is refused, as each file is, when it is a
    symbolic link (see :mod:`files`).
    """
    out_dir = Path(out_dir)
    png, svg = out_dir / f"{stem}.png", out_dir / f"{stem}.svg"
    try:
        with plt.rc_context(STYLE):
            fig.tight_layout()
            # SVG text stays text (smaller files, searchable); no timestamp, so reruns give the same bytes.
            formats = ((png, "png", {"Software": None}), (svg, "svg", {"Date": None, "Creator": None}))
            for path, kind, metadata in formats:
                buffer = io.BytesIO()
                fig.savefig(buffer, format=kind, metadata=metadata)
                write_bytes(path, buffer.getvalue(), root=out_dir.parent)
    finally:
        plt.close(fig)
    return FigureFile(stem=stem, title=title, caption=caption, png=png, svg=svg)
