"""5x5 grids shared by the Reference Game and the Image Game: patterns, drawing, reading, distances.

A grid is a tuple of 5 rows, each a tuple of 5 cells; a cell is :data:`EMPTY` (``▢``) or a mark
(``X`` in the Reference Game, a capital letter in the Image Game). As clembench writes them, a
grid is shown as rows of space-separated cells, one row per line::

    X ▢ ▢ ▢ X
    ▢ X ▢ X ▢
    ...

The pattern library (a 5x5 capital-letter font and named shapes) is ours: clembench's hand-made
grids are not available here (see the games' READMEs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeAlias

from rapidfuzz.distance import Levenshtein

SIZE = 5
EMPTY = "▢"
MARK = "X"

Grid: TypeAlias = tuple[tuple[str, ...], ...]
Cell: TypeAlias = tuple[int, int]  # (row, column), 0-based


# ---------------------------------------------------------------- building and drawing
def from_cells(cells: Iterable[Cell], mark: str = MARK) -> Grid:
    """The grid with ``mark`` in ``cells`` and every other cell empty."""
    filled = set(cells)
    for r, c in filled:
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            raise ValueError(f"cell {(r, c)} is outside the {SIZE}x{SIZE} grid")
    return tuple(tuple(mark if (r, c) in filled else EMPTY for c in range(SIZE)) for r in range(SIZE))


def from_bitmap(rows: str) -> Grid:
    """A grid from 5 lines of 5 characters, ``#`` for a mark and ``.`` for an empty cell."""
    lines = rows.split()
    if len(lines) != SIZE or any(len(line) != SIZE or set(line) - {"#", "."} for line in lines):
        raise ValueError(f"a bitmap needs {SIZE} lines of {SIZE} '#' or '.', got {rows!r}")
    return from_cells((r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch == "#")


def empty_grid() -> Grid:
    return from_cells(())


def filled_cells(grid: Grid) -> list[Cell]:
    """The non-empty cells, row by row."""
    return [(r, c) for r, row in enumerate(grid) for c, cell in enumerate(row) if cell != EMPTY]


def with_mark(grid: Grid, mark: str) -> Grid:
    """``grid`` with every filled cell holding ``mark``."""
    return from_cells(filled_cells(grid), mark)


def render(grid: Grid) -> str:
    """Rows of space-separated cells, one row per line (no trailing newline)."""
    return "\n".join(" ".join(row) for row in grid)


def distance(a: Grid, b: Grid) -> int:
    """Levenshtein distance between the two grids' strings (clembench's instance generator measure)."""
    return Levenshtein.distance(render(a), render(b))


def nearest(target: Grid, pool: Iterable[Grid], k: int = 2) -> list[Grid]:
    """The ``k`` grids of ``pool`` other than ``target`` nearest to it by :func:`distance`; ties go
    to the grid earlier in ``pool`` (deterministic)."""
    others = [(distance(target, g), i, g) for i, g in enumerate(pool) if g != target]
    return [g for _, _, g in sorted(others, key=lambda t: (t[0], t[1]))[:k]]


# ---------------------------------------------------------------- reading a drawn grid
def parse_grid(text: str) -> Grid | str:
    """A drawn grid, or the reason (a str) why ``text`` is not one.

    Exactly 5 lines of 5 cells separated by single spaces; a cell is an ASCII capital letter or
    ``▢``; blank lines may surround the grid, nothing else may. Read line by line (linear in
    the length of ``text``).
    """
    rows: list[tuple[str, ...]] = []
    lines = text.strip().split("\n") if isinstance(text, str) else []
    if lines == [""]:
        return "empty reply"
    for number, line in enumerate(lines, 1):
        if len(rows) == SIZE:
            return f"more than {SIZE} rows (line {number})"
        row = _parse_row(line)
        if isinstance(row, str):
            return f"line {number}: {row}"
        rows.append(row)
    if len(rows) != SIZE:
        return f"{len(rows)} rows instead of {SIZE}"
    return tuple(rows)


def _parse_row(line: str) -> tuple[str, ...] | str:
    if len(line) != 2 * SIZE - 1:
        return f"{len(line)} characters instead of {2 * SIZE - 1} ({SIZE} cells separated by single spaces)"
    if any(line[i] != " " for i in range(1, len(line), 2)):
        return "cells must be separated by single spaces"
    cells = tuple(line[0::2])
    bad = [c for c in cells if not (c == EMPTY or "A" <= c <= "Z")]
    if bad:
        return f"cell {bad[0]!r} is neither a capital letter A-Z nor {EMPTY}"
    return cells


# ---------------------------------------------------------------- pattern library
#: A 5x5 font of capital letters (ours), as ``#``/``.`` bitmaps.
FONT: Mapping[str, str] = {
    "A": "..#.. .#.#. ##### #...# #...#",
    "C": ".#### #.... #.... #.... .####",
    "E": "##### #.... ####. #.... #####",
    "F": "##### #.... ####. #.... #....",
    "H": "#...# #...# ##### #...# #...#",
    "I": "##### ..#.. ..#.. ..#.. #####",
    "J": "..### ...#. ...#. #..#. .##..",
    "L": "#.... #.... #.... #.... #####",
    "N": "#...# ##..# #.#.# #..## #...#",
    "O": ".###. #...# #...# #...# .###.",
    "P": "####. #...# ####. #.... #....",
    "T": "##### ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# .###.",
    "Z": "##### ...#. ..#.. .#... #####",
}

#: Named shapes (ours), as ``#``/``.`` bitmaps.
SHAPES: Mapping[str, str] = {
    "frame": "##### #...# #...# #...# #####",
    "inner_square": "..... .###. .###. .###. .....",
    "inner_frame": "..... .###. .#.#. .###. .....",
    "plus": "..#.. ..#.. ##### ..#.. ..#..",
    "small_plus": "..... ..#.. .###. ..#.. .....",
    "saltire": "#...# .#.#. ..#.. .#.#. #...#",
    "staircase": "#.... ##... ###.. ####. #####",
    "pyramid": "..... ..... ..#.. .###. #####",
    "checkerboard": "#.#.# .#.#. #.#.# .#.#. #.#.#",
    "checkerboard_inverse": ".#.#. #.#.# .#.#. #.#.# .#.#.",
    "diamond": "..#.. .#.#. #...# .#.#. ..#..",
    "corners": "##.## #...# ..... #...# ##.##",
    "arrow_right": "..#.. ...#. ##### ...#. ..#..",
}

LETTER_GRIDS: tuple[Grid, ...] = tuple(from_bitmap(b) for b in FONT.values())
SHAPE_GRIDS: tuple[Grid, ...] = tuple(from_bitmap(b) for b in SHAPES.values())
