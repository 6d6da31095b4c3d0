"""A cheap motion gate: decide from a small grey thumbnail whether to run the recognizer.

The recognizer costs 60-150 ms a frame on a laptop CPU; a 160-pixel-wide grey
thumbnail costs well under a millisecond. Two comparisons answer the two questions
the tracker asks of every frame:

* is something moving (a hand, a knocked camera)? compare with the previous frame;
  the recognizer is not run then, as a hand hides tiles and blur smears pips;
* has anything changed since the board was last read? compare with the thumbnail
  taken when the tracker last settled; when nothing has, the last reading stands.

Thumbnails are divided by their own mean brightness first, so a lamp flickering or
the camera's auto-exposure stepping does not count as motion, and slightly blurred,
so sensor noise does not either.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

THUMB_WIDTH = 160


@dataclass
class MotionReading:
    moving: bool
    """Something moves between this frame and the previous one."""
    changed: bool
    """This frame differs from the reference (the picture when the board was last read)."""
    level: float
    """Share of thumbnail pixels that changed since the previous frame."""
    ref_level: float
    """Share of thumbnail pixels that differ from the reference."""
    entry: tuple[float, float] | None = None
    """Where moving pixels touch the picture's edge (x, y in 0..1), if they do: where a
    hand comes in from."""


class MotionGate:
    """Frame-difference motion detection on thumbnails."""

    def __init__(self, thumb_width: int = THUMB_WIDTH, pixel_delta: float = 0.07, move_share: float = 0.002,
                 change_share: float = 0.002) -> None:
        self.thumb_width = thumb_width
        self.pixel_delta = pixel_delta
        self.move_share = move_share
        self.change_share = change_share
        self._prev: np.ndarray | None = None
        self._ref: np.ndarray | None = None

    def thumbnail(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        tw = self.thumb_width
        th = max(8, int(round(h * tw / w)))
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        small = cv2.resize(grey, (tw, th), interpolation=cv2.INTER_AREA).astype(np.float32)
        small = cv2.GaussianBlur(small, (3, 3), 0)
        return small / max(float(small.mean()), 1.0)

    def _share(self, a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
        mask = np.abs(a - b) > self.pixel_delta
        return float(mask.mean()), mask

    def update(self, frame: np.ndarray) -> MotionReading:
        thumb = self.thumbnail(frame)
        prev = self._prev
        self._prev = thumb
        if prev is None or prev.shape != thumb.shape:
            return MotionReading(True, True, 1.0, 1.0)
        level, mask = self._share(thumb, prev)
        moving = level > self.move_share
        ref = self._ref
        if ref is None or ref.shape != thumb.shape:
            ref_level = 1.0
        else:
            ref_level, _ = self._share(thumb, ref)
        entry = _edge_entry(mask) if moving else None
        return MotionReading(moving, ref_level > self.change_share, level, ref_level, entry)

    def set_reference(self) -> None:
        """The current picture is what the board looks like now (the tracker has settled)."""
        self._ref = self._prev

    def reset(self) -> None:
        self._prev = None
        self._ref = None


def _edge_entry(mask: np.ndarray) -> tuple[float, float] | None:
    """Mean position of moving pixels on the outermost rows and columns (0..1 coordinates)."""
    h, w = mask.shape
    ys, xs = [], []
    for y in (0, 1, h - 2, h - 1):
        cols = np.nonzero(mask[y])[0]
        xs.extend(cols.tolist())
        ys.extend([y] * len(cols))
    for x in (0, 1, w - 2, w - 1):
        rows = np.nonzero(mask[:, x])[0]
        ys.extend(rows.tolist())
        xs.extend([x] * len(rows))
    if len(xs) < 3:
        return None
    return float(np.mean(xs)) / (w - 1), float(np.mean(ys)) / (h - 1)
