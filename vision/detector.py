"""Find dominoes as oriented boxes with the YOLO-OBB model, through onnxruntime.

A whole photo is letterboxed to the model's size first. When the tiles found are small
at that scale (a full table seen from afar, a hand in a corner of a 12 MP photo), a
second pass runs on overlapping windows at higher resolution and the two are merged,
so small tiles are still found without running every photo in windows.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .onnx_yolo import input_size, letterbox, make_session, nms_rotated, obb_polygon, to_blob
from .rectify import obb_to_corners

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
        self.size = input_size(self.session)  # (w, h)
        self.conf = conf
        self.iou = iou
        self.small_tile_px = small_tile_px  # a tile shorter than this at model scale triggers windows

    def _run(self, img: np.ndarray) -> list[RawBox]:
        lb_img, lb = letterbox(img, self.size)
        out = self.session.run(None, {self.input_name: to_blob([lb_img])})[0][0]  # (4+nc+1, N)
        nc = out.shape[0] - 5
        scores_all = out[4:4 + nc]
        cls = scores_all.argmax(0)
        score = scores_all.max(0)
        sel = score >= self.conf
        if not sel.any():
            return []
        xywh = out[:4, sel].T
        ang = out[4 + nc, sel]
        boxes = []
        for (x, y, w, h), r, s, c in zip(xywh, ang, score[sel], cls[sel]):
            corners = obb_to_corners(x, y, w, h, r)
            boxes.append(RawBox(lb.to_source(corners).astype(np.float32), float(s), int(c)))
        return boxes

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

    def detect(self, img: np.ndarray) -> list[RawBox]:
        boxes = self._run(img)
        h, w = img.shape[:2]
        model_scale = min(self.size[0] / w, self.size[1] / h)
        lengths = [max(np.linalg.norm(b.corners[0] - b.corners[3]), 1.0) * model_scale for b in boxes]
        small = (not boxes) or np.median(lengths) < self.small_tile_px
        if small and max(h, w) * model_scale < max(h, w):  # only when the image was shrunk
            boxes = boxes + self._windows(img, float(np.median(lengths)) if lengths else 20.0)
        return self._merge(boxes)

    def _merge(self, boxes: list[RawBox]) -> list[RawBox]:
        # A domino is about twice as long as wide, and a steep camera angle shortens it by at
        # most ~35 %; a squarish box is the halves of two neighbours boxed together.
        boxes = [b for b in boxes if _aspect(b.corners) >= MIN_ASPECT]
        if not boxes:
            return []
        polys = [b.corners for b in boxes]
        keep = nms_rotated(polys, np.array([b.score for b in boxes]), self.iou)
        return [boxes[i] for i in keep]


MIN_ASPECT = 1.3


def _aspect(c: np.ndarray) -> float:
    length = (np.linalg.norm(c[0] - c[3]) + np.linalg.norm(c[1] - c[2])) / 2
    width = (np.linalg.norm(c[0] - c[1]) + np.linalg.norm(c[2] - c[3])) / 2
    return float(length / max(width, 1e-6))


def _starts(length: int, side: int) -> list[int]:
    """Window origins covering [0, length) with windows of `side`, overlapping, at most 3."""
    if side >= length:
        return [0]
    n = min(3, int(np.ceil((length - side) / (side * 0.8))) + 1)
    return [int(round(i * (length - side) / (n - 1))) for i in range(n)] if n > 1 else [0]


__all__ = ["TileDetector", "RawBox", "CLASS_TILE", "CLASS_BACK", "obb_polygon"]
