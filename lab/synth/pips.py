"""Pip layouts for values 0 to 18, in the unit square of one tile half.

Coordinates are (u, v): u runs across the tile's width, v along its length, both in
[0, 1]. Layouts 0-9 sit on a 3x3 lattice and 10-12 on 3 across x 4 along the length,
as physical double-12 sets print them (a grid drawn rotated 90 degrees made a real
detector read 12s and 10s as 6s). No maker documents 13-18, and the two public
renderers disagree, so both conventions are available and the renderer picks one per
set: the pip *detector* downstream counts dots and does not care which is right.
"""
from __future__ import annotations

import math
from functools import lru_cache

MAX_PIPS = 18

_L3 = (0.0, 0.5, 1.0)
_L4 = (0.0, 1 / 3, 2 / 3, 1.0)


def _g3(*cells: tuple[int, int]) -> list[tuple[float, float]]:
    return [(_L3[c], _L3[r]) for c, r in cells]


def _g34(*cells: tuple[int, int]) -> list[tuple[float, float]]:
    return [(_L3[c], _L4[r]) for c, r in cells]


_BASE: dict[int, list[tuple[float, float]]] = {
    0: [],
    1: _g3((1, 1)),
    2: _g3((0, 0), (2, 2)),
    3: _g3((0, 0), (1, 1), (2, 2)),
    4: _g3((0, 0), (2, 0), (0, 2), (2, 2)),
    5: _g3((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: _g3((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
    7: _g3((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2), (1, 1)),
    8: _g3((0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)),
    9: _g3(*[(c, r) for c in range(3) for r in range(3)]),
    10: _g34(*[(0, r) for r in range(4)], *[(2, r) for r in range(4)], (1, 0), (1, 3)),
    11: _g34(*[(0, r) for r in range(4)], *[(2, r) for r in range(4)], (1, 0), (1, 3)) + [(0.5, 0.5)],
    12: _g34(*[(c, r) for c in range(3) for r in range(4)]),
}

_L4x = (0.0, 1 / 3, 2 / 3, 1.0)


def _piecepackr(n: int) -> list[tuple[float, float]]:
    """13-18 after piecepackr: a 4x3 block plus a partial 4th line, then 4x4 variants."""
    if n <= 15:
        block = [(_L4x[c], _L3[r] * 0.75) for c in range(4) for r in range(3)]
        extra = {13: [1.5 / 3], 14: [1 / 3, 2 / 3], 15: [0.0, 0.5, 1.0]}[n]
        return block + [(u, 1.0) for u in extra]
    grid = [(_L4x[c], _L4x[r]) for c in range(4) for r in range(4)]
    if n == 16:
        return grid
    if n == 17:
        return grid + [(0.5, 0.5)]
    return grid + [(0.5, 1 / 6), (0.5, 5 / 6)]


def _rows(n: int) -> list[tuple[float, float]]:
    """13-18 as rows along the length (3D-print convention, e.g. 18 = 4+5+5+4)."""
    rows = {13: (4, 5, 4), 14: (5, 4, 5), 15: (5, 5, 5), 16: (4, 4, 4, 4), 17: (4, 5, 4, 4), 18: (4, 5, 5, 4)}[n]
    pts: list[tuple[float, float]] = []
    for r, count in enumerate(rows):
        v = r / (len(rows) - 1)
        for c in range(count):
            pts.append((c / (count - 1), v))
    return pts


def pip_layout(n: int, style: str = "piecepackr", transpose: bool = False) -> list[tuple[float, float]]:
    """Pip centres for value n in the unit square (to be inset by the caller's margin).

    `transpose` swaps the axes: sets differ in whether 6 runs across or along the tile.
    """
    if not 0 <= n <= MAX_PIPS:
        raise ValueError(f"pip value {n} outside 0..{MAX_PIPS}")
    if n <= 12:
        pts = list(_BASE[n])
    elif style == "rows":
        pts = _rows(n)
    else:
        pts = _piecepackr(n)
    if transpose and n in (6, 7, 8):
        pts = [(v, u) for u, v in pts]
    return pts


MAX_FILL = 0.72
"""Largest pip diameter as a share of the distance between neighbouring pip centres. Physical
sets leave a clear gap between pips, also on their dense 10-18 faces; with the largest margins
and pip scales the renderer drew them touching, so three columns of an 11 merged into three
bars that read as a 12 to any eye (an 11-11 spinner in a rendered round)."""


@lru_cache(maxsize=None)
def nearest_pip_distance(n: int, style: str = "piecepackr", transpose: bool = False) -> float:
    """Smallest distance between two pip centres of value n, in the unit square (1.0 for 0-1)."""
    pts = pip_layout(n, style, transpose)
    return min((math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1:]), default=1.0)


def pip_radius_factor(n: int) -> float:
    """Pip radius relative to the half's side: dense halves use smaller pips."""
    if n <= 9:
        return 0.105
    if n <= 12:
        return 0.085
    return 0.07
