"""How large tiles must appear for their values to be read, and the advice when they are not.

The pip patterns of the big values are fine detail: a 15 drawn as three rows of five dots is
three bars on a tile 43 px long, and no reader can tell it from a 13 or a 14 (the live
tracker lost 52 of the 82 plays of a rendered round so). Where the tiles are that small
the right answer is to tell the person at the table to bring the camera closer or raise its
resolution, once, rather than report misreadings as illegal plays without a word.

Measured on the committed models (`scripts/reading_by_tile_length.py`): tiles cut
from rendered tiles shrunk to a length and read front on, exact tile 0.980 or better from 30 px for
every set, 0.895-0.963 at 20-25 px for double-12 and up (`tiles --count 400`); and every tile of
the last frame of 120 rendered webcam rounds (1280x720, perspective, neighbours; `rounds --seed 28
29 --rounds 60`): double-15 tiles under 40 px read wrong 5.6 % and missed 4.5 % (354 tiles),
40-45 px 2.1 % and 1.4 % (658), 45 px and over 0.3 % and 0.9 % (1,237); double-12 under 40 px 3
wrong of 17, 40 px and over 0.3 % and 0.3 % (1,456); double-6 and -9 (all over 45 px) 1 missed of
1,581.
"""
from __future__ import annotations

from collections.abc import Sequence
import statistics

READABLE_TILE_PX: dict[int, float] = {6: 30.0, 9: 30.0, 12: 40.0, 15: 45.0, 18: 45.0}
"""Shortest tile length (pixels, in the picture read) at which a set's values read reliably."""
MIN_TILES = 3
"""Tiles a picture must show before their size is judged (one far tile says little)."""


def readable_tile_px(set_max: int) -> float:
    """`READABLE_TILE_PX` for `set_max`, or that of the next larger set listed."""
    for s in sorted(READABLE_TILE_PX):
        if set_max <= s:
            return READABLE_TILE_PX[s]
    return READABLE_TILE_PX[max(READABLE_TILE_PX)]


def small_tiles_warning(lengths: Sequence[float], set_max: int, where: str = "in this picture") -> str | None:
    """Advice for a picture whose face-up tiles are `lengths` pixels long, or None where they
    are large enough (or too few to judge)."""
    if len(lengths) < MIN_TILES:
        return None
    median = statistics.median(lengths)
    need = readable_tile_px(set_max)
    if median >= need:
        return None
    return (f"the tiles are about {median:.0f} px long {where}; a double-{set_max} set's values "
            f"are read reliably from about {need:.0f} px: bring the camera closer or use a higher resolution")
