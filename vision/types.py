"""Plain data passed between the pipeline's stages (image -> detections -> readings)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


def tile_length(corners: np.ndarray) -> float:
    """Mean length of a tile's two long sides (corners in label order)."""
    c = corners
    return float((np.linalg.norm(c[0] - c[3]) + np.linalg.norm(c[1] - c[2])) / 2)


COLOUR_NOTE = "read again by its pips' colour"
"""How a tile's note begins where an end was read again because its pips' colour is not that of
the value first read (`vision.colour_check`). The note is for people; code asks
`TileDetection.recoloured`."""

SECOND_READING_COST = 0.2
"""How much less likely than its first (by the reader's own measure: a dot's score margin, a class
probability) a tile's second reading may be and still be taken where the rules at its place call
for it: by the audit of a still photo where it removes a violation (`table_audit.AuditConfig`), by
the tracker where it makes an illegal-looking play legal (`TrackerConfig.second_reading_cost`).
Both defaults are this one value, as both weigh the same thing: a misread dot is likelier than an
illegal play only where the reader nearly read it so."""


@dataclass
class TileDetection:
    """One domino found in a photo.

    `corners` are in original-image pixels (after EXIF orientation), in the order
    end0-left, end0-right, end1-right, end1-left, so `pips[0]` is the value at the
    end of corners 0-1 and `pips[1]` the one at corners 2-3.
    """

    id: int
    corners: np.ndarray  # (4, 2) float32
    confidence: float
    face_down: bool = False
    pips: tuple[int, int] | None = None
    pip_confidence: float = 0.0  # how sure the pip reader is of both counts (0..1)
    pip_points: list[tuple[float, float, float, int]] = field(default_factory=list)  # x, y, conf, half
    notes: list[str] = field(default_factory=list)  # corrections applied, e.g. "value capped at set max"
    second_readings: list[tuple[tuple[int, int], float]] = field(default_factory=list)
    """Next likeliest values (pips in the same end order, cost: how much less likely), cheapest
    first: what a caller that knows more (the rules at this place) may take instead, up to
    `SECOND_READING_COST`."""
    recoloured: bool = False
    """An end was read again because its pips' colour is not that of the value first read
    (`vision.colour_check`); the notes say so in words."""
    cut_by_edge: bool = False
    """The box reaches the picture's edge: part of the tile may lie beyond it."""

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(0)

    @property
    def length(self) -> float:
        return tile_length(self.corners)

    @property
    def width(self) -> float:
        c = self.corners
        return float((np.linalg.norm(c[0] - c[1]) + np.linalg.norm(c[2] - c[3])) / 2)

    def end_centres(self) -> tuple[np.ndarray, np.ndarray]:
        """Centres of the two halves (end 0, end 1)."""
        c = self.corners
        mid0, mid1 = (c[0] + c[1]) / 2, (c[2] + c[3]) / 2
        return mid0 * 0.75 + mid1 * 0.25, mid0 * 0.25 + mid1 * 0.75

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "pips": list(self.pips) if self.pips is not None else None,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(float(self.confidence), 3),
            "pip_confidence": round(float(self.pip_confidence), 3),
            "face_down": self.face_down,
            **({"notes": self.notes} if self.notes else {}),
        }


@dataclass
class Recognition:
    """Everything read from one photo."""

    image: str
    width: int
    height: int
    tiles: list[TileDetection]  # face-up tiles
    face_down: list[TileDetection]
    set_max: int
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    pip_colours: list[tuple[int, Any]] = field(default_factory=list, repr=False)
    """(value, colour) of the ends read sure: what a caller reading more pictures of the same set
    passes back as `colour_anchors` (the live tracker; see `vision.colour_check`)."""
    highest_read: int = 0
    """The highest value any face was read as, before values above `set_max` were capped."""

    @property
    def total(self) -> int:
        return sum(sum(t.pips) for t in self.tiles if t.pips is not None)
