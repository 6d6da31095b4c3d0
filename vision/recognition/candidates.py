"""One photo's boxes as columns: a row per box, every column the same length, so a stage that
drops boxes drops them from every column at once (`cands[mask]`)."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields
from typing import Any, Sequence

import numpy as np

from .changes import Change, Marked, Reread, TraceEntry


class Flag(enum.IntFlag):
    """Facts about a box that later stages and the rendering go by."""

    BOXED_AS_BACK = enum.auto()
    """The detector called it a back."""
    FACE_AMONG_BACKS = enum.auto()
    """Called a back, but lying beside a face and read as one (`boxing.faces_among_backs`)."""
    SMALL = enum.auto()
    """Shorter than `RecognizerConfig.small_tile_px`: its values come from the half reader."""
    DISPUTED = enum.auto()
    """Its ends were still disputed after the further looks (`reading.mark_still_disputed`)."""
    RECOLOURED = enum.auto()
    """An end was read again by its pips' colour (`vision.colour_check`)."""
    CUT_BY_EDGE = enum.auto()
    """It reaches the picture's edge: part of the tile may lie beyond it."""
    LOOKS_BLANK = enum.auto()
    """Neither dot nor divider shows: a back, unless a fainter look finds a face (`faces`)."""
    BACK = enum.auto()
    """A tile's back."""
    CAPPED = enum.auto()
    """A value above the set's maximum was capped."""
    CORRECTED = enum.auto()
    """Its reading repeated another tile's and was corrected to a second reading."""
    DROPPED = enum.auto()
    """No tile of its own (one boxed twice, a phantom, a patch of table): kept only in `Context.dropped`."""
    TABLE_PATCH = enum.auto()
    """Dropped as a patch of the table (`dropping.drop_table_patches`)."""


NO_FLAGS = Flag(0)


@dataclass
class Candidates:
    """Boxes of one picture and what the stages found on each. Corners are in the pixels of the
    picture read (`LoadedImage.bgr`, not the original's); a column not yet filled holds None."""

    corners: list  # (4, 2) arrays, end 0 first, as the detector gave them
    score: np.ndarray  # (n,) detector confidence
    cls: np.ndarray  # (n,) detector class
    crop: list = field(default_factory=list)  # straightened crop (80x160 BGR)
    bar: list = field(default_factory=list)  # the divider found on the crop: (row, thickness) or None
    reading: list = field(default_factory=list)  # TileReading
    probs: list = field(default_factory=list)  # the half reader's per-end probabilities (2, values)
    pips: list = field(default_factory=list)  # the values given, after the set's rules
    pip_confidence: list = field(default_factory=list)
    seconds: list = field(default_factory=list)  # second readings: [((a, b), cost), ...]
    flags: np.ndarray | None = None  # (n,) int: `Flag` bits (none set where not given)
    trace: list = field(default_factory=list)  # per row: [(stage, Change), ...]

    def __post_init__(self) -> None:
        n = len(self.score)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list) and not value:
                setattr(self, f.name, [[] for _ in range(n)] if f.name == "trace" else [None] * n)
        if self.flags is None:
            self.flags = np.zeros(n, np.int64)
        for f in fields(self):
            if len(getattr(self, f.name)) != n:
                raise ValueError(f"column {f.name} has {len(getattr(self, f.name))} rows, not {n}")

    @classmethod
    def from_boxes(cls, boxes: Sequence[Any]) -> "Candidates":
        """Rows for the detector's boxes (`detector.RawBox`: corners, score, cls), in their order."""
        return cls([b.corners for b in boxes], np.array([b.score for b in boxes], np.float64),
                   np.array([b.cls for b in boxes], np.int64))

    @classmethod
    def empty(cls) -> "Candidates":
        return cls.from_boxes([])

    def __len__(self) -> int:
        return len(self.score)

    def __getitem__(self, rows: np.ndarray | Sequence[int] | Sequence[bool]) -> "Candidates":
        """The rows a boolean mask or an index array picks, every column alike."""
        idx = np.asarray(rows)
        if idx.dtype == bool:
            if len(idx) != len(self):
                raise IndexError(f"a mask of {len(idx)} for {len(self)} rows")
            idx = np.flatnonzero(idx)
        idx = idx.astype(np.int64).reshape(-1)
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value[idx] if isinstance(value, np.ndarray) else [value[i] for i in idx]
        return Candidates(**out)

    def __add__(self, other: "Candidates") -> "Candidates":
        """These rows, then `other`'s."""
        out = {}
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            out[f.name] = np.concatenate([a, b]) if isinstance(a, np.ndarray) else list(a) + list(b)
        return Candidates(**out)

    def has(self, flag: Flag) -> np.ndarray:
        """Boolean mask of the rows with `flag` set."""
        return (self.flags & int(flag)) != 0

    def mark(self, row: int, flag: Flag, stage: str, change: Change | None = None) -> None:
        """Set `flag` on `row`, tracing `change` (by default, that the flag was set)."""
        self.flags[row] |= int(flag)
        self.trace[row].append((stage, change if change is not None else Marked(flag.name)))

    def unmark(self, row: int, flag: Flag, stage: str) -> None:
        self.flags[row] &= ~int(flag)
        self.trace[row].append((stage, Marked(f"not {flag.name}")))

    def note(self, row: int, stage: str, change: Change) -> None:
        self.trace[row].append((stage, change))

    def reread(self, row: int, reading: Any, stage: str) -> None:
        """Give `row` a new reading, tracing the change of values where there is one."""
        old = self.reading[row]
        self.reading[row] = reading
        was = tuple(old.pips) if old is not None else None
        if was != tuple(reading.pips):
            self.trace[row].append((stage, Reread(was, tuple(reading.pips))))

    def rows(self, mask: np.ndarray | None = None) -> list[int]:
        """Row indices, all or those of a mask, in order."""
        return list(range(len(self))) if mask is None else [int(i) for i in np.flatnonzero(mask)]

    def trace_of(self, row: int) -> list[TraceEntry]:
        return list(self.trace[row])
