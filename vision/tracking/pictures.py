"""Places kept as pictures, and the pose arithmetic the tracker does on them.

A board tile's place is compared by pixels, not by what the reader says: a tile whose place
still looks as it did has not left the table, whatever the reader makes of it now.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine import Tile

from .board import Observation, same_picture, tile_patch
from .geometry import TilePose
from .tuning import PictureConfig


@dataclass(frozen=True)
class Picture:
    """A frame kept to compare places with, and the move from its pixels to the current frame's
    (identity until the camera moves)."""
    image: np.ndarray
    to_now: np.ndarray = field(default_factory=lambda: np.eye(3))

    def moved(self, m: np.ndarray) -> "Picture":
        return Picture(self.image, as_3x3(m) @ self.to_now)

    def looks_alike(self, now: np.ndarray | None, pose: TilePose, config: PictureConfig) -> bool:
        """Whether `pose` (current pixels) looks in `now` as its place looked in this picture."""
        if now is None or now.shape != self.image.shape:
            return False
        then = pose if np.allclose(self.to_now, np.eye(3)) else pose.transformed(np.linalg.inv(self.to_now))
        return place_looks_alike(self.image, now, pose, then, config)


def as_3x3(m: np.ndarray) -> np.ndarray:
    """A 2x3 affine or 3x3 homography as a 3x3 matrix."""
    return m if m.shape == (3, 3) else np.vstack([m, [0.0, 0.0, 1.0]])


def place_looks_alike(then: np.ndarray, now: np.ndarray, pose: TilePose, pose_then: TilePose | None,
                      config: PictureConfig) -> bool:
    """Whether the place `pose` looks in the picture `now` as it looked in `then` (where it was
    `pose_then`, when the camera moved in between)."""
    before = tile_patch(then, pose_then or pose, config)
    after = tile_patch(now, pose, config)
    return before is not None and after is not None and same_picture(before, after, config)


def with_first_reading(taken: TilePose, first: TilePose) -> TilePose:
    """`taken` (a reading other than the reader's first of one place) with the first reading as
    its cheapest second, in `taken`'s end order: how unsure the play was must outlive the choice."""
    same = np.hypot(*(taken.end_mid(0) - first.end_mid(0))) <= np.hypot(*(taken.end_mid(0) - first.end_mid(1)))
    pips = first.pips if same else first.pips[::-1]
    if pips == taken.pips:
        return taken
    return TilePose(taken.corners, taken.pips, ((pips, 0.0),) + tuple(s for s in taken.second if s[0] != pips))


def turned_end_for_end(was: TilePose, now: TilePose) -> bool:
    """Whether `now` (corners in the order of `was`'s ends) lies where `was` lay, end for end."""
    same = float(np.abs(now.corners - was.corners).sum())
    flipped = float(np.abs(now.corners - np.roll(was.corners, 2, axis=0)).sum())
    return flipped < 0.5 * same


def approaches(pose: TilePose) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Where a tile laid at `pose` meets the tile it was laid on, if that one was never seen: (the
    point of contact, the unit vector from there into the tile, the value touching there). A tile
    meets its parent with an end; a double, laid crosswise as a chickie is, with the middle of a long
    side (or, laid in line, with an end: the geometry tells them apart). Why the double: a tile the
    reader misses may as well be followed by a double as by a straight tile (a chickie on a toe);
    only ends were looked for, so a double laid across there touched nothing and every play built
    on it was lost."""
    ends = [(pose.end_mid(end), pose.axis(1 - end), pose.pips[end]) for end in (0, 1)]
    if not pose.is_double:
        return ends
    along = pose.axis(0)
    across = np.array([-along[1], along[0]])
    return ends + [(pose.centre + s * across * pose.width / 2, -s * across, pose.pips[0]) for s in (1.0, -1.0)]


def read_at_place(tile: Tile, obs: Observation) -> bool:
    """Whether the reader found something at `tile`'s place in `obs`: the tile, or a reading of
    another tile there (a misreading, or a tile laid in its stead)."""
    return tile in obs.seen or tile in obs.conflicts or tile in obs.covered
