"""The tuning of the set's rules over what the camera read (`vision.correct`): how sure a smaller set
must be, which boxes are no tile of their own, and which second readings are plausible. Its own small
module so that `vision.correct` and the recognizer's configuration can both import it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..config_values import Settings, Wording
from .wording import recognizer_wording


@dataclass(frozen=True)
class CorrectionConfig(Settings):
    """How the set's rules correct a photo's readings: thresholds that trade a misread let through
    against a right reading changed or a real tile dropped. Part of `RecognizerConfig` (`corrections`)."""

    WORDING: ClassVar[Wording] = recognizer_wording("corrections.")

    set_evidence: float = 0.01
    """How unlikely it must be that a larger set would have shown no higher value, before a photo is
    read as a set smaller than `correct.DEFAULT_SET`: with ends spread evenly over a set's values, the
    chance that n tiles of a double-9 all show 6 or less is (7/10)^(2n), below this from 7 tiles on."""
    max_cost: float = 0.35
    """A second reading must hinge on a dot scored within this of the threshold (`correct.second_readings`,
    and the duplicates `correct.settle_values` corrects)."""
    max_duplicate_fixes: int = 3
    """Duplicates one photo's readings may be corrected, at most, by second readings
    (`correct.settle_values`). A duplicate no cheap second reading resolves is reported and counts
    against none of them: every other duplicate is still looked at."""
    same_dot: float = 0.04
    """Distance, as a share of the shorter tile's length, within which dots two boxes count are one dot
    (a 12's dots lie ~0.09 of a tile's length apart; `correct.drop_boxes_sharing_dots`)."""
    shared_share: float = 0.5
    """Share of a box's dots another box must count too for it to be a phantom (`correct.drop_boxes_sharing_dots`)."""
    overlap: float = 0.35
    """Share of the smaller box two real tiles lying flat never cover of each other
    (`correct.drop_overlapping_boxes`)."""
    touch: float = 0.05
    """Share of the smaller box above which a neighbour counts towards a box's cover
    (`correct.drop_overlapping_boxes`)."""
    covered: float = 0.8
    """Share of a box that other boxes must cover for it to be a possible phantom (`correct.drop_overlapping_boxes`)."""
    bar_weight: float = 0.5
    """How much a divider like the photo's other tiles' counts against detector score, in choosing which
    of overlapping boxes are tiles (`correct.drop_overlapping_boxes`)."""
