"""Evidence of flagged plays, kept by the tracker's event sinks.

A flag rests on what the camera saw; the frame lets the table check it. The tracker does not save
anything itself: it hands each flagged play's event, with the scene it was flagged on, to every
sink registered with it (`EventSink`), and a sink that keeps a record of it (a file) says where.
`EvidenceFolder` is the sink that saves the frame with the play and its parent drawn; nothing is
saved for a frame the tracker was not given as an image.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from engine import Tile

from .board import BoardTile, Observation
from .events import TilePlayed, TrackEvent
from .geometry import TilePose


@dataclass(frozen=True)
class FlagScene:
    """What a flagged play was seen in: the observation it was laid in (its frame), the tile as
    read there and where it lies, and the board tile it lies against."""

    laid: Observation
    tile: Tile
    pose: TilePose
    parent: BoardTile | None


class EventSink(Protocol):
    """Something told of the tracker's flagged plays as they are made."""

    def __call__(self, events: Sequence[TrackEvent], context: FlagScene) -> str | None:
        """Take `events` (seen in `context`); where the sink kept a record of them, its path."""
        ...


def emit(sinks: Sequence[EventSink], events: Sequence[TrackEvent], context: FlagScene) -> str | None:
    """Hand `events` to every sink in order; the first record a sink says it kept (the one the
    events then name as their evidence)."""
    kept = None
    for sink in sinks:
        record = sink(events, context)
        if kept is None:
            kept = record
    return kept


class EvidenceFolder:
    """The sink that saves a flagged play's frame into a folder (`None`: nowhere)."""

    def __init__(self, folder: str | Path | None) -> None:
        self.folder = Path(folder) if folder else None

    def __call__(self, events: Sequence[TrackEvent], context: FlagScene) -> str | None:
        """The frame of the first flagged play among `events`, saved (see `save`)."""
        flagged = next((e for e in events if isinstance(e, TilePlayed) and not e.legal), None)
        if flagged is None:
            return None
        return self.save(context.laid, context.tile, context.pose, context.parent, flagged.message or "")

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
