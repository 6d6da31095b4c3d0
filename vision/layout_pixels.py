"""A second look at the photo before accusing anyone of leaving a double unfinished.

"Play went past a spinner (or chickie) that still lacks an arm (or toe)" is the one
verdict a missed detection produces by itself: a detector that overlooks the last tile
of an arm leaves an empty slot, and from the tiles alone that is indistinguishable
from a real breach. The pixels can tell: where the slot is empty the table shows
through; where the detector missed a tile, the slot looks like the tiles around it.

So for each such verdict, the empty slots of the double are compared with the tile
faces nearby and with the table around the slot (in Lab: the faces' commonest colour,
the colours of a cloth and its pattern); a slot that looks like tile withdraws the
verdict, which becomes a warning to retake the photo. Where every empty slot shows
table, the verdict is confirmed by the photo: its `unless_missed` mark (set by
`vision.layout` when one missed tile would explain it) is taken off and
`photo_checked` set. When tiles and table look alike, nothing is withdrawn and the
mark stays: the verdict stands, unproven.

The look (`look_at_slots`) only measures the photo; `apply_slot_look` makes of it a new
audit, so the audit looked at stays as it was.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .layout_gaps import empty_slots, overlap
from .layout_geometry import estimate_ratio, make_frames
from .table_audit import SLOT_RULES, AuditConfig, TableAudit


def _mask(shape: tuple[int, int], quads: list[np.ndarray], shrink: float = 1.0) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for q in quads:
        c = q.mean(0)
        cv2.fillConvexPoly(m, np.round(c + (q - c) * shrink).astype(np.int32), 1)
    return m.astype(bool)


class _LabCache:
    """The photo in Lab, converted only where a slot is looked at."""

    def __init__(self, bgr: np.ndarray) -> None:
        self.bgr = bgr
        self.shape = bgr.shape

    def __getitem__(self, key):  # lab[y0:y1, x0:x1] -> that crop in Lab
        return cv2.cvtColor(np.ascontiguousarray(self.bgr[key]), cv2.COLOR_BGR2LAB).astype(np.float32)


def slot_looks_occupied(lab: np.ndarray, slot: np.ndarray, tiles_near: list[np.ndarray],
                        all_tiles: list[np.ndarray], config: AuditConfig) -> bool | None:
    """True if the slot looks like tile, False if like table, None if one cannot tell
    (`AuditConfig.tile_like`, `min_contrast`).

    Works on a crop around the slot (a few tile lengths), so it costs a millisecond
    rather than a pass over the whole photo."""
    h, w = lab.shape[:2]
    if (slot[:, 0] < 0).any() or (slot[:, 1] < 0).any() or (slot[:, 0] >= w).any() or (slot[:, 1] >= h).any():
        return None
    c = slot.mean(0)
    reach = 2.5 * float(np.max(np.linalg.norm(slot - c, axis=1)))
    x0, y0 = max(0, int(c[0] - reach)), max(0, int(c[1] - reach))
    x1, y1 = min(w, int(c[0] + reach) + 1), min(h, int(c[1] + reach) + 1)
    crop = lab[y0:y1, x0:x1]
    off = np.array([x0, y0], np.float64)
    shape = crop.shape[:2]
    local_tiles = [q - off for q in all_tiles if (np.abs(q.mean(0) - c) < reach * 2).all()]
    inner = _mask(shape, [slot - off], 0.7)
    # the table around the slot, clear of it by more than a guessed slot is off from a
    # missed tile (otherwise that tile's own face passes for table)
    ring = _mask(shape, [slot - off], 2.4) & ~_mask(shape, [slot - off], 1.3) & ~_mask(shape, local_tiles, 1.15)
    faces_img = _mask(shape, [q - off for q in tiles_near], 0.75)
    if inner.sum() < 20 or ring.sum() < 20 or faces_img.sum() < 20:
        return None
    table = _colours(crop[ring])  # a patterned cloth has more than one colour
    # the tile's colour is its face: the main colour of the faces nearby (a median
    # drifts towards the pips where they are many, and pips may share a colour with
    # the cloth's pattern)
    face = _colours(crop[faces_img], main=True)[0]
    if np.linalg.norm(table - face, axis=1).min() < config.min_contrast:
        return None
    px = crop[inner]
    to_table = np.linalg.norm(px[:, None, :] - table[None], axis=2).min(1)
    closer = np.linalg.norm(px - face, axis=1) < to_table
    return bool(closer.mean() >= config.tile_like)


def _colours(px: np.ndarray, k: int = 3, main: bool = False) -> np.ndarray:
    """The main colours of a patch (k-means in Lab, at most k, each a tenth of it or
    more), or with `main` only the commonest."""
    if len(px) > 3000:
        px = px[np.linspace(0, len(px) - 1, 3000).astype(int)]
    k = min(k, len(px))
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 1.0)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(px.astype(np.float32), k, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    counts = np.bincount(labels.ravel(), minlength=k)
    if main:
        return centres[[int(np.argmax(counts))]]
    return centres[counts >= 0.1 * len(px)]


@dataclass(frozen=True)
class SlotLook:
    """What the photo shows in the empty places of each double left short."""

    shows_tile: dict[int, bool | None] = field(default_factory=dict)
    """Per double looked at: True where its empty places show as many tiles as it lacks, False
    where every one shows table (or it has none), None where one cannot be told from table."""


def look_at_slots(bgr: np.ndarray, to_pixels: float, audit: TableAudit, config: AuditConfig) -> SlotLook:
    """Look at the empty places of the doubles an unfinished-double verdict rests on.

    `audit` is in original-image coordinates; `to_pixels` maps them to `bgr` pixels. Only
    measures: what to make of it is `apply_slot_look`'s."""
    report = audit.reading.report
    if report is None or audit.reading.layout is None or not any(v.rule in SLOT_RULES for v in audit.violations):
        return SlotLook()
    shown = audit.shown_tiles()
    tiles = {t.id: t.corners * to_pixels for t in shown if t.corners is not None}
    pips = {t.id: t.pips for t in shown if t.corners is not None}
    edges = audit.tree_edges()
    parents = {e.child: e.parent for e in edges}
    children: dict[int, list[int]] = {}
    for e in edges:
        children.setdefault(e.parent, []).append(e.child)
    arms = audit.rules.spinner_arms
    short = []
    need_of: dict[int, int] = {}
    if report.spinner_id is not None and len(report.arms) < arms:
        short.append(report.spinner_id)
        need_of[report.spinner_id] = arms - len(report.arms)
    for c in report.chickies:
        if c.missing:
            short.append(c.tile_id)
            need_of[c.tile_id] = c.missing
    if not short:
        return SlotLook()
    face_up = [tid for tid, p in pips.items() if p]
    ratio = estimate_ratio(np.stack([tiles[t] for t in face_up])) if face_up else 2.0
    everything = list(tiles.values())
    obstacles = make_frames(np.stack(everything), ratio)
    lab = _LabCache(bgr)
    seen_tile: dict[int, bool | None] = {}
    for d in short:
        if d not in tiles:
            continue
        parent = parents.get(d)
        near = [tiles[d]] + [tiles[t] for t in children.get(d, []) + ([parent] if parent is not None else [])
                             if t in tiles]
        # True: empty slots show as many tiles as the double lacks; False: every empty
        # slot shows table (or there is none); None: some slot cannot be told from table
        need = max(1, need_of.get(d, 1))
        seen: list[np.ndarray] = []
        unclear = False
        for quad in empty_slots(tiles[d], tiles.get(parent) if parent is not None else None, obstacles, ratio):
            if seen and overlap(quad, make_frames(np.stack(seen), ratio), ratio) > 0.1:
                continue  # another guess at the place of a tile already seen
            look = slot_looks_occupied(lab, quad, near, everything, config)
            if look:
                seen.append(quad)
                if len(seen) >= need:
                    break
            elif look is None:
                unclear = True
        seen_tile[d] = True if len(seen) >= need else (None if unclear or seen else False)
    return SlotLook(seen_tile)


def apply_slot_look(audit: TableAudit, look: SlotLook) -> TableAudit:
    """The audit with what the photo showed taken into account; `audit` itself is left as it was.

    Where every empty place of a double shows bare table, a missed tile no longer explains
    a verdict on it: its `unless_missed` mark goes and `photo_checked` is set. Where the
    places show the tiles a double lacks, verdicts that need it short are withdrawn, said
    as warnings instead, and the double is listed in `unread_slots`."""
    seen = look.shows_tile
    marked = []
    for v in audit.violations:
        if v.unless_missed:
            still = tuple(d for d in v.unless_missed if seen.get(d) is not False)
            v = replace(v, unless_missed=still, photo_checked=not still)
        marked.append(v)
    withdrawn = tuple(d for d, shows in seen.items() if shows)
    if not withdrawn:
        return replace(audit, violations=tuple(marked))
    keep = []
    warnings = list(audit.warnings)
    for v in marked:
        if v.rule not in SLOT_RULES:
            keep.append(v)
            continue
        if v.rests_on is None:  # a verdict not marked: any short double among its tiles
            gone = any(d in v.tiles for d in withdrawn)
        else:  # "several chickies unfinished at once" needs two of them still short
            gone = len([d for d in v.rests_on if d not in withdrawn]) < (2 if len(v.rests_on) >= 2 else 1)
        if gone:
            warnings.append(f"not reported: {v.message} - the photo shows a tile in the empty place that could not "
                            "be read; take the photo again to be sure")
            continue
        keep.append(v)
    return replace(audit, violations=tuple(keep), warnings=tuple(warnings),
                   unread_slots=audit.unread_slots + withdrawn)


def second_look(bgr: np.ndarray, to_pixels: float, audit: TableAudit,
                config: AuditConfig = AuditConfig()) -> TableAudit:
    """Withdraw unfinished-double verdicts whose empty slot shows a tile (see module doc):
    the look (`look_at_slots`) applied to the audit (`apply_slot_look`), as a new audit."""
    return apply_slot_look(audit, look_at_slots(bgr, to_pixels, audit, config))
