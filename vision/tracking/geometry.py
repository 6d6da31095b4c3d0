"""Where tiles lie and what touches what, in image pixels.

A tile is a `TilePose`: its four corners in the recognizer's order (end0-left,
end0-right, end1-right, end1-left) and the values at its two ends. Whether a new tile
was laid against an open end is a question of where its near half sits relative to
the tile it joins, as people lay them (the table renderer follows the same habits):

* along an arm, the new tile's near half lies just beyond the old tile's free end, or
  (where an arm turns) beside the old tile's free half;
* on a double (the spinner or a chickie), the near half lies about half a tile width
  off the double's outline (arms, toes, a crosswise double's long side).

Distances are measured in tile widths so the same thresholds hold near and far from
a tilted camera.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class TilePose:
    corners: np.ndarray
    """(4, 2) float64, image pixels, end0-left, end0-right, end1-right, end1-left."""
    pips: tuple[int, int]
    second: tuple[tuple[tuple[int, int], float], ...] = ()
    """The reader's next likeliest readings (pips in the same end order, cost), cheapest first."""
    recoloured: bool = False
    """An end was read again because its pips' colour is not that of the value first read
    (`vision.colour_check`): the reading took in more of the picture than the tile alone."""

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(0)

    @property
    def width(self) -> float:
        c = self.corners
        return float((np.hypot(*(c[0] - c[1])) + np.hypot(*(c[2] - c[3]))) / 2)

    @property
    def length(self) -> float:
        c = self.corners
        return float((np.hypot(*(c[0] - c[3])) + np.hypot(*(c[1] - c[2]))) / 2)

    def end_mid(self, end: int) -> np.ndarray:
        """Midpoint of the short edge at `end` (0 or 1)."""
        c = self.corners
        return (c[0] + c[1]) / 2 if end == 0 else (c[2] + c[3]) / 2

    def half_centre(self, end: int) -> np.ndarray:
        m0, m1 = self.end_mid(0), self.end_mid(1)
        return m0 * 0.75 + m1 * 0.25 if end == 0 else m0 * 0.25 + m1 * 0.75

    def axis(self, end: int) -> np.ndarray:
        """Unit vector from the middle of the tile towards `end`."""
        v = self.end_mid(end) - self.end_mid(1 - end)
        return v / (np.linalg.norm(v) + 1e-9)

    @property
    def is_double(self) -> bool:
        return self.pips[0] == self.pips[1]

    def transformed(self, m: np.ndarray) -> "TilePose":
        """This pose moved by a 2x3 affine or 3x3 homography."""
        pts = self.corners.reshape(-1, 1, 2).astype(np.float64)
        if m.shape == (3, 3):
            out = cv2.perspectiveTransform(pts, m)
        else:
            out = cv2.transform(pts, m)
        return TilePose(out.reshape(4, 2), self.pips, self.second)

    def to_list(self) -> list[list[float]]:
        return [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners]


def pose_from_detection(det) -> TilePose | None:
    """A `TileDetection` as a pose; None when its values were not read."""
    if det.pips is None:
        return None
    second = tuple((tuple(p), float(c)) for p, c in getattr(det, "second_readings", ()))
    recoloured = bool(getattr(det, "recoloured", False))
    return TilePose(np.asarray(det.corners, np.float64).reshape(4, 2), (int(det.pips[0]), int(det.pips[1])), second,
                    recoloured)


def point_quad_distance(pt: np.ndarray, quad: np.ndarray) -> float:
    """Distance from a point to a convex quad's outline (negative inside)."""
    d = cv2.pointPolygonTest(quad.astype(np.float32).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), True)
    return -float(d)


@dataclass
class Contact:
    """How well a new tile sits against one board tile."""

    score: float
    """Mismatch in tile widths (0: exactly where a tile laid there would sit)."""
    touching: int
    """Which end of the new tile touches (0 or 1)."""


def _leaving(new: TilePose, end: int) -> np.ndarray:
    """Unit vector along the new tile from its touching `end` towards its other end."""
    return new.axis(1 - end)


def contact_on_tile(new: TilePose, parent: TilePose, free_end: int) -> Contact:
    """A new tile against an ordinary tile's free end: straight on (or a double across it),
    or turned 90 degrees with its end against the long side of the free half. The new
    tile must also point the way such a tile would: a tile lying alongside is not a turn."""
    w = max(parent.width, 1e-6)
    quarter = parent.length / 4
    out = parent.axis(free_end)
    side = np.array([-out[1], out[0]])
    free_half = parent.half_centre(free_end)
    # (anchor point, direction the new tile leaves in)
    anchors = [(parent.end_mid(free_end) + out * quarter, out)]
    for s in (1.0, -1.0):
        anchors.append((free_half + side * s * (w / 2 + quarter), side * s))
    best = Contact(math.inf, 0)
    for k, (a, way) in enumerate(anchors):
        for end in (0, 1):
            if float(np.dot(_leaving(new, end), way)) < 0.7:
                continue
            d = float(np.hypot(*(new.half_centre(end) - a))) / w
            if d < best.score:
                best = Contact(d, end)
        if k == 0 and new.is_double and abs(float(np.dot(new.axis(1), out))) < 0.5:
            d = float(np.hypot(*(new.centre - a))) / w  # a double across the end
            if d < best.score:
                best = Contact(d, 0)
    return best


def contact_on_double(new: TilePose, double: TilePose) -> Contact:
    """A new tile against a double (spinner arm, chickie toe): its near half sits about a
    quarter of a tile length off the double's outline, and the tile points away from it."""
    w = max(double.width, 1e-6)
    want = double.length / 4
    best = Contact(math.inf, 0)
    for end in (0, 1):
        pt = new.half_centre(end)
        d = point_quad_distance(pt, double.corners)
        if d < -0.1 * w:  # inside the double: overlapping, not laid against it
            continue
        away = pt - double.centre
        away = away / (np.linalg.norm(away) + 1e-9)
        if float(np.dot(_leaving(new, end), away)) < 0.3:
            continue
        score = abs(d - want) / w
        if score < best.score:
            best = Contact(score, end)
    return best


def overlaps(a: TilePose, b: TilePose, shrink: float = 0.8) -> bool:
    """Whether two tiles' faces overlap (each shrunk about its centre, to forgive jitter)."""
    qa = a.centre + (a.corners - a.centre) * shrink
    qb = b.centre + (b.corners - b.centre) * shrink
    inter, _ = cv2.intersectConvexConvex(qa.astype(np.float32), qb.astype(np.float32))
    return float(inter) > 0


def estimate_motion(src: np.ndarray, dst: np.ndarray, tol: float) -> tuple[np.ndarray | None, int]:
    """A similarity taking `src` points to `dst` (RANSAC, `tol` pixels), and its inlier count."""
    n = len(src)
    if n < 2:
        return None, 0
    if n == 2:
        m, _ = cv2.estimateAffinePartial2D(src.astype(np.float32), dst.astype(np.float32))
        return m, 2 if m is not None else 0
    m, inliers = cv2.estimateAffinePartial2D(src.astype(np.float32), dst.astype(np.float32), method=cv2.RANSAC,
                                             ransacReprojThreshold=tol, maxIters=500, confidence=0.99)
    if m is None:
        return None, 0
    return m, int(inliers.sum())


def motion_size(m: np.ndarray, at: np.ndarray) -> tuple[float, float]:
    """(shift in pixels at point `at`, rotation in degrees) of a 2x3 similarity."""
    moved = m[:, :2] @ at + m[:, 2]
    return float(np.hypot(*(moved - at))), math.degrees(math.atan2(m[1, 0], m[0, 0]))


IDENTITY = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
