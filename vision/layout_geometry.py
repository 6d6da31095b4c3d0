"""Geometry for reading a layout: where each tile's ends are, and which ends touch what.

Every tile is a rectangle of the same size on the table plane, so each detected tile
gives a local frame: the affine map taking its four corners to a canonical tile
(1 wide, `ratio` long, end 0 at the top). Mapping a neighbour into that frame undoes
the camera's perspective around the tile (to first order), so contact tests are done
in tile widths and right angles stay right, whatever the tilt of the photo.

A contact is "the end of tile A lies against tile B": A's end midpoint is within a
small distance of B's outline and A points at B. Where on B it lands tells which half
of B it touches (which value), and whether it is B's short end or long side; the angle
of A in B's frame says straight on, crosswise, or diagonal (a chickie's 45-degree toe).
Everything here is vectorised with numpy: a 60-tile table is ~500 candidate pairs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_RATIO = 2.0


@dataclass
class Frames:
    """Per-tile geometry in image pixels and the maps to each tile's own frame."""

    corners: np.ndarray  # (N, 4, 2): end0-left, end0-right, end1-right, end1-left
    centre: np.ndarray  # (N, 2)
    ends: np.ndarray  # (N, 2, 2): midpoints of the end-0 and end-1 short sides
    width: np.ndarray  # (N,) pixels
    length: np.ndarray  # (N,) pixels
    to_local: np.ndarray  # (N, 3, 2): [x y 1] @ to_local[i] = point in tile i's frame
    to_image: np.ndarray  # (N, 3, 2): the inverse map
    ratio: float

    def __len__(self) -> int:
        return len(self.corners)


def canonical(ratio: float) -> np.ndarray:
    h = ratio / 2
    return np.array([[-0.5, -h], [0.5, -h], [0.5, h], [-0.5, h]])


def estimate_ratio(corners: np.ndarray) -> float:
    """Length over width of the set in use: the median over tiles, so perspective
    (which stretches some tiles and squashes others) mostly cancels out."""
    if len(corners) == 0:
        return DEFAULT_RATIO
    c = np.asarray(corners, np.float64)
    w = (np.linalg.norm(c[:, 0] - c[:, 1], axis=1) + np.linalg.norm(c[:, 2] - c[:, 3], axis=1)) / 2
    ln = (np.linalg.norm(c[:, 0] - c[:, 3], axis=1) + np.linalg.norm(c[:, 1] - c[:, 2], axis=1)) / 2
    r = float(np.median(ln / np.maximum(w, 1e-6)))
    return float(np.clip(r, 1.6, 2.4))


def make_frames(corners: np.ndarray, ratio: float) -> Frames:
    c = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    n = len(c)
    centre = c.mean(1)
    ends = np.stack([(c[:, 0] + c[:, 1]) / 2, (c[:, 2] + c[:, 3]) / 2], 1)
    width = (np.linalg.norm(c[:, 0] - c[:, 1], axis=1) + np.linalg.norm(c[:, 2] - c[:, 3], axis=1)) / 2
    length = np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)
    if n == 0:
        return Frames(c, centre, ends, width, length, np.zeros((0, 3, 2)), np.zeros((0, 3, 2)), ratio)
    k = canonical(ratio)
    x = np.concatenate([c, np.ones((n, 4, 1))], 2)  # (N, 4, 3)
    xtx = np.einsum("nki,nkj->nij", x, x)
    xtk = np.einsum("nki,kj->nij", x, k)
    to_local = np.linalg.solve(xtx, xtk)  # (N, 3, 2): least-squares affine
    m = to_local[:, :2, :]  # x @ m + t
    t = to_local[:, 2, :]
    m_inv = np.linalg.inv(m)
    to_image = np.concatenate([m_inv, (-t[:, None, :] @ m_inv)], 1)
    return Frames(c, centre, ends, width, length, to_local, to_image, ratio)


def to_local(frames: Frames, idx: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points (K, M, 2) in image pixels to the frames of tiles idx (K,)."""
    a = frames.to_local[idx]
    return pts @ a[:, :2, :] + a[:, None, 2, :]


def to_image(frames: Frames, idx: np.ndarray, pts: np.ndarray) -> np.ndarray:
    a = frames.to_image[idx]
    return pts @ a[:, :2, :] + a[:, None, 2, :]


def rect_distance(p: np.ndarray, ratio: float) -> np.ndarray:
    """Signed distance (tile widths) from points in a tile's frame to its outline; < 0 inside."""
    dx = np.abs(p[..., 0]) - 0.5
    dy = np.abs(p[..., 1]) - ratio / 2
    outside = np.hypot(np.maximum(dx, 0), np.maximum(dy, 0))
    inside = np.minimum(np.maximum(dx, dy), 0)
    return np.where((dx > 0) | (dy > 0), outside, inside)


def near_pairs(a: Frames, b: Frames, same: bool, reach: float = 0.9) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i in a, j in b) whose centres are close enough to touch."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros(0, int), np.zeros(0, int)
    d = np.linalg.norm(a.centre[:, None, :] - b.centre[None, :, :], axis=2)
    lim = 0.5 * (a.length[:, None] + b.length[None, :]) + reach * np.maximum(a.width[:, None], b.width[None, :])
    ok = d < lim
    if same:
        np.fill_diagonal(ok, False)
    i, j = np.nonzero(ok)
    return i, j


@dataclass
class ContactTable:
    """Every (toucher end, touched tile) test for a set of pairs, as arrays of shape (K, 2)."""

    toucher: np.ndarray  # (K,) index in the toucher frames
    touched: np.ndarray  # (K,) index in the touched frames
    dist: np.ndarray  # (K, 2) signed distance of each toucher end midpoint to the touched tile
    facing: np.ndarray  # (K, 2) cosine: does the end point at the touched tile?
    local: np.ndarray  # (K, 2, 2) the end midpoints in the touched tile's frame
    direction: np.ndarray  # (K, 2, 2) unit outward direction of each end, in that frame
    corner_dist: np.ndarray  # (K, 2) nearer corner of the end to the touched tile


def contact_table(a: Frames, b: Frames, ia: np.ndarray, ib: np.ndarray) -> ContactTable:
    """Test both ends of tiles a[ia] against tiles b[ib], pair by pair."""
    k = len(ia)
    if k == 0:
        z2 = np.zeros((0, 2))
        return ContactTable(ia, ib, z2, z2, np.zeros((0, 2, 2)), np.zeros((0, 2, 2)), z2)
    pts = np.concatenate([a.ends[ia], a.centre[ia][:, None, :], a.corners[ia]], 1)  # (K, 7, 2)
    loc = to_local(b, ib, pts)
    ends, ctr, cor = loc[:, :2], loc[:, 2:3], loc[:, 3:]
    direction = ends - ctr
    direction /= np.linalg.norm(direction, axis=2, keepdims=True) + 1e-9
    dist = rect_distance(ends, b.ratio)
    to_centre = -ends / (np.linalg.norm(ends, axis=2, keepdims=True) + 1e-9)
    facing = (direction * to_centre).sum(2)
    cd = rect_distance(cor, b.ratio)  # corners 0,1 belong to end 0; 2,3 to end 1
    corner_dist = np.stack([np.minimum(cd[:, 0], cd[:, 1]), np.minimum(cd[:, 2], cd[:, 3])], 1)
    return ContactTable(ia, ib, dist, facing, ends, direction, corner_dist)


def angle_class(direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest multiple of 45 degrees of a direction in a tile's frame, and how far off.

    Returns (octant 0..7 where 0 is along the tile's axis towards end 1, odd = diagonal,
    deviation in degrees)."""
    ang = np.degrees(np.arctan2(direction[..., 0], direction[..., 1]))  # 0 = +y (towards end 1)
    octant = np.round(ang / 45.0)
    dev = np.abs(ang - octant * 45.0)
    return (octant.astype(int) % 8), dev


def _samples(frames: Frames, idx: np.ndarray) -> np.ndarray:
    """Corners plus a 3 x 5 grid inside each tile (K, 19, 2): tiles crossing each other
    overlap without any corner inside the other, the grid catches that."""
    c = frames.corners[idx]
    u = np.array([0.2, 0.5, 0.8])
    v = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    a, b = np.meshgrid(u, v)
    a, b = a.ravel(), b.ravel()
    # bilinear over the quad: c0 -> c1 across, c0 -> c3 along
    grid = ((1 - a)[None, :, None] * (1 - b)[None, :, None] * c[:, None, 0]
            + a[None, :, None] * (1 - b)[None, :, None] * c[:, None, 1]
            + a[None, :, None] * b[None, :, None] * c[:, None, 2]
            + (1 - a)[None, :, None] * b[None, :, None] * c[:, None, 3])
    return np.concatenate([c, grid], 1)


def quads_overlap_depth(a: Frames, b: Frames, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """How deep tile a[ia] reaches into tile b[ib] (tile widths, > 0 means overlap),
    measured at a's corners and a grid inside it; symmetric use needs both orders."""
    if len(ia) == 0:
        return np.zeros(0)
    d = rect_distance(to_local(b, ib, _samples(a, ia)), b.ratio)
    return -d.min(1)


def closest_gap(frames: Frames, rows: np.ndarray, others: np.ndarray, within: float = np.inf) -> np.ndarray:
    """For each tile in `rows`, how close (tile widths) it comes to any tile in `others`:
    the least of end-to-outline and corner-to-outline distances, both ways round.
    Pairs whose outlines cannot come within `within` tile widths are not measured
    (inf where nothing is)."""
    rows, others = np.asarray(rows, int), np.asarray(others, int)
    out = np.full(len(rows), np.inf)
    if len(rows) == 0 or len(others) == 0:
        return out
    d = np.linalg.norm(frames.centre[rows][:, None, :] - frames.centre[others][None, :, :], axis=2)
    half = np.hypot(frames.length, frames.width) / 2  # centre to corner
    wide = np.maximum(frames.width[rows][:, None], frames.width[others][None, :])
    ri, oi = np.nonzero(d <= half[rows][:, None] + half[others][None, :] + within * wide)
    if len(ri) == 0:
        return out
    ia, ib = rows[ri], others[oi]
    tab = contact_table(frames, frames, ia, ib)
    tab2 = contact_table(frames, frames, ib, ia)
    closest = np.minimum(np.minimum(tab.dist.min(1), tab.corner_dist.min(1)),
                         np.minimum(tab2.dist.min(1), tab2.corner_dist.min(1)))
    np.minimum.at(out, ri, closest)
    return out
