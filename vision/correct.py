"""Let the rules of the set correct what the camera read.

A set holds each tile once and no value above its maximum. When two tiles in one photo
read the same, one of them is misread: the one whose reading was least certain takes
its cheapest plausible second reading (one dot more or less on one end) that makes the
hand consistent. What was changed is noted on the tile so a person can check it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.tiles import SUPPORTED_SETS

from .onnx_yolo import bounds_meet
from .pipreader import TileReading
from .recognition.changes import Capped, Change, Corrected, repeated_tile_warning
from .recognition.correction_config import CorrectionConfig
from .types import TileDetection

STANDARD_SETS = SUPPORTED_SETS


SURE_READING = 0.5
"""A reading whose `TileReading.confidence` is at least this is sure: it may decide which set is in
play, and the page outlines it as read (below it, as unsure). Measured on the labelled real
photos: every one of 65 readings below it in the low-seat frames was wrong, and none of the
top-down photos' readings was wrong at all; but an unsure reading is not proof of a misread
(the dense 12s of top-down photos warped to 65 degrees read right at 0.03-0.2), so it is only
kept out of what decides the photo as a whole."""

DEFAULT_SET = 12  # the set assumed where few sure tiles show none above it


def infer_set_max(sure_values: list[int], default: int = DEFAULT_SET,
                  config: CorrectionConfig = CorrectionConfig()) -> int:
    """The set in play, from the highest value of each tile read sure: the smallest standard set
    that holds them all, but one smaller than `default` only where there are enough tiles that
    the next larger set would almost surely have shown a higher value (see
    `CorrectionConfig.set_evidence`).

    Why sure readings only: a tile in the background, or one standing on edge, read at random
    (values of 13 or 18 from a double-6 set) made the whole photo a double-18, and let every
    other misread through as a value the set does not hold."""
    evidence = config.set_evidence
    top = max(sure_values, default=0)
    fitting = [s for s in STANDARD_SETS if s >= top] or [STANDARD_SETS[-1]]
    for s, larger in zip(fitting, fitting[1:]):
        if s >= default or ((s + 1) / (larger + 1)) ** (2 * len(sure_values)) < evidence:
            return s
    return fitting[-1]


def _key(p: tuple[int, int]) -> tuple[int, int]:
    return (min(p), max(p))


def read_twice(tiles: list[TileDetection]) -> int:
    """How many of the faces read repeat a tile read before (a set holds each tile once)."""
    return len(tiles) - len({_key(t.pips) for t in tiles})


def drop_duplicate_boxes(tiles: list[TileDetection], readings: list[TileReading], iou: float = 0.2
                         ) -> tuple[list[TileDetection], list[TileReading]]:
    """Two overlapping boxes that read the same tile are one tile boxed twice (a set holds
    each tile once, and real neighbours overlap at IoU < 0.1): keep the more confident."""
    kept = duplicate_boxes_kept(tiles, readings, iou)
    return [tiles[i] for i in kept], [readings[i] for i in kept]


def duplicate_boxes_kept(tiles: list[TileDetection], readings: list[TileReading], iou: float = 0.2) -> list[int]:
    """Indices, in order, of the boxes `drop_duplicate_boxes` keeps."""
    from .onnx_yolo import polygon_iou

    order = sorted(range(len(tiles)), key=lambda i: -tiles[i].confidence)
    kept: list[int] = []
    for i in order:
        ki = _key(readings[i].pips)
        if any(_key(readings[k].pips) == ki and polygon_iou(tiles[i].corners, tiles[k].corners) > iou for k in kept):
            continue
        kept.append(i)
    return sorted(kept)


def drop_boxes_sharing_dots(tiles: list[TileDetection], readings: list[TileReading],
                            config: CorrectionConfig = CorrectionConfig()
                            ) -> tuple[list[TileDetection], list[TileReading]]:
    """A dot lies on one tile: a box that counts, for half or more of its dots (two at least), the
    very dots a more confident box counts is dropped (`CorrectionConfig.same_dot`, `shared_share`).

    Why: on copies of the real photos moved onto a pale table with a cast shadow's sharp band over
    it (`scripts/restage_real.py`, then `scripts/stress_real.py` castshadow), the detector boxed
    one end of an 8-8 together with a square of the table that the band's edge bounded like a tile's
    end (score 0.52 against the 8-8's 0.93). Half of it lies over the table, so the 8-8 does not
    cover it as a phantom of a block of tiles is covered (`drop_overlapping_boxes`), and it was
    read 0-8: the hand's total counted the 8 twice. Tiles lying on one another do not show one dot
    twice either: the upper one hides the lower one's face where they overlap."""
    kept = boxes_sharing_dots_kept(tiles, readings, config)
    return [tiles[i] for i in kept], [readings[i] for i in kept]


def boxes_sharing_dots_kept(tiles: list[TileDetection], readings: list[TileReading],
                            config: CorrectionConfig) -> list[int]:
    """Indices, in order, of the boxes `drop_boxes_sharing_dots` keeps."""
    from .rectify import crop_to_picture

    n = len(tiles)
    if n < 2:
        return list(range(n))
    meet = bounds_meet([np.asarray(t.corners, np.float32) for t in tiles])
    dots = [crop_to_picture(t.corners, [p[:2] for p in r.points]) for t, r in zip(tiles, readings)]
    length = [t.length for t in tiles]
    kept: list[int] = []
    for i in sorted(range(n), key=lambda i: -tiles[i].confidence):
        def shared(k: int) -> int:
            if not meet[i, k] or not len(dots[k]):
                return 0
            gap = np.linalg.norm(dots[i][:, None, :] - dots[k][None, :, :], axis=2).min(1)
            return int((gap <= config.same_dot * min(length[i], length[k])).sum())
        m = len(dots[i])
        if m >= 2 and any(shared(k) >= max(2, config.shared_share * m) for k in kept):
            continue
        kept.append(i)
    return sorted(kept)


def drop_overlapping_boxes(tiles: list[TileDetection], readings: list[TileReading],
                           config: CorrectionConfig = CorrectionConfig()
                           ) -> tuple[list[TileDetection], list[TileReading]]:
    """Tiles lying flat do not overlap; where boxes do, keep the set that is most tile-like.

    In a block of tiles pushed together (a hand lined up in rows), two halves of neighbouring
    tiles make a square that looks like a tile too, and the detector may box it with more
    confidence than the real tile. The divider can tell them apart: a real tile has its bar
    across the middle, a phantom has the seam between two tiles there, which may read as a
    much thinner "bar" or none (or, with dark seams and faint bars, as a bar: so the bar only
    counts where the photo's undisputed tiles show theirs). Within each group of overlapping
    boxes the kept set maximises detector score plus that bonus. Whichever set is kept, the
    same halves are counted, so a hand's total comes out the same. (The shares and the bar's
    weight: `CorrectionConfig.overlap`, `touch`, `covered`, `bar_weight`.)
    """
    kept = overlapping_boxes_kept(tiles, readings, config)
    return [tiles[i] for i in kept], [readings[i] for i in kept]


def overlapping_boxes_kept(tiles: list[TileDetection], readings: list[TileReading],
                           config: CorrectionConfig) -> list[int]:
    """Indices, in order, of the boxes `drop_overlapping_boxes` keeps."""
    import cv2

    n = len(tiles)
    if n < 2:
        return list(range(n))
    polys = [np.asarray(t.corners, np.float32) for t in tiles]
    areas = [abs(cv2.contourArea(p)) for p in polys]
    meet = bounds_meet(polys)
    overlapping: dict[int, set[int]] = {i: set() for i in range(n)}
    touching: dict[int, set[int]] = {i: set() for i in range(n)}
    for i in range(n):
        for j in range(i + 1, n):
            if not meet[i, j]:
                continue  # the boxes cannot overlap
            small = min(areas[i], areas[j])
            inter = cv2.intersectConvexConvex(polys[i], polys[j])[0] if small > 0 else 0.0
            if inter > config.touch * small:
                touching[i].add(j)
                touching[j].add(i)
            if inter > config.overlap * small:
                overlapping[i].add(j)
                overlapping[j].add(i)
    # only a box the others cover almost wholly can be a phantom (or a tile boxed twice); a tile
    # partly lying on another (a heap, a fanned hand) leaves much of each uncovered. Every box it
    # overlaps counts towards its cover: a box over the halves of two diagonal neighbours and a
    # corner of a third (a hand lined up in rows, photographed turned 45°) overlaps no single one
    # enough to be covered by it alone
    covered = [bool(overlapping[i]) and _covered_share(polys[i], [polys[j] for j in touching[i]]) >= config.covered
               for i in range(n)]
    conflicts = {i: {j for j in overlapping[i] if covered[i] or covered[j]} for i in range(n)}
    if not any(conflicts.values()):
        return list(range(n))
    # what this set's bar looks like, from the tiles in no doubt; where most of them show no bar
    # (a faint one), or a seam is as dark as a bar, a bar says nothing and only scores decide
    trusted = [r.bar for i, r in enumerate(readings) if not conflicts[i]]
    thick = [b[1] for b in trusted if b is not None]
    ref = float(np.median(thick)) if len(thick) >= 2 and len(thick) > len(trusted) / 2 else None
    bonus = config.bar_weight
    weight = [t.confidence + (bonus if ref is not None and r.bar is not None and r.bar[1] >= 0.5 * ref else 0.0)
              for t, r in zip(tiles, readings)]
    keep = set(range(n))
    seen: set[int] = set()
    for start in range(n):
        if start in seen or not conflicts[start]:
            continue
        group, todo = [], [start]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            seen.add(k)
            group.append(k)
            todo.extend(conflicts[k] - seen)
        keep -= set(group)
        keep |= _heaviest_compatible(sorted(group), conflicts, weight)
    return sorted(keep)


def _covered_share(box: np.ndarray, others: list[np.ndarray], steps: int = 9) -> float:
    """Share of a quadrilateral's area inside the union of other convex quadrilaterals, on a
    grid of sample points (enough to tell "half covered" from "all covered")."""
    import cv2

    u = (np.arange(steps) + 0.5) / steps
    a, b, c, d = box.astype(np.float64)
    uu, vv = np.meshgrid(u, u)
    pts = ((1 - uu)[..., None] * ((1 - vv)[..., None] * a + vv[..., None] * d)
           + uu[..., None] * ((1 - vv)[..., None] * b + vv[..., None] * c)).reshape(-1, 2)
    inside = np.zeros(len(pts), bool)
    for q in others:
        hull = cv2.convexHull(q.astype(np.float32))[:, 0].astype(np.float64)
        inside |= _in_convex(pts, hull)
    return float(inside.mean())


def _in_convex(pts: np.ndarray, hull: np.ndarray) -> np.ndarray:
    """Which points lie inside or on a convex polygon (its vertices in order, either way round):
    on the same side of every edge. (A point test per sample point cost ~20 ms a table frame.)"""
    if len(hull) < 3:
        return np.zeros(len(pts), bool)
    edge = np.roll(hull, -1, axis=0) - hull  # m×2
    rel = pts[:, None, :] - hull[None]  # n×m×2
    cross = edge[None, :, 0] * rel[..., 1] - edge[None, :, 1] * rel[..., 0]
    eps = 1e-9 * float(np.abs(edge).max() ** 2 + 1)
    return (cross >= -eps).all(1) | (cross <= eps).all(1)


def _heaviest_compatible(group: list[int], conflicts: dict[int, set[int]], weight: list[float]) -> set[int]:
    """The subset of `group` with no two in conflict and the most total weight (exhaustive for
    the small groups a photo has; greedy by weight beyond 14 boxes)."""
    if len(group) > 14:
        chosen: set[int] = set()
        for k in sorted(group, key=lambda i: -weight[i]):
            if not conflicts[k] & chosen:
                chosen.add(k)
        return chosen
    best: tuple[float, set[int]] = (-1.0, set())

    def grow(idx: int, chosen: set[int], total: float) -> None:
        nonlocal best
        if idx == len(group):
            if total > best[0]:
                best = (total, set(chosen))
            return
        k = group[idx]
        if not conflicts[k] & chosen:
            chosen.add(k)
            grow(idx + 1, chosen, total + weight[k])
            chosen.remove(k)
        grow(idx + 1, chosen, total)

    grow(0, set(), 0.0)
    return best[1]


def second_readings(pips: tuple[int, int], reading: TileReading, set_max: int, threshold: float,
                    config: CorrectionConfig = CorrectionConfig()) -> list[tuple[tuple[int, int], float]]:
    """One end read otherwise, as plausible as `CorrectionConfig.max_cost` allows, cheapest first."""
    max_cost = config.max_cost
    out = []
    for end in (0, 1):
        for count, cost in reading.halves[end].alternatives(threshold):
            alt = list(pips)
            alt[end] = count
            if cost <= max_cost and 0 <= count <= set_max and alt[end] != pips[end]:
                out.append(((alt[0], alt[1]), round(float(cost), 3)))
    return sorted(out, key=lambda a: a[1])


@dataclass
class SetRuling:
    """What the set's rules made of one photo's readings: the values given each tile, the changes
    made to each (`recognition.changes.Capped`, `Corrected`), and the tiles read more than once
    that no cheap second reading told apart, with how many times."""

    pips: list[tuple[int, int]]
    changes: list[list[Change]]
    repeated: list[tuple[tuple[int, int], int]]


def settle_values(readings: list[TileReading], set_max: int, threshold: float, capped: bool = True,
                  corrected: bool = True, config: CorrectionConfig = CorrectionConfig()) -> SetRuling:
    """The values the set's rules give `readings`: no value above `set_max` (`capped`), and each
    tile once (`corrected`: a duplicate resolved by the cheapest second reading, at most
    `CorrectionConfig.max_duplicate_fixes` of them, none dearer than its `max_cost`; an identity
    no cheap second reading resolves is reported once, with how many times it was read, and the
    others are still looked at).

    A second reading is only taken when a dot near the threshold makes it plausible; two
    confident identical readings are reported (two sets mixed, or a real misread) rather
    than silently changed."""
    pips: list[tuple[int, int]] = []
    changes: list[list[Change]] = [[] for _ in readings]
    for n, r in enumerate(readings):
        a, b = r.pips
        if capped and (a > set_max or b > set_max):
            changes[n].append(Capped((a, b), set_max))
            a, b = min(a, set_max), min(b, set_max)
        pips.append((a, b))
    confidence = [r.confidence for r in readings]
    unresolved: set[tuple[int, int]] = set()
    fixes = 0
    while corrected and fixes < config.max_duplicate_fixes:
        seen: dict[tuple[int, int], int] = {}
        dup = None
        for i, p in enumerate(pips):
            k = _key(p)
            if k in unresolved:
                continue
            if k in seen:
                dup = (seen[k], i)
                break
            seen[k] = i
        if dup is None:
            break
        i, j = dup
        loser = i if confidence[i] < confidence[j] else j
        taken = {_key(p) for n, p in enumerate(pips) if n != loser}
        best = None
        r = readings[loser]
        for end in (0, 1):
            for count, cost in r.halves[end].alternatives(threshold):
                cand = list(pips[loser])
                cand[end] = count
                cand_t = (cand[0], cand[1])
                if cost > config.max_cost or max(cand_t) > set_max or _key(cand_t) in taken:
                    continue
                if best is None or cost < best[0]:
                    best = (cost, cand_t)
        if best is None:
            unresolved.add(_key(pips[loser]))
            continue
        changes[loser].append(Corrected(pips[loser], best[1]))
        pips[loser] = best[1]
        fixes += 1
    repeated = [(k, sum(1 for p in pips if _key(p) == k)) for k in sorted(unresolved)]
    return SetRuling(pips, changes, repeated)


def apply_rules(tiles: list[TileDetection], readings: list[TileReading], set_max: int, threshold: float,
                config: CorrectionConfig = CorrectionConfig()) -> list[str]:
    """Fix values in place on `tiles` (parallel to `readings`) by the set's rules
    (`settle_values`), noting each change on its tile; returns warnings for the photo."""
    ruling = settle_values(readings, set_max, threshold, config=config)
    for t, r, p, changes in zip(tiles, readings, ruling.pips, ruling.changes):
        t.pips = p
        t.pip_confidence = r.confidence
        t.notes.extend(c.note for c in changes)
    return [repeated_tile_warning(k, n) for k, n in ruling.repeated]
