"""Cut a tile out of a photo and straighten it, the same way for training and inference.

The pip reader only ever sees tiles through this function, so rendered training crops
and real crops share one geometry: end 0 at the top, width `CROP_W`, length `CROP_L`,
with a margin of background around the tile (detector corners are never exact).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

CROP_W = 80
CROP_L = 160
PAD = 0.07  # fraction of the crop's side left as margin around the tile


def crop_homography(corners: np.ndarray, out_w: int = CROP_W, out_l: int = CROP_L, pad: float = PAD) -> np.ndarray:
    """Homography from image pixels to the crop, given corners in label order
    (end0-left, end0-right, end1-right, end1-left)."""
    px, py = pad * out_w, pad * out_l
    dst = np.array([[px, py], [out_w - px, py], [out_w - px, out_l - py], [px, out_l - py]], np.float32)
    return cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)


def crop_to_picture(corners: np.ndarray, points) -> np.ndarray:
    """Points of `rectify_tile`'s crop of these corners (m×2, or nested as m pairs) where they lie
    in the picture (m×2, float64): the pips a reader found, put back on the photo."""
    back = np.linalg.inv(crop_homography(np.asarray(corners, np.float32)))
    p = np.asarray(points, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ back.T
    return q[:, :2] / q[:, 2:3]


def rectify_tile(image: np.ndarray, corners: np.ndarray, out_w: int = CROP_W, out_l: int = CROP_L,
                 pad: float = PAD) -> tuple[np.ndarray, np.ndarray]:
    """Return (crop, homography image->crop). Shrinks with INTER_AREA-like quality by
    pre-blurring when the tile is much larger than the crop (12 MP photos)."""
    hm = crop_homography(corners, out_w, out_l, pad)
    c = np.asarray(corners, np.float32)
    long_side = max(np.linalg.norm(c[0] - c[3]), np.linalg.norm(c[1] - c[2]))
    scale = long_side / (out_l * (1 - 2 * pad))
    src = image
    if scale > 2.0:  # anti-alias: blur only the tile's neighbourhood, not the whole photo
        x0, y0 = np.floor(c.min(0) - long_side * 0.2).astype(int)
        x1, y1 = np.ceil(c.max(0) + long_side * 0.2).astype(int)
        h, w = image.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        roi = cv2.GaussianBlur(image[y0:y1, x0:x1], (0, 0), 0.45 * scale)
        shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
        crop = cv2.warpPerspective(roi, hm @ shift, (out_w, out_l), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return crop, hm
    crop = cv2.warpPerspective(src, hm, (out_w, out_l), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return crop, hm


def inside_picture(shape: tuple[int, ...], corners: np.ndarray, out_w: int = CROP_W, out_l: int = CROP_L,
                   pad: float = PAD) -> np.ndarray | None:
    """Which pixels of `rectify_tile`'s crop of these corners come from inside the picture (bool,
    out_l x out_w), or None where all do: outside it the crop repeats the picture's edge, in
    streaks. Each crop pixel is mapped back into the picture, as the warp samples it."""
    back = np.linalg.inv(crop_homography(corners, out_w, out_l, pad))
    h, w = shape[:2]

    def inside(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        pts = back @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)]).astype(np.float64)
        u, v = pts[0] / pts[2], pts[1] / pts[2]
        return (u >= 0) & (u <= w - 1) & (v >= 0) & (v <= h - 1)

    if inside(np.array([0, out_w - 1, out_w - 1, 0]), np.array([0, 0, out_l - 1, out_l - 1])).all():
        return None  # (the crop's corners inside: so is all of it, the picture being convex)
    ys, xs = np.mgrid[0:out_l, 0:out_w]
    return inside(xs, ys).reshape(out_l, out_w)


def obb_to_corners_many(xywh: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Corners in label order (n×4×2) of n oriented boxes; the long side becomes the tile's
    length. All at once: a detector pass decodes a few hundred candidate boxes, and one call per
    box cost a table frame ~10 ms."""
    xywh = np.asarray(xywh, np.float32).reshape(-1, 4)
    cx, cy, w, h = xywh.T
    # each angle's cosine taken in double precision, then summed in float32 as the boxes are
    angles = np.asarray(theta, np.float32).tolist()
    c = np.array([math.cos(t) for t in angles], np.float64).astype(np.float32)
    s = np.array([math.sin(t) for t in angles], np.float64).astype(np.float32)
    wx, wy = c * w / 2, s * w / 2  # along the box's w side
    hx, hy = -s * h / 2, c * h / 2
    along_h = h >= w  # length runs along h: end 0 is at -h
    ax, ay = np.where(along_h, wx, hx), np.where(along_h, wy, hy)
    gx, gy = np.where(along_h, hx, -wx), np.where(along_h, hy, -wy)
    flip = ~along_h & (gx * ay - gy * ax < 0)
    ax, ay = np.where(flip, -ax, ax), np.where(flip, -ay, ay)
    # keep the winding the same as labels: end0-left, end0-right, end1-right, end1-left
    pts = np.stack([np.stack([cx - gx - ax, cy - gy - ay], 1), np.stack([cx - gx + ax, cy - gy + ay], 1),
                    np.stack([cx + gx + ax, cy + gy + ay], 1), np.stack([cx + gx - ax, cy + gy - ay], 1)], 1)
    # the quadrilateral's signed area is 4 * cross(across, along): negative means mirrored
    mirrored = ax * gy - ay * gx < 0
    pts[mirrored] = pts[mirrored][:, [1, 0, 3, 2]]
    return pts.astype(np.float32)


def obb_to_corners(cx: float, cy: float, w: float, h: float, theta: float) -> np.ndarray:
    """`obb_to_corners_many` of one box."""
    return obb_to_corners_many(np.array([cx, cy, w, h], np.float32), np.array([theta], np.float32))[0]
