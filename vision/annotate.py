"""Draw what was read on the photo so a person can check it at a glance."""
from __future__ import annotations

import cv2
import numpy as np

from .correct import SURE_READING
from .imageio import LoadedImage
from .types import Recognition

GREEN, ORANGE, GREY, WHITE, BLACK = (60, 200, 60), (0, 140, 255), (160, 160, 160), (255, 255, 255), (0, 0, 0)


def _label(img: np.ndarray, text: str, org: tuple[int, int], scale: float, colour) -> None:
    thick = max(1, int(round(scale * 2)))
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = int(org[0] - tw / 2), int(org[1] + th / 2)
    cv2.rectangle(img, (x - 3, y - th - 3), (x + tw + 3, y + base), BLACK, -1)
    cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


def fit_for_drawing(bgr: np.ndarray, to_pixels: float, max_side: int) -> tuple[np.ndarray, float]:
    """A copy of `bgr` no larger than `max_side`, and the factor from original-image
    coordinates to its pixels."""
    h, w = bgr.shape[:2]
    if max(h, w) <= max_side:
        return bgr.copy(), to_pixels
    s = max_side / max(h, w)
    return cv2.resize(bgr, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA), to_pixels * s


def annotate_recognition(img: LoadedImage, rec: Recognition, max_side: int = 1600) -> np.ndarray:
    """A copy of the photo (at most `max_side` px) with outlines, values and the total."""
    out, f = fit_for_drawing(img.bgr, 1.0 / img.scale, max_side)
    scale = max(0.5, max(out.shape[:2]) / 1400)
    for t in rec.face_down:
        cv2.polylines(out, [(t.corners * f).astype(np.int32)], True, GREY, 2, cv2.LINE_AA)
        _label(out, "back", tuple((t.centre * f).astype(int)), scale * 0.6, GREY)
    for t in rec.tiles:
        c = (t.corners * f).astype(np.int32)
        colour = GREEN if t.pip_confidence >= SURE_READING and not t.notes else ORANGE
        cv2.polylines(out, [c], True, colour, max(2, int(scale * 2)), cv2.LINE_AA)
        mid0, mid1 = ((c[0] + c[3]) / 2).astype(int), ((c[1] + c[2]) / 2).astype(int)
        cv2.line(out, tuple(mid0), tuple(mid1), colour, 1, cv2.LINE_AA)
        e0, e1 = t.end_centres()
        _label(out, str(t.pips[0]), tuple((e0 * f).astype(int)), scale, colour)
        _label(out, str(t.pips[1]), tuple((e1 * f).astype(int)), scale, colour)
    _label(out, f"{len(rec.tiles)} tiles, total {rec.total}", (out.shape[1] // 2, int(30 * scale)), scale, WHITE)
    return out
