"""Dropping: boxes that are no tile of their own (one tile boxed twice, a phantom over a block of
tiles, a box counting another's dots, a patch of the table). A dropped row leaves every column
at once and is kept, with its trace, in `Context.dropped`."""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from ..correct import boxes_sharing_dots_kept, duplicate_boxes_kept, overlapping_boxes_kept
from ..rectify import inside_picture
from ..types import TileDetection
from .candidates import Candidates, Flag
from .changes import Dropped
from .context import Context
from .faces import looks_mottled


def tiles_of(cands: Candidates, ctx: Context) -> list[TileDetection]:
    """The rows as `TileDetection`s in the original's pixels (corners, score), for the set's
    rules written for tiles."""
    return [TileDetection(i, c * ctx.img.scale, float(s)) for i, (c, s) in enumerate(zip(cands.corners, cands.score))]


def _drop(cands: Candidates, ctx: Context, keep: np.ndarray, stage: str, flag: Flag = Flag.DROPPED) -> Candidates:
    """`cands` without the rows `keep` leaves out; those, marked DROPPED (and `flag`), go to `ctx.dropped`."""
    if keep.all():
        return cands
    gone = cands[~keep]
    for i in range(len(gone)):
        gone.mark(i, Flag.DROPPED | flag, stage, Dropped(stage))
    ctx.dropped = ctx.dropped + gone
    return cands[keep]


def _kept_by(rule: Callable[[list[TileDetection], list], list[int]], cands: Candidates, ctx: Context) -> np.ndarray:
    keep = np.zeros(len(cands), bool)
    keep[rule(tiles_of(cands, ctx), list(cands.reading))] = True
    return keep


def drop_duplicates(cands: Candidates, ctx: Context) -> Candidates:
    """Two overlapping boxes that read the same tile are one tile boxed twice
    (`correct.drop_duplicate_boxes`)."""
    return _drop(cands, ctx, _kept_by(duplicate_boxes_kept, cands, ctx), "drop_duplicates")


def drop_overlaps(cands: Candidates, ctx: Context) -> Candidates:
    """Of boxes that overlap, the set most like tiles lying flat is kept
    (`correct.drop_overlapping_boxes`)."""
    rule = partial(overlapping_boxes_kept, config=ctx.config.corrections)
    return _drop(cands, ctx, _kept_by(rule, cands, ctx), "drop_overlaps")


def drop_shared_dots(cands: Candidates, ctx: Context) -> Candidates:
    """A box that counts the very dots a more confident box counts is a phantom
    (`correct.drop_boxes_sharing_dots`)."""
    rule = partial(boxes_sharing_dots_kept, config=ctx.config.corrections)
    return _drop(cands, ctx, _kept_by(rule, cands, ctx), "drop_shared_dots")


def drop_table_patches(cands: Candidates, ctx: Context) -> Candidates:
    """A box of a dot or none, streaked all over, is a patch of the table, neither face nor back
    (see `FaceConfig.mottled_share`)."""
    keep = np.array([not (sum(r.pips) <= 1 and looks_mottled(crop, r.points, inside_picture(ctx.img.bgr.shape, c),
                                                             ctx.config.faces))
                     for r, crop, c in zip(cands.reading, cands.crop, cands.corners)], bool)
    return _drop(cands, ctx, keep, "drop_table_patches", Flag.TABLE_PATCH)
