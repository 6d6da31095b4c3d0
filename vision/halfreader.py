"""Read the ends of small tiles by the look of the whole pattern, not by counting dots.

On a tile under ~60 px long (a double-12 or double-15 table filling a webcam frame) the
dots of the big values merge into bars and blocks: the pip detector, which counts dots,
undercounts them badly (a 15 read as 6 or 8). The pattern's overall shape, extent and
density still differ from value to value, and a small classifier trained on rendered ends
shrunk to such sizes (`lab.training.half_data`) tells them apart. `Recognizer` asks it
only about tiles shorter than `SMALL_TILE_PX` and takes its values there; the dot count still
decides whether a box is a tile's back (no dot, no divider). On real photos shrunk until their
tiles were 30-55 px it read exactly what the dot count read (models/README.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .onnx_yolo import make_session
from .rectify import CROP_L

HALF_W, HALF_H = 32, 36
"""Classifier input (one end of a tile, divider at the bottom), pixels."""
HALF_ROWS = int(CROP_L * 0.5625)
"""Rows of the straightened crop an end takes: its half and a strip past the divider."""
CLASSES = 19
"""Values 0-18 (up to the double-18 set)."""


def half_inputs(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A straightened crop's two ends as classifier inputs: end 0 as it is (divider at the
    bottom of its rows), end 1 turned half a turn so its divider is at the bottom too."""
    top = crop[:HALF_ROWS]
    bottom = crop[::-1, ::-1][:HALF_ROWS]
    size = (HALF_W, HALF_H)
    return (cv2.resize(top, size, interpolation=cv2.INTER_AREA),
            cv2.resize(bottom, size, interpolation=cv2.INTER_AREA))


def to_tensor(halves: np.ndarray) -> np.ndarray:
    """N×H×W×3 uint8 BGR -> N×3×H×W float32 RGB in 0-1 (the training layout)."""
    return np.ascontiguousarray(halves[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


class HalfReader:
    """The ONNX half classifier: straightened crops in, per-end value probabilities out."""

    def __init__(self, path: str | Path, threads: int | None = None) -> None:
        self.session = make_session(path, threads)
        self.input_name = self.session.get_inputs()[0].name

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """(len(crops), 2, CLASSES): for each crop, end 0's and end 1's value probabilities."""
        if not crops:
            return np.zeros((0, 2, CLASSES), np.float32)
        halves = np.stack([h for c in crops for h in half_inputs(c)])
        logits = self.session.run(None, {self.input_name: to_tensor(halves)})[0]
        z = logits - logits.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        return p.reshape(len(crops), 2, -1).astype(np.float32)


SMALL_TILE_PX = 90.0
"""Tiles shorter than this (pixels of the picture read) get the classifier's opinion."""


@dataclass
class ClassifiedHalf:
    """An end read by the classifier; quacks like `pipreader.HalfReading` for the rule-based
    correction: `alternatives` are the next likeliest values, costing their shortfall in
    probability (a close second is a cheap second reading)."""

    count: int
    probs: np.ndarray
    dots: int | None
    """What the dot count said (the face-down test goes by it); None where the dots were not
    counted (see `classified_reading`)."""

    @property
    def confidence(self) -> float:
        return float(self.probs[self.count])

    def alternatives(self, threshold: float) -> list[tuple[int, float]]:
        best = float(self.probs[self.count])
        order = np.argsort(-self.probs)
        return [(int(v), best - float(self.probs[v])) for v in order[1:4]]


def classified_reading(reading: Any, probs: np.ndarray, set_max: int | None, bar: Any = None) -> Any:
    """`reading` (a `TileReading`) with each end taken from the classifier's `probs` (2×CLASSES),
    values above the set's maximum ruled out. (Keeping the dot count where the classifier was
    less than 50 % sure read worse: models/README.md.)

    `reading` None: the dots were not counted, because the crop shows its divider `bar`. The
    count would only have decided whether the box is a back, and a box with a divider is not,
    so a small tile with a divider skips the dot detector (on a webcam frame of a table, nearly
    every tile: half the time of reading it)."""
    from .pipreader import TileReading

    if reading is None:
        return TileReading(tuple(_classified(probs[end], set_max, None) for end in (0, 1)), [], bar)
    return TileReading(tuple(_classified(probs[end], set_max, reading.halves[end].count) for end in (0, 1)),
                       reading.points, reading.bar)


PATTERN_SURE = 0.8
"""How sure the classifier must be of a large tile's end to take its value over the dot count."""
PATTERN_ADD_COST = 0.3
"""How far under the dot threshold the dots the classifier's value needs may be (as for parity)."""


def bar_checked(reading: Any, probs: np.ndarray, set_max: int | None) -> Any:
    """`reading`, or its `without_bar` alternative where the classifier is sure of both ends
    and agrees with the alternative on both, and not with the reading.

    With a faint divider, the one row near the middle that runs across the face may be a pair of
    big pips side by side (the lower pair of a 5, the upper pair of a 4's half); taken for the
    divider, both dots were dropped as its rounded ends and the halves split there, so a 5-2 read
    3-2 and a 4-1 read 1-2 (in a rendered round, 110-px tiles with a thin grey divider). A
    bar's rounded ends look the same to the dot detector, so the geometry cannot decide; the
    classifier, which reads each end's whole pattern, can, where it is sure of both."""
    alt = getattr(reading, "without_bar", None)
    if alt is None:
        return reading
    ends = [_classified(probs[end], set_max, None) for end in (0, 1)]
    if any(c.confidence < PATTERN_SURE for c in ends):
        return reading
    says = tuple(c.count for c in ends)
    return alt if alt.pips == says != reading.pips else reading


def split_checked(reading: Any, probs: np.ndarray, set_max: int | None) -> Any:
    """`reading` with its counted dots split afresh between the ends where the classifier is sure
    of both ends, its two values add up to the dots counted, and a split between two rows of dots
    gives exactly those values: the two readers then agree on every dot and differ only on where
    the divider lies.

    Why: a faint, dashed divider was missed and a thin line between two rows of pips taken for
    it, so a rendered 9-9 read 12-6 and an 8-9 read 5-12, each end's classifier sure of 9 or 8
    at 0.94. A split through a row is never made: no value puts half a row on each side."""
    from .pipreader import HalfReading, ROW_TOLERANCE, TileReading

    ends = [_classified(probs[end], set_max, None) for end in (0, 1)]
    want = tuple(c.count for c in ends)
    pts = sorted(reading.points, key=lambda p: p[1])
    if want == reading.pips or min(want) == 0 or sum(want) != len(pts) or \
            any(c.confidence < PATTERN_SURE for c in ends):
        return reading
    if pts[want[0]][1] - pts[want[0] - 1][1] < ROW_TOLERANCE * CROP_L:
        return reading
    halves = []
    for part in (pts[:want[0]], pts[want[0]:]):
        halves.append(HalfReading(len(part), sorted((p[2] for p in part), reverse=True), reading.confidence))
    split = [(x, y, c, int(k >= want[0])) for k, (x, y, c, _h) in enumerate(pts)]
    return TileReading((halves[0], halves[1]), split, reading.bar)


def pattern_checked(reading: Any, probs: np.ndarray, set_max: int | None, conf: float) -> Any:
    """`reading` (a large tile's dot count) with an end the dots leave open taken from the
    classifier: where it is sure of a larger value and the dots that value needs are there,
    only under the threshold.

    Faint pips (light grey on white, a glare across a row) score near the pip detector's
    threshold, and whether five of a 12's dots pass it moved with the OpenCV build: a real
    6-12 read 6-7 with one build and 6-12 with another. The classifier reads the whole pattern
    (with this check the real development photos read 1.0 under both builds); the dot candidates
    keep it from inventing dots that are not there. Counts are never lowered: a dot too many is
    rarer than a faint one missed, and the parity rule already weighs dropping the weakest."""
    return _with_ends(reading, {end: c for end, c in _disputed(reading, probs, set_max).items()
                                if _dots_allow(reading.halves[end], c.count, conf)})


def disputed_ends(reading: Any, probs: np.ndarray, set_max: int | None) -> list[int]:
    """Ends of a (pattern-checked) large tile whose classifier is still sure of more dots than
    were counted: the dot detector may be blind to their colour (see `second_look_checked`)."""
    return sorted(_disputed(reading, probs, set_max))


def second_look_checked(reading: Any, second: Any, probs: np.ndarray, set_max: int | None, conf: float) -> Any:
    """`reading` with each disputed end taken from the classifier where a second dot count, on
    `pipreader.colour_distance_view` of the same crop, finds the dots its value needs. Two
    different looks must agree: the classifier alone, trained on rendered ends only, is not
    trusted to add dots, and the second look alone is a picture the dot detector was never
    trained on."""
    return _with_ends(reading, {end: c for end, c in _disputed(reading, probs, set_max).items()
                                if second.halves[end].count <= c.count
                                and _dots_allow(second.halves[end], c.count, conf)})


DENSE_MIN = 10
"""The smallest value whose dots lie close enough to run together for the dot detector."""
DENSE_SURE = 0.95
"""How sure the classifier must be of a dense value to take it over the dots counted."""


def dense_checked(reading: Any, probs: np.ndarray, set_max: int | None) -> Any:
    """`reading` with each end still disputed after the further looks taken from the classifier
    where it is very sure (`DENSE_SURE`) of a dense value (`DENSE_MIN` or more).

    Why: on rendered double-18 hands the dot detector ran close dots together (a 17's centre dot
    between the four around it was never a candidate; some 18s gave no candidate at all), so
    no look could find the dots the classifier's value needs and the ends read 16, 15 or 0,
    while the classifier read them right, sure at 0.95 and more (exact tile of double-18 hands
    0.89). Only dense values: a 1 to 9 has its dots far apart, and a missing dot there is
    more likely a pip the detector cannot see than one it ran into another."""
    return _with_ends(reading, {end: c for end, c in _disputed(reading, probs, set_max).items()
                                if c.count >= DENSE_MIN and c.confidence >= DENSE_SURE})


DOUBLE_SURE = 0.9
"""How sure the classifier must be of both ends of a double to take a value no look found the dots
of (`double_checked`)."""


def double_checked(reading: Any, probs: np.ndarray, set_max: int | None) -> Any:
    """`reading` with its one disputed end taken from the classifier where that makes the tile a
    double: the classifier is sure (`DOUBLE_SURE`) of both ends, and the other end's dots count the
    same value, so the two readers agree on that end and on the tile's pattern.

    Why: a glare on a glossy face lifts the pips under it nearly to the face's white, and with a
    photo's noise or compression no look finds them: on copies of the real photos with soft glares
    and a messenger's recompression (`scripts/stress_real.py`), a 9-9 read 6-9, an 8-8 3-8 and 6-8,
    each end's classifier sure of the double's value at 0.93 and more. A double's two ends are
    equal, and the end whose dots all show says which value both are; a tile whose ends differ
    needs both readers' agreement as before (`second_look_checked`)."""
    disputed = _disputed(reading, probs, set_max)
    if len(disputed) != 1:
        return reading
    (end, said), = disputed.items()
    other = _classified(probs[1 - end], set_max, None)
    if said.confidence >= DOUBLE_SURE and other.confidence >= DOUBLE_SURE and \
            said.count == other.count == reading.halves[1 - end].count:
        return _with_ends(reading, {end: said})
    return reading


PALE_DOT_SCORE = 0.6
"""How clear every dot the colour view counts on an end read blank must be (see `pale_ends_checked`)."""


def blank_ends_in_doubt(reading: Any, probs: np.ndarray) -> list[int]:
    """Ends of a large tile where no dot was counted and the classifier is not sure of any value
    (under `PATTERN_SURE`): a pale colour both may have missed (see `pale_ends_checked`)."""
    return [end for end in (0, 1) if reading.halves[end].count == 0 and float(probs[end].max()) < PATTERN_SURE]


def pale_ends_checked(reading: Any, probs: np.ndarray, view: Any, view_probs: np.ndarray, set_max: int | None) -> Any:
    """`reading` with each end in doubt (`blank_ends_in_doubt`) taken from the colour-distance view
    where two looks at that view agree: its dot count, every dot clear (`PALE_DOT_SCORE`), and the
    classifier on the same view, sure of the same value.

    Why: pale pink 4s on cream faces (in a rendered round) showed the dot detector nothing and
    the classifier read them 0, unsure (0.77), so no end was disputed and no further look was asked
    for; every 4 of the set read 0 and the round lost 13 of its 32 plays. On the colour view both
    readers read the 4 right. Neither the plain looks' doubt nor one look at the view is trusted
    alone: the classifier on the view alone, taken where sure, invented values on rendered tables
    (`models/README.md`)."""
    ends = {}
    for end in blank_ends_in_doubt(reading, probs):
        n = view.halves[end].count
        said = _classified(view_probs[end], set_max, None)
        if n > 0 and said.count == n and said.confidence >= PATTERN_SURE and \
                min(view.halves[end].scores[:n]) >= PALE_DOT_SCORE:
            ends[end] = view.halves[end]
    return _with_ends(reading, ends)


def _disputed(reading: Any, probs: np.ndarray, set_max: int | None) -> dict[int, "ClassifiedHalf"]:
    out = {}
    for end in (0, 1):
        c = _classified(probs[end], set_max, reading.halves[end].count)
        if c.count > reading.halves[end].count and c.confidence >= PATTERN_SURE:
            out[end] = c
    return out


def _dots_allow(half: Any, value: int, conf: float) -> bool:
    """Whether the dot candidates of `half` hold the `value` dots, the weakest needed no further
    under the threshold than `PATTERN_ADD_COST`."""
    scores = getattr(half, "scores", None)
    return scores is not None and len(scores) >= value and scores[value - 1] >= conf - PATTERN_ADD_COST


def _with_ends(reading: Any, ends: dict[int, "ClassifiedHalf"]) -> Any:
    from .pipreader import TileReading

    if not ends:
        return reading
    return TileReading(tuple(ends.get(e, reading.halves[e]) for e in (0, 1)), reading.points, reading.bar)


def _classified(probs: np.ndarray, set_max: int | None, dots: int | None) -> ClassifiedHalf:
    """One end's reading from its probabilities, values above the set's maximum ruled out."""
    top = CLASSES - 1 if set_max is None else min(int(set_max), CLASSES - 1)
    p = probs.copy()
    p[top + 1:] = 0.0
    p /= max(float(p.sum()), 1e-9)
    return ClassifiedHalf(int(np.argmax(p)), p, dots)
