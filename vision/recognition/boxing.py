"""Boxing: the detector's boxes as candidates, faces told from backs, and each face straightened."""
from __future__ import annotations

import numpy as np

from ..detector import CLASS_BACK
from ..pipreader import find_bar
from ..rectify import rectify_tile
from ..types import tile_length
from .candidates import Candidates, Flag
from .context import Context
from .faces import looks_a_face_by_its_dots


def shows_divider(image, corners: np.ndarray) -> bool:
    """Whether a box the detector calls a back shows a divider across its middle after all, and so
    is a face: every face has one and a back has none (a ring or a dimple is short, a stripe
    slanted). The detector told a double blank from a back by little more than its missing dots,
    and a real 0-0 whose divider was plain, seen from low down (the far row of a tilted photo,
    `scripts/stress_real.py`), was boxed as a back. Asked only of large boxes: on rendered tables a
    small box across two backs pushed together took the seam between them for a divider."""
    return find_bar(rectify_tile(image, corners)[0]) is not None

def detected(ctx: Context) -> Candidates:
    """The detector's boxes on the picture, one row each (`tile_px`, where the caller knows the
    tiles' length in the original's pixels, steers its passes: see `TileDetector.detect`)."""
    img = ctx.img
    return Candidates.from_boxes(ctx.detector.detect(img.bgr, ctx.tile_px / img.scale if ctx.tile_px else None))


def split_backs(cands: Candidates, ctx: Context) -> Candidates:
    """Boxes the detector called backs go to `ctx.backs`; a large one whose divider shows stays a
    face (see `shows_divider`)."""
    keep = np.ones(len(cands), bool)
    for i in range(len(cands)):
        if cands.cls[i] != CLASS_BACK:
            continue
        cands.mark(i, Flag.BOXED_AS_BACK, "split_backs")
        if tile_length(cands.corners[i]) < ctx.config.small_tile_px or not shows_divider(ctx.img.bgr, cands.corners[i]):
            keep[i] = False
    backs = cands[~keep]
    backs.flags |= int(Flag.BACK)
    ctx.backs = ctx.backs + backs
    return cands[keep]


def faces_among_backs(cands: Candidates, ctx: Context) -> Candidates:
    """Small boxes called backs that lie beside a face and read as one after all (see
    `faces.looks_a_face_by_its_dots`) join the faces, after them. Only those beside a face are
    looked at: a tile played lies against another, and a table's boneyard of backs would cost a
    reading each."""
    backs = ctx.backs
    if not len(backs) or not len(cands) or ctx.halves is None:
        return cands
    reach = [ctx.config.beside_a_face * tile_length(c) for c in cands.corners]
    centres = [c.mean(0) for c in cands.corners]
    near = [i for i, b in enumerate(backs.corners) if tile_length(b) < ctx.config.small_tile_px and
            any(np.linalg.norm(b.mean(0) - c) < r for c, r in zip(centres, reach))]
    if not near:
        return cands
    crops = [rectify_tile(ctx.img.bgr, backs.corners[i])[0] for i in near]
    probs = ctx.halves.probabilities(crops)
    sure = [k for k, p in enumerate(probs) if looks_a_face_by_its_dots(p, None, ctx.config.faces)]
    if not sure:
        return cands
    dots = ctx.pips.read_crops([crops[k] for k in sure], [find_bar(crops[k]) for k in sure])
    faces = [near[k] for k, d in zip(sure, dots) if looks_a_face_by_its_dots(probs[k], d.pips, ctx.config.faces)]
    if not faces:
        return cands
    is_face = np.zeros(len(backs), bool)
    is_face[faces] = True
    ctx.backs = backs[~is_face]
    found = backs[faces]
    found.flags &= ~int(Flag.BACK)
    for i in range(len(found)):
        found.mark(i, Flag.FACE_AMONG_BACKS, "faces_among_backs")
    return cands + found


def crop_faces(cands: Candidates, ctx: Context) -> Candidates:
    """Each face straightened (`rectify.rectify_tile`) and its divider looked for; faces shorter
    than `small_tile_px` are marked SMALL where a half reader is loaded to read them."""
    cands.crop = [rectify_tile(ctx.img.bgr, c)[0] for c in cands.corners]
    cands.bar = [find_bar(c) for c in cands.crop]
    if ctx.halves is not None:
        for i, c in enumerate(cands.corners):
            if tile_length(c) < ctx.config.small_tile_px:
                cands.flags[i] |= int(Flag.SMALL)
    return cands
