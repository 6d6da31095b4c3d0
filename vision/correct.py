"""Let the rules of the set correct what the camera read.

A set holds each tile once and no value above its maximum. When two tiles in one photo
read the same, one of them is misread: the one whose reading was least certain takes
its cheapest plausible second reading (one dot more or less on one end) that makes the
hand consistent. What was changed is noted on the tile so a person can check it.
"""
from __future__ import annotations

from .pipreader import TileReading
from .types import TileDetection

STANDARD_SETS = (6, 9, 12, 15, 18)


def infer_set_max(values: list[int], default: int = 12) -> int:
    top = max(values, default=0)
    if top <= default:
        return default
    return next((s for s in STANDARD_SETS if s >= top), STANDARD_SETS[-1])


def _key(p: tuple[int, int]) -> tuple[int, int]:
    return (min(p), max(p))


MAX_COST = 0.35  # a second reading must hinge on a dot scored within this of the threshold


def drop_duplicate_boxes(tiles: list[TileDetection], readings: list[TileReading], iou: float = 0.2
                         ) -> tuple[list[TileDetection], list[TileReading]]:
    """Two overlapping boxes that read the same tile are one tile boxed twice (a set holds
    each tile once, and real neighbours overlap at IoU < 0.1): keep the more confident."""
    from .onnx_yolo import polygon_iou

    order = sorted(range(len(tiles)), key=lambda i: -tiles[i].confidence)
    kept: list[int] = []
    for i in order:
        ki = _key(readings[i].pips)
        if any(_key(readings[k].pips) == ki and polygon_iou(tiles[i].corners, tiles[k].corners) > iou for k in kept):
            continue
        kept.append(i)
    kept.sort()
    return [tiles[i] for i in kept], [readings[i] for i in kept]


def apply_rules(tiles: list[TileDetection], readings: list[TileReading], set_max: int, threshold: float) -> list[str]:
    """Fix values in place on `tiles` (parallel to `readings`); returns warnings for the photo.

    A second reading is only taken when a dot near the threshold makes it plausible; two
    confident identical readings are reported (two sets mixed, or a real misread) rather
    than silently changed."""
    warnings: list[str] = []
    for t, r in zip(tiles, readings):
        a, b = r.pips
        if a > set_max or b > set_max:
            t.notes.append(f"read {a}-{b}, above the set's maximum {set_max}; capped")
            a, b = min(a, set_max), min(b, set_max)
        t.pips = (a, b)
        t.pip_confidence = r.confidence

    # each tile exists once in a set: resolve duplicates by the cheapest second reading
    for _round in range(3):
        seen: dict[tuple[int, int], int] = {}
        dup = None
        for i, t in enumerate(tiles):
            k = _key(t.pips)
            if k in seen:
                dup = (seen[k], i)
                break
            seen[k] = i
        if dup is None:
            break
        i, j = dup
        loser = i if tiles[i].pip_confidence < tiles[j].pip_confidence else j
        taken = {_key(t.pips) for n, t in enumerate(tiles) if n != loser}
        best = None
        r = readings[loser]
        for end in (0, 1):
            for count, cost in r.halves[end].alternatives(threshold):
                cand = list(tiles[loser].pips)
                cand[end] = count
                cand_t = (cand[0], cand[1])
                if cost > MAX_COST or max(cand_t) > set_max or _key(cand_t) in taken:
                    continue
                if best is None or cost < best[0]:
                    best = (cost, cand_t)
        if best is None:
            warnings.append(f"tile {tiles[loser].pips[0]}-{tiles[loser].pips[1]} appears twice; "
                            "one of them is probably misread")
            break
        old = tiles[loser].pips
        tiles[loser].pips = best[1]
        tiles[loser].notes.append(f"read {old[0]}-{old[1]}, which another tile already is; "
                                  f"corrected to {best[1][0]}-{best[1][1]}")
    return warnings
