"""A second look at the photo before accusing anyone of leaving a double unfinished.

"Play went past a spinner (or chickie) that still lacks an arm (or toe)" is the one
verdict a missed detection produces by itself: a detector that overlooks the last tile
of an arm leaves an empty slot, and from the tiles alone that is indistinguishable
from a real breach. The pixels can tell: where the slot is empty the table shows
through; where the detector missed a tile, the slot looks like the tiles around it.

So for each such verdict, the empty slots of the double are compared with the tile
faces nearby and with the table around the slot (median colours in Lab); a slot that
looks like tile withdraws the verdict, which becomes a warning to retake the photo.
When tiles and table look alike, nothing is withdrawn: the engine's verdict stands.
"""
from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from .layout_gaps import overlap, shapes_from_double
from .layout_geometry import estimate_ratio, make_frames, to_image

SLOT_RULES = ("spinner_arms_unfinished", "chickie_unfinished")
TILE_LIKE = 0.4
"""Share of a slot's pixels closer to the tile colour than to the table colour that
says a tile lies there (an empty slot measures ~0, a missed tile 0.5-1 on rendered
tables: pips and shadows keep a real tile from scoring 1)."""
MIN_CONTRAST = 12.0
"""Lab distance between tile and table colours below which the look is inconclusive."""


def _mask(shape: tuple[int, int], quads: list[np.ndarray], shrink: float = 1.0) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for q in quads:
        c = q.mean(0)
        cv2.fillConvexPoly(m, np.round(c + (q - c) * shrink).astype(np.int32), 1)
    return m.astype(bool)


def slot_looks_occupied(lab: np.ndarray, slot: np.ndarray, tiles_near: list[np.ndarray],
                        all_tiles: list[np.ndarray]) -> bool | None:
    """True if the slot looks like tile, False if like table, None if one cannot tell."""
    h, w = lab.shape[:2]
    if (slot[:, 0] < 0).any() or (slot[:, 1] < 0).any() or (slot[:, 0] >= w).any() or (slot[:, 1] >= h).any():
        return None
    inner = _mask((h, w), [slot], 0.7)
    ring = _mask((h, w), [slot], 2.2) & ~_mask((h, w), [slot], 1.1) & ~_mask((h, w), all_tiles, 1.15)
    faces = _mask((h, w), tiles_near, 0.75)
    if inner.sum() < 20 or ring.sum() < 20 or faces.sum() < 20:
        return None
    tile_c = np.median(lab[faces], axis=0)
    table_c = np.median(lab[ring], axis=0)
    if np.linalg.norm(tile_c - table_c) < MIN_CONTRAST:
        return None
    px = lab[inner]
    closer = np.linalg.norm(px - tile_c, axis=1) < np.linalg.norm(px - table_c, axis=1)
    return bool(closer.mean() >= TILE_LIKE)


def second_look(bgr: np.ndarray, to_pixels: float, audit: dict[str, Any], rules_arms: int) -> dict[str, Any]:
    """Withdraw unfinished-double verdicts whose empty slot shows a tile (see module doc).

    `audit` is the `audit_photo` report (original-image coordinates); `to_pixels` maps
    them to `bgr` pixels. Returns the report, changed in place."""
    slot_violations = [v for v in audit["violations"] if v["rule"] in SLOT_RULES]
    if not slot_violations:
        return audit
    tiles = {t["id"]: np.asarray(t["corners"], np.float64) * to_pixels for t in audit["tiles"]}
    pips = {t["id"]: t.get("pips") for t in audit["tiles"]}
    lay = audit["layout"]
    parents = {e["from"]: e["to"] for e in lay["edges"]}
    children: dict[int, list[int]] = {}
    for e in lay["edges"]:
        children.setdefault(e["to"], []).append(e["from"])
    short = []
    if lay.get("spinner") is not None and len(lay.get("arms", [])) < rules_arms:
        short.append(lay["spinner"])
    short += [c["tile"] for c in lay.get("chickies", []) if c["missing"]]
    if not short:
        return audit
    face_up = [tid for tid, p in pips.items() if p]
    ratio = estimate_ratio(np.stack([tiles[t] for t in face_up])) if face_up else 2.0
    everything = list(tiles.values())
    obstacles = make_frames(np.stack(everything), ratio)
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    seen_tile: dict[int, bool] = {}
    for d in short:
        if d not in tiles:
            continue
        frame = make_frames(tiles[d][None], ratio)
        shapes = shapes_from_double(ratio)
        quads = to_image(frame, np.zeros(len(shapes), int), np.stack([s for s, _ in shapes]))
        parent = parents.get(d)
        side = None
        if parent is not None and parent in tiles:
            rel = (tiles[parent].mean(0) - tiles[d].mean(0)) @ (frame.to_local[0, :2, :])
            side = np.sign(rel[0])
        near = [tiles[d]] + [tiles[t] for t in children.get(d, []) + ([parent] if parent is not None else [])
                             if t in tiles]
        verdict = False
        for (local, kind), quad in zip(shapes, quads):
            centre = local.mean(0)
            if side is not None:  # a chickie: toes leave the side away from its parent
                if np.sign(centre[0]) == side or abs(centre[0]) < 0.3:
                    continue
            elif kind == "toe":
                continue  # the spinner takes arms, not 45-degree toes
            if overlap(quad, obstacles, ratio) > 0.1:
                continue
            if slot_looks_occupied(lab, quad, near, everything):
                verdict = True
                break
        seen_tile[d] = verdict
    withdrawn = [d for d, v in seen_tile.items() if v]
    if not withdrawn:
        return audit
    keep = []
    for v in audit["violations"]:
        if v["rule"] in SLOT_RULES and any(d in v["tiles"] for d in withdrawn):
            audit.setdefault("warnings", []).append(
                f"not reported: {v['message']} - the photo shows a tile in the empty place that could not "
                "be read; take the photo again to be sure")
            continue
        keep.append(v)
    audit["violations"] = keep
    audit.setdefault("unread_slots", []).extend(withdrawn)
    return audit
