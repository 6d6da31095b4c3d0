"""Non-maximum suppression and box decoding: the fast forms keep exactly what the plain
greedy rule keeps (the best box first; a box goes when a kept one overlaps it by more than the
threshold), so a speed-up never changes what the reader sees."""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision.onnx_yolo import bounds_meet, nms_axis, nms_rotated, polygon_iou
from vision.rectify import obb_to_corners, obb_to_corners_many


def _greedy(n: int, scores: np.ndarray, iou_of, threshold: float) -> list[int]:
    keep: list[int] = []
    for i in np.argsort(-scores, kind="stable"):
        if all(iou_of(int(i), j) <= threshold for j in keep):
            keep.append(int(i))
    return keep


def _candidates(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Boxes clustered a dozen to a tile, as a detector's candidates are, some tiles touching."""
    tiles = max(1, n // 12)
    centres = rng.random((tiles, 2)) * [600, 400]
    k = rng.integers(0, tiles, n)
    xywh = np.concatenate([centres[k] + rng.normal(0, 3, (n, 2)),
                           np.stack([rng.normal(24, 2, n), rng.normal(48, 3, n)], 1)], 1).astype(np.float32)
    theta = (rng.random(n) * np.pi).astype(np.float32)
    return xywh, theta


def test_rotated_suppression_keeps_what_the_greedy_rule_keeps():
    rng = np.random.default_rng(0)
    for _ in range(40):
        xywh, theta = _candidates(rng, int(rng.integers(0, 150)))
        polys = list(obb_to_corners_many(xywh, theta))
        scores = (rng.permutation(len(polys)) + 1).astype(np.float32)  # distinct: one greedy order
        want = _greedy(len(polys), scores, lambda i, j: polygon_iou(polys[i], polys[j]), 0.5)
        assert nms_rotated(polys, scores, 0.5) == want


def test_rotated_suppression_drops_a_box_laid_over_a_better_one():
    box = obb_to_corners(100, 100, 20, 40, 0.3)
    assert nms_rotated([box, box + 1, box + 200], np.array([0.9, 0.8, 0.7], np.float32), 0.5) == [0, 2]


def test_upright_bounds_meet_wherever_the_boxes_overlap():
    rng = np.random.default_rng(1)
    xywh, theta = _candidates(rng, 120)
    polys = list(obb_to_corners_many(xywh, theta))
    meet = bounds_meet(polys)
    for i in range(0, 120, 7):
        for j in range(120):
            if polygon_iou(polys[i], polys[j]) > 0:
                assert meet[i, j]


def test_upright_suppression_keeps_what_the_greedy_rule_keeps():
    rng = np.random.default_rng(2)
    for _ in range(100):
        n = int(rng.integers(0, 60))
        xy = rng.random((n, 2), dtype=np.float32) * 160
        boxes = np.concatenate([xy, xy + rng.random((n, 2), dtype=np.float32) * 20 + 2], 1)
        scores = rng.permutation(n).astype(np.float32)

        def iou(i: int, j: int) -> float:
            a, b = boxes[i], boxes[j]
            w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
            h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
            area = lambda r: (r[2] - r[0]) * (r[3] - r[1])  # noqa: E731
            return w * h / (area(a) + area(b) - w * h)

        assert nms_axis(boxes, scores, 0.45).tolist() == _greedy(n, scores, iou, 0.45)


def _corners_of_one(cx, cy, w, h, theta) -> np.ndarray:
    """One box's corners spelt out with plain arithmetic, as the detector once decoded each box."""
    c, s = math.cos(theta), math.sin(theta)
    wx, wy = c * w / 2, s * w / 2
    hx, hy = -s * h / 2, c * h / 2
    if h >= w:
        (ax, ay), (gx, gy) = (wx, wy), (hx, hy)
    else:
        (ax, ay), (gx, gy) = (hx, hy), (-wx, -wy)
        if gx * ay - gy * ax < 0:
            ax, ay = -ax, -ay
    pts = np.array([[cx - gx - ax, cy - gy - ay], [cx - gx + ax, cy - gy + ay],
                    [cx + gx + ax, cy + gy + ay], [cx + gx - ax, cy + gy - ay]], np.float32)
    return pts[[1, 0, 3, 2]] if ax * gy - ay * gx < 0 else pts


def test_corners_of_many_boxes_are_those_of_each_box():
    rng = np.random.default_rng(3)
    xywh, theta = _candidates(rng, 200)
    xywh[:20, 3] = xywh[:20, 2]  # square boxes: the long side is a tie
    xywh[20:60, [2, 3]] = xywh[20:60, [3, 2]]  # boxes longer across than along
    theta[60:80] = -theta[60:80]
    many = obb_to_corners_many(xywh, theta)
    one = np.stack([_corners_of_one(*b, t) for b, t in zip(xywh, theta)])
    assert many.dtype == np.float32 and np.array_equal(many, one)
    assert obb_to_corners_many(np.zeros((0, 4), np.float32), np.zeros(0, np.float32)).shape == (0, 4, 2)
    assert cv2.contourArea(many[0]) > 0
