"""Read the pips on each end of a tile by detecting the dots on its straightened crop.

Counting detections reads every value 0-18 and any pip colour with one class, and a
miscount is off by one dot rather than confused with an unrelated value. Each half's
count comes with a confidence: the margin between the weakest pip counted and the
strongest one left out, which the rule-based correction uses to pick second readings.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .onnx_yolo import input_size, letterbox, make_session, nms_axis, to_blob
from .rectify import CROP_L, CROP_W, PAD, rectify_tile


@dataclass
class HalfReading:
    count: int
    scores: list[float]  # scores of all candidate pips in this half, best first
    confidence: float

    def alternatives(self, threshold: float) -> list[tuple[int, float]]:
        """Other plausible counts (count, cost): adding the next dot or dropping the weakest."""
        alts = []
        n = self.count
        if n < len(self.scores):
            alts.append((n + 1, threshold - self.scores[n]))
        if n > 0:
            alts.append((n - 1, self.scores[n - 1] - threshold))
        return alts


@dataclass
class TileReading:
    halves: tuple[HalfReading, HalfReading]
    points: list[tuple[float, float, float, int]]  # crop-space x, y, score, half

    @property
    def pips(self) -> tuple[int, int]:
        return self.halves[0].count, self.halves[1].count

    @property
    def confidence(self) -> float:
        return min(h.confidence for h in self.halves)


class PipReader:
    def __init__(self, path: str | Path, conf: float = 0.5, iou: float = 0.45, threads: int | None = None,
                 max_pips: int = 18):
        self.session = make_session(path, threads)
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        self.size = input_size(self.session)
        self.dynamic_batch = not isinstance(inp.shape[0], int)
        self.conf = conf
        self.iou = iou
        self.max_pips = max_pips

    def read_crops(self, crops: list[np.ndarray]) -> list[TileReading]:
        if not crops:
            return []
        boxed = [letterbox(c, self.size) for c in crops]
        outs = []
        if self.dynamic_batch:
            for i in range(0, len(boxed), 32):
                outs.extend(self.session.run(None, {self.input_name: to_blob([b[0] for b in boxed[i:i + 32]])})[0])
        else:
            for b in boxed:
                outs.append(self.session.run(None, {self.input_name: to_blob([b[0]])})[0][0])
        return [self._decode(o, lb) for o, (_, lb) in zip(outs, boxed)]

    def _decode(self, out: np.ndarray, lb) -> TileReading:
        score = out[4]
        low = self.conf * 0.4  # keep weaker candidates to estimate the count's margin
        sel = score >= low
        xywh = out[:4, sel].T
        s = score[sel]
        if len(s):
            xyxy = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], 1)
            keep = nms_axis(xyxy, s, self.iou)
            xy = lb.to_source(xywh[keep, :2])
            s = s[keep]
        else:
            xy = np.zeros((0, 2), np.float32)
        # Only dots on the face count: the crop's margin shows neighbours' pips.
        inside = (xy[:, 0] > PAD * CROP_W * 0.5) & (xy[:, 0] < CROP_W * (1 - PAD * 0.5)) & \
                 (xy[:, 1] > PAD * CROP_L * 0.5) & (xy[:, 1] < CROP_L * (1 - PAD * 0.5))
        xy, s = xy[inside], s[inside]
        half = (xy[:, 1] >= CROP_L / 2).astype(int)
        halves = []
        for hi in (0, 1):
            sc = np.sort(s[half == hi])[::-1]
            n = int((sc >= self.conf).sum())
            n = min(n, self.max_pips)
            weakest_in = sc[n - 1] if n else 1.0
            strongest_out = sc[n] if n < len(sc) else 0.0
            conf = float(np.clip(min(weakest_in - self.conf, self.conf - strongest_out) / self.conf + 0.5, 0, 1))
            halves.append(HalfReading(n, sc.tolist(), conf))
        pts = [(float(x), float(y), float(c), int(h)) for (x, y), c, h in zip(xy, s, half) if c >= self.conf]
        return TileReading((halves[0], halves[1]), pts)

    def read(self, image: np.ndarray, corners_list: list[np.ndarray]) -> list[TileReading]:
        crops = [rectify_tile(image, c)[0] for c in corners_list]
        return self.read_crops(crops)
