"""Ground-truth-derived detections and motion, for developing and measuring the tracker
before (and independently of) a trained recognizer.

`OracleDetector` turns a sequence frame's true tile corners into what a decent
recognizer would report: corners jittered, tiles mostly hidden by a hand not seen,
partly hidden ones sometimes missed or misread, and now and then a tile dropped, a
value misread or a tile-like thing reported where there is none. `TruthGate` plays
the motion gate from the plan's knowledge of hands and camera moves, missing a
moving frame now and then. Both are seeded, so an evaluation is reproducible.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.tracking.motion import MotionReading
from vision.types import TileDetection

from .synth.sequence import SeqFrame, SequencePlan


@dataclass
class Noise:
    """How imperfect the simulated recognizer and motion gate are."""

    jitter: float = 0.03
    """Corner noise, in tile widths (standard deviation)."""
    drop: float = 0.02
    """Chance a fully visible tile is missed in a frame."""
    misread: float = 0.005
    """Chance a fully visible tile has one end misread by one pip."""
    hidden: float = 0.5
    """Tiles with less than this share of their face visible are not detected."""
    partial_miss: float = 0.3
    """Chance a partly hidden tile is missed; the same chance it is misread when seen."""
    false_tile: float = 0.01
    """Chance per frame of a detection where there is no tile."""
    motion_miss: float = 0.05
    """Chance the motion gate misses a frame with a moving hand."""
    false_motion: float = 0.01
    """Chance the motion gate reports motion in a still frame."""

    @classmethod
    def none(cls) -> "Noise":
        return cls(0, 0, 0, 0.5, 0, 0, 0, 0)


def _inside_convex(pts: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Which of `pts` (N, 2) lie inside the convex polygon `poly` (either winding)."""
    a = poly
    b = np.roll(poly, -1, axis=0)
    e = b - a  # (k, 2)
    rel = pts[:, None, :] - a[None, :, :]  # (N, k, 2)
    cross = e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]
    return (cross >= 0).all(1) | (cross <= 0).all(1)


_GRID = np.array([[u, v] for u in (-0.35, 0.0, 0.35) for v in (-0.42, -0.25, -0.08, 0.08, 0.25, 0.42)])


def visible_share(plan: SequencePlan, frame: SeqFrame) -> dict[int, float]:
    """Share of each tile's face that a camera sees in `frame` (not under a hand, in the picture)."""
    hand_polys = frame.hand.polygons() if frame.hand is not None else []
    H = plan.homography(frame.camera)
    W, Hh = plan.size
    out = {}
    for tid in frame.tiles:
        t = plan.tiles[tid]
        q = t.quad(plan.ratio)
        # sample points over the face (layout units)
        c = q.mean(0)
        across = q[1] - q[0]
        along = q[3] - q[0]
        pts = c + _GRID[:, :1] * across + _GRID[:, 1:] * along
        ok = np.ones(len(pts), bool)
        for poly in hand_polys:
            ok &= ~_inside_convex(pts, poly)
        img = pts @ H[:2, :2].T + H[:2, 2]
        den = pts @ H[2, :2] + H[2, 2]
        img = img / den[:, None]
        ok &= (img[:, 0] >= 0) & (img[:, 0] < W) & (img[:, 1] >= 0) & (img[:, 1] < Hh)
        out[tid] = float(ok.mean())
    return out


class OracleDetector:
    """A simulated recognizer reading a sequence frame from its ground truth."""

    def __init__(self, plan: SequencePlan, seed: int = 0, noise: Noise | None = None) -> None:
        self.plan = plan
        self.noise = noise or Noise()
        self.rng = np.random.default_rng(seed)

    def _misread(self, pips: tuple[int, int]) -> tuple[int, int]:
        k = int(self.rng.integers(0, 2))
        v = list(pips)
        step = 1 if self.rng.random() < 0.5 else -1
        v[k] = int(np.clip(v[k] + step, 0, self.plan.set_max))
        if v[k] == pips[k]:
            v[k] = int(np.clip(v[k] - step, 0, self.plan.set_max))
        return v[0], v[1]

    def __call__(self, frame: SeqFrame) -> list[TileDetection]:
        plan, nz, rng = self.plan, self.noise, self.rng
        vis = visible_share(plan, frame)
        out: list[TileDetection] = []
        for tid in frame.tiles:
            v = vis[tid]
            if v < nz.hidden:
                continue
            t = plan.tiles[tid]
            pips = (t.a, t.b)
            if v < 0.9:
                if rng.random() < nz.partial_miss:
                    continue
                if rng.random() < nz.partial_miss:
                    pips = self._misread(pips)
            else:
                if rng.random() < nz.drop:
                    continue
                if rng.random() < nz.misread:
                    pips = self._misread(pips)
            corners = plan.image_corners(tid, frame.camera).astype(np.float64)
            w = float(np.hypot(*(corners[0] - corners[1])))
            if nz.jitter > 0:
                corners = corners + rng.normal(0, nz.jitter * w, (4, 2)) + rng.normal(0, nz.jitter * w, (1, 2))
            if rng.random() < 0.5:  # the recognizer may name either end "end 0"
                corners = np.roll(corners, 2, axis=0)
                pips = (pips[1], pips[0])
            det = TileDetection(len(out), corners.astype(np.float32), 0.9)
            det.pips = pips
            det.pip_confidence = 0.9
            out.append(det)
        if nz.false_tile > 0 and rng.random() < nz.false_tile and frame.tiles:
            # a tile-like thing somewhere near the layout, with made-up values
            ref = plan.image_corners(frame.tiles[int(rng.integers(0, len(frame.tiles)))], frame.camera)
            shift = rng.normal(0, 3, 2) * float(np.hypot(*(ref[0] - ref[1])))
            det = TileDetection(len(out), (ref + shift).astype(np.float32), 0.5)
            det.pips = (int(rng.integers(0, plan.set_max + 1)), int(rng.integers(0, plan.set_max + 1)))
            out.append(det)
        return out


class TruthGate:
    """The motion gate's answers taken from the plan (hands and camera moves), with misses."""

    def __init__(self, plan: SequencePlan, seed: int = 0, noise: Noise | None = None) -> None:
        self.plan = plan
        self.noise = noise or Noise()
        self.rng = np.random.default_rng(seed + 7919)
        self._last: tuple | None = None
        self._ref: tuple | None = None
        self.picture_size = plan.size

    def update(self, frame: SeqFrame) -> MotionReading:
        nz = self.noise
        moving = frame.moving
        if moving and self.rng.random() < nz.motion_miss:
            moving = False
        elif not moving and self.rng.random() < nz.false_motion:
            moving = True
        sig = (tuple(frame.tiles), frame.camera, frame.hand is not None)
        self._last = sig
        changed = sig != self._ref
        entry = hand_entry(self.plan, frame) if moving and frame.hand is not None else None
        return MotionReading(moving, changed, 1.0 if moving else 0.0, 1.0 if changed else 0.0, entry)

    def set_reference(self) -> None:
        self._ref = self._last

    def reset(self) -> None:
        self._last = None
        self._ref = None


def _ray_exit(a: np.ndarray, b: np.ndarray, W: int, H: int) -> tuple[float, float] | None:
    """Where the ray from `a` through `b` leaves the picture, as (x/W, y/H)."""
    d = b - a
    ts = []
    for k, lim in ((0, 0.0), (0, float(W)), (1, 0.0), (1, float(H))):
        if abs(d[k]) > 1e-9:
            t = (lim - a[k]) / d[k]
            if t > 0:
                p = a + d * t
                if -1 <= p[0] <= W + 1 and -1 <= p[1] <= H + 1:
                    ts.append(t)
    if not ts:
        return None
    p = a + d * min(ts)
    return float(np.clip(p[0] / W, 0, 1)), float(np.clip(p[1] / H, 0, 1))


def seat_direction(plan: SequencePlan, player: int, camera: int = 0) -> float:
    """Angle (radians, image coordinates) from the middle of the picture to where a player's
    arm comes into it: how a person would describe the seats to the tracker."""
    a, b = _seat_points(plan, player, camera)
    W, H = plan.size
    e = _ray_exit(a, b, W, H) or (0.5, 1.0)
    return float(np.arctan2(e[1] * H - H / 2, e[0] * W - W / 2))


def _seat_points(plan: SequencePlan, player: int, camera: int) -> tuple[np.ndarray, np.ndarray]:
    box = plan.meta.get("box")
    centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]) if box else np.zeros(2)
    seat = np.array(plan.seats[player])
    h = plan.homography(camera)
    pts = np.array([centre, centre + 0.4 * (seat - centre)])
    img = pts @ h[:2, :2].T + h[:2, 2]
    img = img / (pts @ h[2, :2] + h[2, 2])[:, None]
    return img[0], img[1]


def hand_entry(plan: SequencePlan, frame: SeqFrame) -> tuple[float, float] | None:
    """Where the hand's arm crosses the picture's edge (what the real motion gate estimates)."""
    if frame.hand is None:
        return None
    a, b = _seat_points(plan, frame.hand.player, frame.camera)
    W, H = plan.size
    return _ray_exit(a, b, W, H)
