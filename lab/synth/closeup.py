"""Close-up pictures of one tile cut from a rendered scene: the tile warped upright to fill
the frame, with a thin margin of whatever surrounds it, as a phone photo of a single tile is
(the real double-12 crops are cut to the tile's outline). The detector learnt tiles with a
table around them; these measure the pictures it did not learn."""
from __future__ import annotations

import cv2
import numpy as np


def close_up(image: np.ndarray, corners, margin: float = 0.03, height: int = 360) -> np.ndarray:
    """`corners` in label order (corners[0]->[1] one short side, [0]->[3] the long one);
    `margin`: a share of the tile's length kept on each side; `height`: the picture's."""
    c = np.asarray(corners, np.float32)
    length = (np.linalg.norm(c[0] - c[3]) + np.linalg.norm(c[1] - c[2])) / 2
    width = (np.linalg.norm(c[0] - c[1]) + np.linalg.norm(c[3] - c[2])) / 2
    k = height / (length * (1 + 2 * margin))
    m = margin * length * k
    w = int(round(width * k + 2 * m))
    dst = np.array([[w - m, height - m], [m, height - m], [m, m], [w - m, m]], np.float32)
    warp = cv2.getPerspectiveTransform(c, dst)
    return cv2.warpPerspective(image, warp, (w, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
