"""The recognizer as the tracker's detector: frames in, tile detections out.

It keeps what one frame teaches about the next (the tiles' size, the pip colours of each value)
and reads a small crop closer on request.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..types import tile_length
from .tuning import DetectorConfig

Detector = Callable[[Any], Sequence[Any]]
"""frame -> tile detections (`vision.types.TileDetection`-like: corners, pips, confidence)."""


class RecognizerDetector:
    """The real recognizer as a tracker detector, tuned by `config` (`TrackerConfig.detector`)."""

    def __init__(self, recognizer: Any, set_max: int | None, config: DetectorConfig = DetectorConfig()) -> None:
        self.recognizer = recognizer
        self.set_max = set_max
        self.config = config
        self.tile_px: float | None = None
        """The tiles' median length in the last frame where `config.tiles_for_size` or more were read:
        a table's tiles keep their size from frame to frame, so the detector need not guess it
        again from its first pass, which on a table of tiny tiles can find only a few large
        phantoms (see `TileDetector.detect`)."""
        self.colours: dict[int, list[Any]] = {}
        """The pip colours of ends read sure, by value, the last `config.colours_kept` of each: one set is
        on the table all game, so a colour seen stands for its value in every later frame and
        closer look, where the tile that showed it may be hidden (see `vision.colour_check`)."""

    def _anchors(self) -> dict[str, Any]:
        """`colour_anchors` for the recognizer, where there are any (a stand-in recognizer in a
        test need not know the argument, nor have a configuration: the colours then agree by the
        default `ColourConfig`)."""
        from vision.colour_check import agreed_colours
        from vision.recognition.colour_config import ColourConfig

        tuned = getattr(getattr(self.recognizer, "config", None), "colours", None) or ColourConfig()
        anchors = [(v, c) for v, cs in self.colours.items() for c in agreed_colours(cs, config=tuned)]
        return {"colour_anchors": anchors} if anchors else {}

    def __call__(self, frame: np.ndarray) -> list[Any]:
        from vision.imageio import LoadedImage

        h, w = frame.shape[:2]
        rec = self.recognizer.recognize_loaded(LoadedImage(frame, 1.0, w, h, "frame"), self.set_max,
                                               tile_px=self.tile_px, **self._anchors())
        if len(rec.tiles) >= self.config.tiles_for_size:
            self.tile_px = float(np.median([tile_length(t.corners) for t in rec.tiles]))
        for v, c in getattr(rec, "pip_colours", ()):
            self.colours[v] = (self.colours.get(v, []) + [c])[-self.config.colours_kept:]
        return rec.tiles

    def look_closer(self, frame: np.ndarray, centre: np.ndarray, reach: float) -> list[Any]:
        """The recognizer on the square `reach` pixels around `centre` alone, in the frame's
        coordinates. A small crop is read at up to twice its size, where a whole 1280x720 frame
        is read at three quarters: a 40-px tile crowded among a chickie's toes that the whole
        frame never shows is found here. Tiles cut by the crop's edge (not the frame's) are left
        out: only part of them was read."""
        from vision.imageio import LoadedImage
        from vision.recognition.faces import cut_by_edge

        h, w = frame.shape[:2]
        r = max(16, int(reach))
        cx, cy = int(centre[0]), int(centre[1])
        x0, y0, x1, y1 = max(0, cx - r), max(0, cy - r), min(w, cx + r), min(h, cy + r)
        if x1 - x0 < 32 or y1 - y0 < 32:
            return []
        crop = np.ascontiguousarray(frame[y0:y1, x0:x1])
        rec = self.recognizer.recognize_loaded(LoadedImage(crop, 1.0, x1 - x0, y1 - y0, "closer look"),
                                               self.set_max, **self._anchors())
        out = []
        for t in rec.tiles:
            corners = np.asarray(t.corners, np.float64) + [x0, y0]
            if cut_by_edge(t.corners, x1 - x0, y1 - y0) and not cut_by_edge(corners, w, h):
                continue
            t.corners = corners
            out.append(t)
        return out
