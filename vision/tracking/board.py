"""The tracker's picture of the table: tiles it has accepted, and what each frame showed.

Tiles are known by their values: a set has exactly one of each, so "the 6-4" is the
same tile in every frame wherever the camera has moved. Each processed frame becomes
an `Observation` that says which known tiles were seen (and where, to re-register a
knocked camera), which known tile's place read as some other tile, and which tiles
are new. The tracker decides changes from several observations, never from one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import cv2
import numpy as np
from skimage.metrics import structural_similarity

from engine import Tile

from .geometry import TilePose, estimate_motion, overlaps
from .tuning import PictureConfig, TrackerConfig


class TileStatus(StrEnum):
    """Where a board tile stands with the round. A `StrEnum`: each status is its name in lower case,
    as the tracker's state and records have always written it."""

    SPINNER = "spinner"
    """The round's first tile."""
    LEGAL = "legal"
    """Played and accepted by the rules (or let stand: see `BoardTile.stood`)."""
    ILLEGAL = "illegal"
    """Flagged: not part of the round."""
    JOINED = "joined"
    """On the table when tracking started."""
    LOOSE = "loose"
    """Lying apart from the layout."""


@dataclass
class BoardTile:
    tile: Tile
    pose: TilePose
    status: TileStatus
    player: int | None
    on: Tile | None
    touching: int | None
    """Which end of `pose` (0 or 1) lies against `on`; the other end is the free one."""
    frame: int
    missing: bool = False
    stood: bool = False
    """Flagged, but the table kept it and play went on from it: "legal" to the layout, still a
    rule broken (see `FlagKeeper.let_stand`)."""
    patch: np.ndarray | None = None
    """The tile's picture when the board last settled (`tile_patch`): while its place still
    looks like this, the tile has not left, whatever the reader makes of it."""

    @property
    def free_end(self) -> int | None:
        return None if self.touching is None else 1 - self.touching

    def to_dict(self) -> dict[str, Any]:
        return {"tile": str(self.tile), "status": str(self.status), "player": self.player,
                "on": None if self.on is None else str(self.on), "corners": self.pose.to_list(),
                "missing": self.missing, **({"stood": True} if self.stood else {})}


@dataclass
class Observation:
    frame: int
    t: float
    poses: list[TilePose]
    """Every readable tile in the frame (image pixels)."""
    image: Any = None
    read: int = 0
    """Which run of the recognizer the poses came from (several observations share one when
    still frames reuse the last reading)."""
    motion: np.ndarray | None = None
    """2x3 similarity taking board coordinates to this frame's when the camera has moved."""
    drift: np.ndarray | None = None
    """A small move of the whole picture (a slightly knocked camera, below `TrackerConfig.camera_shift`)."""
    matched: int = 0
    seen: set[Tile] = field(default_factory=set)
    seen_poses: dict[Tile, TilePose] = field(default_factory=dict)
    """Where each known tile seen was read (corners in the board tile's order)."""
    conflicts: dict[Tile, tuple[Tile, TilePose]] = field(default_factory=dict)
    covered: set[Tile] = field(default_factory=set)
    """Known tiles whose place holds a reading of some other tile lying another way (a
    misread of the tile, as a rule: the recognizer can make one tile into another)."""
    new: list[TilePose] = field(default_factory=list)
    unchanged: dict[Tile, bool] = field(default_factory=dict)
    """Known tiles whose place was compared with their settled picture, and the answer."""


def tile_patch(image: np.ndarray, pose: TilePose, config: PictureConfig) -> np.ndarray | None:
    """The tile's place in `image`, straightened to `config.patch`, grey, float32 (None off the
    picture): the whole box, and its inside (`config.patch_inner`)."""
    if image is None or not isinstance(image, np.ndarray) or image.ndim < 2:
        return None
    h, w = image.shape[:2]
    c = pose.corners
    if (c[:, 0] < 0).any() or (c[:, 1] < 0).any() or (c[:, 0] > w).any() or (c[:, 1] > h).any():
        return None
    pw, ph = config.patch
    dst = np.float32([[0, 0], [2 * pw, 0], [2 * pw, 2 * ph], [0, 2 * ph]])
    layers = []
    for share in (1.0, config.patch_inner):
        quad = c.mean(0) + (c - c.mean(0)) * share
        m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
        big = cv2.warpPerspective(image, m, (2 * pw, 2 * ph), flags=cv2.INTER_LINEAR)
        if big.ndim == 3:
            big = cv2.cvtColor(big, cv2.COLOR_BGR2GRAY)
        layers.append(cv2.resize(big, (pw, ph), interpolation=cv2.INTER_AREA).astype(np.float32))
    return np.stack(layers)


def picture_similarity(ref: np.ndarray, cur: np.ndarray) -> tuple[float, float]:
    """(structural similarity, relative change of mean brightness) between two tile pictures.

    Structural similarity (scikit-image's, 7x7 windows) rather than one correlation over the whole
    picture: a well-kept measure made for "do these two pictures show the same", and on every
    place comparison of the tracked rendered rounds it gave the verdicts the correlation gave
    (`scripts/place_similarity_study.py`). It barely weighs a change of brightness, so that is
    asked apart."""
    similarity = float(structural_similarity(ref, cur, data_range=255.0))
    return similarity, float(abs(ref.mean() - cur.mean()) / (ref.mean() + 1.0))


def same_picture(ref: np.ndarray, cur: np.ndarray, config: PictureConfig) -> bool:
    """Whether two `tile_patch` pictures show the same: the whole box alike, or its inside alike
    (a tile laid against the tile changes only the box's rim)."""
    for a, b in zip(ref, cur):
        similarity, bright = picture_similarity(a, b)
        if similarity >= config.same_picture and bright <= config.same_brightness:
            return True
    return False


def identity(pose: TilePose, set_max: int) -> Tile | None:
    a, b = pose.pips
    if not (0 <= a <= set_max and 0 <= b <= set_max):
        return None
    return Tile(a, b)


def angle_gap(a: TilePose, b: TilePose) -> float:
    va, vb = a.axis(1), b.axis(1)
    c = abs(float(np.dot(va, vb)))
    return float(np.degrees(np.arccos(min(1.0, c))))


def _corner_pairs(known: TilePose, seen: TilePose) -> tuple[np.ndarray, np.ndarray]:
    """The two poses' corners in corresponding order (the recognizer may name either end 0)."""
    a = known.corners
    if known.pips == seen.pips and known.pips[0] != known.pips[1]:
        return a, seen.corners
    if known.pips == seen.pips[::-1] and known.pips[0] != known.pips[1]:
        return a, np.roll(seen.corners, 2, axis=0)
    # a double: whichever order lies closer
    b0, b1 = seen.corners, np.roll(seen.corners, 2, axis=0)
    return (a, b0) if np.abs(a - b0).sum() <= np.abs(a - b1).sum() else (a, b1)


def register(obs: Observation, board: dict[Tile, BoardTile], set_max: int,
             tuning: TrackerConfig = TrackerConfig()) -> None:
    """Work out whether the camera moved, from the corners of known tiles seen again (by how much
    is `tuning`'s: `camera_shift`, `few_tiles_shift`, `drift`).
    One tile is enough to follow a camera knocked right after the spinner went down;
    with three or more, tiles that moved on their own are outvoted."""
    src, dst, widths = [], [], []
    for pose in obs.poses:
        tile = identity(pose, set_max)
        bt = board.get(tile) if tile is not None else None
        if bt is None or bt.missing:
            continue
        a, b = _corner_pairs(bt.pose, pose)
        src.append(a)
        dst.append(b)
        widths.append(bt.pose.width)
    obs.motion = None
    obs.drift = None
    obs.matched = len(src)
    if not src:
        return
    w = float(np.median(widths))
    src_pts, dst_pts = np.vstack(src), np.vstack(dst)
    if len(src) < 3:
        m, _ = cv2.estimateAffinePartial2D(src_pts.astype(np.float32), dst_pts.astype(np.float32))
        if m is None:
            return
        moved = src_pts @ m[:, :2].T + m[:, 2]
        if np.hypot(*(moved - dst_pts).T).max() > 0.35 * w:
            return  # not one rigid move
        inliers = len(src)
    else:
        m, n_in = estimate_motion(src_pts, dst_pts, tol=0.3 * w)
        if m is None or n_in < max(8, 0.6 * len(src_pts)):
            return
        inliers = n_in // 4
    # how far the move carries the tiles themselves (a small turn of a big board moves its
    # far tiles; a noisy turn estimate from a small board moves nothing much)
    centres = src_pts.reshape(-1, 4, 2).mean(1)
    moved_by = np.hypot(*((centres @ m[:, :2].T + m[:, 2]) - centres).T)
    limit = (tuning.few_tiles_shift if len(src) < 3 else tuning.camera_shift) * w
    shift = float(np.median(moved_by))
    if shift > limit:
        obs.motion = m
        obs.matched = inliers
    elif shift > tuning.drift * w:
        obs.drift = m


def at_place_of(pose: TilePose, ref: TilePose) -> bool:
    """Whether `pose` reads the tile at `ref`'s place: centres within 0.3 of the longer box's
    length, lying the same way. (The longer box sets the reach: a tile boxed short, over part of
    a tile, still has the whole tile's reading at its place.)"""
    return bool(np.hypot(*(pose.centre - ref.centre)) < 0.3 * max(ref.length, pose.length)
                and angle_gap(ref, pose) < 30)


def associate(obs: Observation, board: dict[Tile, BoardTile], set_max: int) -> None:
    """Sort the frame's tiles into known tiles seen, known places read differently, and new tiles."""
    obs.seen = set()
    obs.seen_poses = {}
    obs.conflicts = {}
    obs.covered = set()
    obs.new = []
    placed = [bt for bt in board.values()]
    if obs.motion is not None:
        poses = {bt.tile: bt.pose.transformed(obs.motion) for bt in placed}
    else:
        poses = {bt.tile: bt.pose for bt in placed}
    centres = np.array([poses[bt.tile].centre for bt in placed]) if placed else np.zeros((0, 2))
    for pose in obs.poses:
        tile = identity(pose, set_max)
        if tile is None:
            continue
        known = poses.get(tile)
        if known is not None and np.hypot(*(known.centre - pose.centre)) < 0.5 * known.length:
            obs.seen.add(tile)
            _, corners = _corner_pairs(known, pose)
            obs.seen_poses[tile] = TilePose(corners, board[tile].pose.pips)
            continue
        if len(centres):
            d = np.hypot(*(centres - pose.centre).T)
            k = int(np.argmin(d))
            near = placed[k]
            kp = poses[near.tile]
            if at_place_of(pose, kp) and near.tile != tile:
                if near.tile not in obs.conflicts:
                    obs.conflicts[near.tile] = (tile, pose)
                continue
            if d[k] < 0.3 * kp.length:
                obs.covered.add(near.tile)
                continue  # overlaps a known tile: a second reading of it
            if any(overlaps(pose, poses[bt.tile], 0.5) for bt in placed
                   if np.hypot(*(poses[bt.tile].centre - pose.centre)) < kp.length * 1.5):
                continue  # a box straddling tiles already down: no tile lies on top of another
        obs.new.append(pose)


def mean_pose(poses: list[TilePose]) -> TilePose:
    """The average of several readings of one tile, corners put in the first reading's order."""
    ref = poses[0]
    stack = [ref.corners]
    for p in poses[1:]:
        _, corners = _corner_pairs(ref, p)
        stack.append(corners)
    return TilePose(np.mean(stack, axis=0), ref.pips, ref.second)
