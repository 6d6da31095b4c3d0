"""Find dominoes as oriented boxes with the YOLO-OBB model, through onnxruntime.

A whole photo is letterboxed to the model's size first. When the tiles found are small
at that scale (a full table seen from afar, a hand in a corner of a 12 MP photo), a
second pass runs at higher resolution and the two are merged, the second's boxes taking
the place of the first's where both boxed the same spot, so small tiles are still found
without paying for the high resolution on every photo.

With a model exported with dynamic shapes, each pass runs on the whole image at its own
aspect (a 16:9 webcam frame is 320x192, not 320x320 of which 40 % is grey), and the
second pass is one larger rectangle; a fixed-shape model falls back to overlapping
square windows.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .onnx_yolo import bounds_meet, input_size, letterbox, make_session, nms_rotated, obb_polygon, to_blob
from .rectify import obb_to_corners_many

CLASS_TILE, CLASS_BACK = 0, 1


@dataclass
class RawBox:
    corners: np.ndarray  # label order, source pixels
    score: float
    cls: int


class TileDetector:
    def __init__(self, path: str | Path, conf: float = 0.35, iou: float = 0.5, threads: int | None = None,
                 small_tile_px: float = 40.0):
        self.session = make_session(path, threads)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.size = input_size(self.session)  # (w, h) it was trained at
        self.dynamic = not all(isinstance(d, int) for d in inp.shape[2:])
        self.conf = conf
        self.iou = iou
        self.small_tile_px = small_tile_px  # a tile shorter than this at model scale triggers a second pass

    def _input_size(self, img: np.ndarray, long_side: int) -> tuple[int, int]:
        """The image's own aspect, both sides a multiple of the model's stride (32)."""
        if not self.dynamic:
            return self.size
        h, w = img.shape[:2]
        s = long_side / max(h, w)
        return max(32, int(np.ceil(w * s / 32)) * 32), max(32, int(np.ceil(h * s / 32)) * 32)

    def _first_long_side(self, img: np.ndarray) -> int:
        """The model's long side, but never more than MAX_UPSCALE times the image's: enlarging a
        small picture (a 100-px crop of one tile) adds blur, not detail, and makes its tiles
        larger than any the detector learnt (measured on the double-6 single-tile photos:
        found 0.93 when blown up 3.2x, 1.0 at 1.6-2.2x)."""
        if not self.dynamic:
            return max(self.size)
        return int(min(max(self.size), MAX_UPSCALE * max(img.shape[:2])))

    def _run(self, img: np.ndarray, long_side: int | None = None) -> list[RawBox]:
        lb_img, lb = letterbox(img, self._input_size(img, long_side or self._first_long_side(img)))
        out = self.session.run(None, {self.input_name: to_blob([lb_img])})[0][0]  # (4+nc+1, N)
        nc = out.shape[0] - 5
        scores_all = out[4:4 + nc]
        cls = scores_all.argmax(0)
        score = scores_all.max(0)
        sel = score >= self.conf
        if not sel.any():
            return []
        corners = lb.to_source(obb_to_corners_many(out[:4, sel].T, out[4 + nc, sel])).astype(np.float32)
        return [RawBox(c, float(s), int(k)) for c, s, k in zip(corners, score[sel], cls[sel])]

    def _windows(self, img: np.ndarray, tile_len: float) -> list[RawBox]:
        """Detect in overlapping windows (a grid of at most 3x3) so small tiles come out larger."""
        h, w = img.shape[:2]
        model_scale = min(self.size[0] / w, self.size[1] / h)
        # how much larger tiles should appear: aim for ~2.5x the small-tile threshold, at most 3x3 windows
        zoom = float(np.clip(2.5 * self.small_tile_px / max(tile_len, 1.0), 1.5, 3.0))
        side = int(max(h, w) / zoom * 1.25)
        side = max(side, int(max(self.size) / model_scale / 3))
        out: list[RawBox] = []
        for y0 in _starts(h, side):
            for x0 in _starts(w, side):
                win = img[y0:y0 + side, x0:x0 + side]
                wh, ww = win.shape[:2]
                for b in self._run(win):
                    c = b.corners + np.array([x0, y0], np.float32)
                    # drop boxes cut by an inner window edge: a neighbouring window sees them whole
                    m = 2.0
                    cut = (x0 > 0 and (c[:, 0] < x0 + m).any()) or (x0 + ww < w and (c[:, 0] > x0 + ww - m).any()) or \
                          (y0 > 0 and (c[:, 1] < y0 + m).any()) or (y0 + wh < h and (c[:, 1] > y0 + wh - m).any())
                    if not cut:
                        out.append(RawBox(c, b.score, b.cls))
        return out

    def _zoomed(self, img: np.ndarray, tile_len: float) -> list[RawBox]:
        """The whole image again, larger, so the median tile is ~2.5x the small-tile threshold
        (at most 3x the first pass and MAX_LONG_SIDE pixels: a bigger pass costs more than it finds).

        The whole image, not only the part around the tiles the first pass found: that part alone
        was neutral on rendered tables, but on a webcam round of double-9 tiles the first pass found
        a few tiles of one corner of the layout and the zoomed pass missed six of eighteen."""
        zoom = float(np.clip(2.5 * self.small_tile_px / max(tile_len, 1.0), 1.5, 3.0))
        long_side = int(min(max(self.size) * zoom, MAX_LONG_SIDE, max(img.shape[:2])))
        return self._run(img, long_side)

    def detect(self, img: np.ndarray, tile_px: float | None = None) -> list[RawBox]:
        """`tile_px`: the tiles' length in this picture where the caller knows it (the live
        tracker, from the frames before): small tiles then get the second pass whatever the first
        pass found, which on a table of tiny tiles can be a few large phantoms."""
        boxes = self._run(img)
        h, w = img.shape[:2]
        iw, ih = self._input_size(img, self._first_long_side(img))
        model_scale = min(iw / w, ih / h)
        big = bool(boxes) and max(_lengths(boxes)) >= CLOSE_UP * min(h, w)
        nothing = model_scale >= 1 / 1.4 and not any(b.cls == CLASS_TILE for b in boxes)  # (no zoom to try)
        merged = self._merge(boxes)
        if (big or nothing) and (tile_px is None or tile_px >= CLOSE_UP * min(h, w)):
            framed = self._close_up(img, merged) if len(merged) <= CLOSE_UP_BOXES else None
            if framed is not None:
                return framed
        # the tiles' size is judged by the boxes found only where two faces or more are among
        # them: a box or two, or backs alone, say little about a picture of many tiles too small
        # for this pass, so the zoomed pass then looks as closely as it may (see `TRUSTED_FACES`)
        lengths = [max(n, 1.0) * model_scale for n in _lengths(boxes)]
        trusted = sum(b.cls == CLASS_TILE for b in merged) >= TRUSTED_FACES
        small = not trusted or np.median(lengths) < self.small_tile_px
        if tile_px is not None and tile_px * model_scale < self.small_tile_px:
            small, lengths = True, [tile_px * model_scale]  # (a hint adds the second pass, never drops it)
        if small and model_scale < 1 / 1.4:  # only when the image was shrunk enough for a zoom to help
            median = float(np.median(lengths)) if trusted else 0.0
            again = self._zoomed(img, median) if self.dynamic else self._windows(img, median)
            return self._merge(_unseen_by(boxes, again) + again)  # (see `SEEN_AGAIN`)
        return merged

    def _close_up(self, img: np.ndarray, boxes: list[RawBox]) -> list[RawBox] | None:
        """A picture filled by a tile or two, looked at again with a border around it: the
        detector learnt tiles with a table around them and, with none, boxes a tile short of
        its ends, boxes its halves as two tiles, or finds nothing (real double-12 close-ups, one
        tile filling each frame). The bordered pass replaces `boxes` (merged) where it finds a
        face and every face in `boxes` lies within one of its boxes; else None."""
        h, w = img.shape[:2]
        pad = int(round(CLOSE_UP_BORDER * max(h, w)))
        face = float(np.median(cv2.cvtColor(img[h // 4:h - h // 4, w // 4:w - w // 4], cv2.COLOR_BGR2GRAY)))
        value = BORDER_DARK if face >= 110 else BORDER_LIGHT  # unlike the tile filling the middle
        framed = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(value,) * 3)
        shift = np.array([pad, pad], np.float32)
        again = self._merge([RawBox(b.corners - shift, b.score, b.cls) for b in self._run(framed)])
        if not any(b.cls == CLASS_TILE for b in again):
            return None
        inside = lambda pt: any(cv2.pointPolygonTest(b.corners, pt, False) >= 0 for b in again)  # noqa: E731
        centres = [tuple(map(float, b.corners.mean(0))) for b in boxes if b.cls == CLASS_TILE]
        return again if all(inside(c) for c in centres) else None

    def _merge(self, boxes: list[RawBox]) -> list[RawBox]:
        # A domino is about twice as long as wide, and a steep camera angle shortens it by at
        # most ~35 %; a squarish box is the halves of two neighbours boxed together.
        if not boxes:
            return []
        aspect = _aspects(np.stack([b.corners for b in boxes]))
        boxes = [b for b, a in zip(boxes, aspect) if a >= MIN_ASPECT]
        if not boxes:
            return []
        polys = [b.corners for b in boxes]
        keep = nms_rotated(polys, np.array([b.score for b in boxes]), self.iou)
        return [boxes[i] for i in keep]


MIN_ASPECT = 1.3
CLOSE_UP = 0.6
"""A box at least this share of the picture's short side makes it a close-up (`_close_up`), as
does a small picture in which the first pass finds no face; never where the caller knows the
tiles are small (`tile_px`), nor past CLOSE_UP_BOXES boxes: on a rendered double-15 table the
first pass found ten phantoms, each over several small tiles, some longer than this."""
CLOSE_UP_BOXES = 3
CLOSE_UP_BORDER = 0.3
BORDER_DARK, BORDER_LIGHT = 40, 200
TRUSTED_FACES = 2
"""Face-up tiles (boxes once merged) the first pass must find before their size may spare the
picture the zoomed pass or set its zoom; with fewer, the zoomed pass looks as closely as it may.
Why: on a rendered double-15 table of ~40-px black tiles, the first pass found only two boxes,
both a "back" ~100 px long over the spinner's crossing (a phantom); their size passed for the
tiles', no second pass ran, and no tile was read in any frame for 700 frames of the round. Counted
once merged: a steep real photo's near tile, boxed eight times by the first
pass, passed for eight faces, and its size set a zoom too coarse to find the far tiles (one tile
of four read)."""
MAX_LONG_SIDE = 960
MAX_UPSCALE = 2.0


SEEN_AGAIN = 0.35
"""Share of the smaller box above which a box of the zoomed pass covers one of the first pass,
and the first pass's gives way (`_unseen_by`). Why: at the first pass's scale a 50-px tile of a
1280x720 table frame is 12 px long, and small tiles pushed together are boxed in pairs of halves;
kept beside the zoomed pass's boxes, these phantoms were read as tiles that are not there or won
a conflict against a real tile (`correct.drop_overlapping_boxes`). Preferring the zoomed pass
raised tile precision on fresh rendered tables from 0.965 to 0.996 and recall from 0.957 to
0.960, and left every real photo's reading as it was. Real
neighbours overlap far less than this, as in `CorrectionConfig.overlap`."""


def _unseen_by(first: list[RawBox], zoomed: list[RawBox]) -> list[RawBox]:
    """The first pass's boxes that no box of the zoomed pass covers by `SEEN_AGAIN`: a tile
    only the coarse pass found (a large one the zoomed pass boxes short) is kept."""
    if not first or not zoomed:
        return first
    polys = [b.corners for b in first] + [b.corners for b in zoomed]
    area = [abs(cv2.contourArea(p)) for p in polys]
    meet = bounds_meet(polys)
    n = len(first)

    def seen(i: int) -> bool:
        for j in np.flatnonzero(meet[i, n:]) + n:
            small = min(area[i], area[j])
            if small > 0 and cv2.intersectConvexConvex(polys[i], polys[j])[0] > SEEN_AGAIN * small:
                return True
        return False

    return [b for i, b in enumerate(first) if not seen(i)]


def _lengths(boxes: list[RawBox]) -> list[float]:
    return [float(np.linalg.norm(b.corners[0] - b.corners[3])) for b in boxes]


def _aspects(c: np.ndarray) -> np.ndarray:
    """Length over width of each of n boxes (n×4×2 corners, label order)."""
    side = lambda i, j: np.linalg.norm(c[:, i] - c[:, j], axis=1)  # noqa: E731
    length = (side(0, 3) + side(1, 2)) / 2
    width = (side(0, 1) + side(2, 3)) / 2
    return length / np.maximum(width, 1e-6)


def _starts(length: int, side: int) -> list[int]:
    """Window origins covering [0, length) with windows of `side`, overlapping, at most 3."""
    if side >= length:
        return [0]
    n = min(3, int(np.ceil((length - side) / (side * 0.8))) + 1)
    return [int(round(i * (length - side) / (n - 1))) for i in range(n)] if n > 1 else [0]


__all__ = ["TileDetector", "RawBox", "CLASS_TILE", "CLASS_BACK", "obb_polygon"]
