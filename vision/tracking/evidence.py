"""Evidence of flagged plays: the frame a play was flagged on, with the play and its parent drawn.

A flag rests on what the camera saw; the frame lets the table check it. Nothing is saved without
a folder, or for a frame the tracker was not given as an image.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engine import Tile

from .board import BoardTile, Observation
from .geometry import TilePose


class EvidenceFolder:
    """Where flagged plays' frames are saved (`None`: nowhere)."""

    def __init__(self, folder: str | Path | None) -> None:
        self.folder = Path(folder) if folder else None

    def save(self, obs: Observation, tile: Tile, pose: TilePose, parent: BoardTile | None, message: str) -> str | None:
        """`obs`'s frame with `tile` (at `pose`, red) and the tile it lies on (green) outlined and
        `message` written over it; the file's path, or None where nothing was saved."""
        if self.folder is None or obs.image is None:
            return None
        import cv2

        img = obs.image.copy()
        if parent is not None:
            cv2.polylines(img, [parent.pose.corners.astype(np.int32)], True, (60, 200, 60), 2, cv2.LINE_AA)
        cv2.polylines(img, [pose.corners.astype(np.int32)], True, (0, 0, 255), 3, cv2.LINE_AA)
        scale = max(0.5, img.shape[1] / 1600)
        text = f"frame {obs.frame}: {message}"
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.rectangle(img, (5, 5), (15 + tw, 15 + th + 5), (0, 0, 0), -1)
        cv2.putText(img, text, (10, 10 + th), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 255), 2, cv2.LINE_AA)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"illegal_{obs.frame:06d}_{tile.high}-{tile.low}.jpg"
        try:
            cv2.imwrite(str(path), img)
        except cv2.error:
            return None
        return str(path)
