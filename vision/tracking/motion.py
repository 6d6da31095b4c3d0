"""A cheap motion gate: decide from a small grey thumbnail whether to run the recognizer.

The recognizer costs 60-150 ms a frame on a laptop CPU; a 160-pixel-wide grey
thumbnail costs well under a millisecond. Two comparisons answer the two questions
the tracker asks of every frame:

* is something moving (a hand, a knocked camera)? compare with the previous frame;
  the recognizer is not run then, as a hand hides tiles and blur smears pips;
* has anything changed since the board was last read? compare with the thumbnail
  taken when the tracker last settled; when nothing has, the last reading stands.

Thumbnails are compared pixel by pixel in relative terms after scaling one by the
light's step between them (measured on the lit pixels, or from the two medians when few
are lit), so a lamp flickering or the camera's auto-exposure stepping does not
count as motion; pixels near white in
both pictures are left out of the comparison, since a brighter frame clips white
tiles by different amounts than it brightens the table (a pixel white in one picture
only is kept: a white tile was laid or taken there); and thumbnails are slightly
blurred, so sensor noise does not count either.

A third comparison saves the recognizer's time: against the thumbnail of the last frame
the recognizer read (`mark_read`). While a still picture has not changed since that
read, reading it again would give the same tiles, so the tracker reuses the reading.

Thumbnails are shrunk by a whole factor (a 1280x720 frame becomes 256x144), which
OpenCV's area averaging does several times faster than an odd factor.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .tuning import MotionConfig


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
    same_as_read: bool = False
    """This frame does not differ from the last frame the recognizer read (`mark_read`)."""


class MotionGate:
    """Frame-difference motion detection on thumbnails, tuned by a `MotionConfig`."""

    def __init__(self, config: MotionConfig = MotionConfig()) -> None:
        self.config = config
        self._prev: tuple | None = None
        self._ref: tuple | None = None
        self._read: tuple | None = None
        self._read_was_ref = False
        """The last picture read did not differ from the reference (see `update`)."""
        self._ref_level = 1.0

    def thumbnail(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(grey thumbnail, mask of near-white pixels, median grey level)."""
        h, w = frame.shape[:2]
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        # shrink by a whole factor (about thumb_width wide): the last few rows and columns are
        # left out rather than paying for area averaging over fractional pixels
        k = max(1, int(round(w / self.config.thumb_width)))
        tw, th = max(1, w // k), max(1, h // k)
        grey = grey.astype(np.float32)
        if k > 1:
            grey = cv2.resize(grey[: th * k, : tw * k], (tw, th), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(grey, (3, 3), 0)
        # the median of the averaged (not rounded) thumbnail: on a near-black table the median of
        # whole grey levels stepped between 5 and 6 with no change in the light, a 20 % step that
        # made every white tile "move" and kept the tracker from reading a still board
        level = max(float(np.median(small)), 1.0)
        return small, small >= self.config.near_white, level

    def _share(self, a: tuple, b: tuple) -> tuple[float, np.ndarray]:
        """Share of pixels that differ between two thumbnails (pixels near white in both left out:
        a white tile laid on the table turns its place white, which is a change)."""
        # the light's step between the two pictures, measured on pixels bright enough to show it:
        # on a near-black table the medians are the cloth's noise (8.5 and 9.4 grey levels for a
        # lamp 0.4 % brighter), and every tile "moved" by the 10 % between them
        ga, gb = a[0], b[0]
        cfg = self.config
        lit = (ga > cfg.lit_grey) & (gb > cfg.lit_grey) & ~(a[1] | b[1])
        gain = float(np.median(gb[lit] / ga[lit])) if lit.mean() > cfg.lit_share else b[2] / a[2]
        ga = ga * gain
        # relative to the brighter of the two, but never less than a few grey levels
        limit = np.maximum(cfg.pixel_delta * np.maximum(ga, gb), cfg.grey_floor)
        brighter, darker = gb - ga > limit, ga - gb > limit
        # a pixel near white, shown or expected, may be brighter than it shows (clipped, or
        # blurred with clipped neighbours): a tile 229 grey levels bright read 252 in a frame lit
        # 20 % more, not 275, and a one-frame lamp flash "moved" every tile. Such a pixel can
        # only be seen to have changed the way clipping cannot explain.
        # (a pixel white in both pictures is left out: a clipped area lit a little differently)
        # A bright pixel that is not white may still average white (clipped) pixels with others
        # and then steps by less than the light did: anywhere between unchanged and the light's
        # full step. Why: the tiles of a rendered double-9 round, lit 16 % brighter for two frames,
        # had faces partly clipped; as the light fell back by 19 % their thumbnail pixels fell by
        # 11 %, over the 8 % allowed, and the two frames "moved": the one still frame left between
        # them and the next hand was too few to read a planted 1-0 twice.
        raw = a[0]
        partly_clipped = (np.maximum(raw, gb) >= cfg.clip_risk) & (gb >= np.minimum(raw, ga) - limit) & \
            (gb <= np.maximum(raw, ga) + limit)
        mask = np.select([a[1] & b[1], a[1], b[1], ga >= cfg.near_white, gb >= cfg.near_white * gain],
                         [False, darker, brighter, brighter, darker], (brighter | darker) & ~partly_clipped)
        return float(mask.mean()), mask

    def update(self, frame: np.ndarray) -> MotionReading:
        thumb = self.thumbnail(frame)
        prev = self._prev
        self._prev = thumb
        if prev is None or prev[0].shape != thumb[0].shape:
            return MotionReading(True, True, 1.0, 1.0)
        level, mask = self._share(thumb, prev)
        moving = level > self.config.move_share
        ref = self._ref
        if ref is None or ref[0].shape != thumb[0].shape:
            ref_level = 1.0
        else:
            ref_level, _ = self._share(thumb, ref)
        entry = _edge_entry(mask) if moving else None
        self._ref_level = ref_level
        changed = ref_level > self.config.change_share
        read = self._read
        # a picture that differs from the reference cannot be the one last read if that one did
        # not: a small change (a 40-px tile laid) sits near the threshold of both tests, and a
        # reading reused there would settle the board without the tile (and a tile in the
        # settled picture is later taken for part of the table)
        same = (not moving and read is not None and read[0].shape == thumb[0].shape
                and not (changed and self._read_was_ref)
                and self._share(thumb, read)[0] <= self.config.change_share)
        return MotionReading(moving, changed, level, ref_level, entry, same)

    def set_reference(self) -> None:
        """The current picture is what the board looks like now (the tracker has settled)."""
        self._ref = self._prev
        read = self._read
        self._read_was_ref = read is not None and self._ref is not None and read[0].shape == self._ref[0].shape \
            and self._share(read, self._ref)[0] <= self.config.change_share

    def mark_read(self) -> None:
        """The recognizer read the current picture."""
        self._read = self._prev
        self._read_was_ref = self._ref_level <= self.config.change_share

    def reset(self) -> None:
        self._prev = None
        self._ref = None
        self._read = None
        self._read_was_ref = False
        self._ref_level = 1.0


def _edge_entry(mask: np.ndarray) -> tuple[float, float] | None:
    """Middle of the longest stretch of moving pixels along the picture's edge (0..1
    coordinates): where an arm crosses into the picture. None when nothing moves at the
    edge, or when the whole edge moves (a knocked camera)."""
    h, w = mask.shape
    band = 2
    top = mask[:band].any(0)
    right = mask[:, w - band:].any(1)
    bottom = mask[h - band:].any(0)[::-1]
    left = mask[:, :band].any(1)[::-1]
    ring = np.concatenate([top, right, bottom, left])
    n = len(ring)
    if ring.sum() < 3 or ring.mean() > 0.4:
        return None
    # longest run of moving pixels around the ring (it wraps), bridging gaps of a few pixels
    idx = np.nonzero(ring)[0]
    gaps = np.diff(np.concatenate([idx, idx[:1] + n]))
    breaks = np.nonzero(gaps > 4)[0]
    if len(breaks) == 0:
        return None
    best_len, best_mid = -1, 0.0
    for k in range(len(breaks)):
        start = idx[(breaks[k] + 1) % len(idx)]
        end = idx[breaks[(k + 1) % len(breaks)]]
        length = (end - start) % n + 1
        if length > best_len:
            best_len, best_mid = length, (start + (length - 1) / 2) % n
    pos = best_mid
    if pos < w:
        return pos / (w - 1), 0.0
    pos -= w
    if pos < h:
        return 1.0, pos / (h - 1)
    pos -= h
    if pos < w:
        return 1.0 - pos / (w - 1), 1.0
    pos -= w
    return 0.0, 1.0 - pos / (h - 1)
