"""The tuning of the pip-colour check (`vision.colour_check`): how far apart two ends' colours must
lie to be two values', and how sure the reader and the split must be before an end is moved. Its
own small module so that `vision.colour_check` and the recognizer's configuration can both import it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ..config_values import Settings, Wording
from .wording import recognizer_wording


@dataclass(frozen=True)
class ColourConfig(Settings):
    """How the pip-colour check moves ends read alike but coloured apart: thresholds that trade a
    misread dense value left standing against a right reading moved. Part of `RecognizerConfig`
    (`colours`)."""

    WORDING: ClassVar[Wording] = recognizer_wording("colours.")

    apart: float = 12.0
    """Two ends' pip colours (Lab's a and b, the pips' less the face's) are apart, not one value's
    colour, where they lie at least this far from each other and turned at least `apart_angle`."""
    apart_angle: float = 30.0
    """Degrees two ends' pip colours must be turned from each other about the face's colour, as well
    as lie `apart`, to be apart. The turn is needed because a small pip blends with the face, and by
    more or less from tile to tile: its colour lies on the line from the face's towards its own,
    nearer or farther. On 4,452 pairs of ends of one value on hand-free frames of the colour-coded
    rendered rounds, 2.0 % lie 12 apart, 0.18 % both 12 apart and turned 30 degrees; of pairs of
    different values, 87 % and 73 %. One round's 13 and 15 lie 22 apart and 60 degrees; another
    round's dark 13, 14 and 15 on a green face within 6 (left alone). Lightness is left out: the
    table's light falls unevenly, and on real photos shrunk to 25-px tiles the pixels farthest from
    a white face were as often glare as dark pips (a 3 and a 3, both black, measured 33 apart in
    lightness alone)."""
    alt_prob: float = 0.05
    """The least probability the half reader must give an end's new value for the end to be moved."""
    margin: float = 3.0
    """Log-likelihood (nats) by which the chosen split must beat every other before anything moves."""
    min_contrast: float = 10.0
    """An end whose pips differ from its face by less than this (Lab) has no colour to go by."""
    passes: int = 3
    """Rounds over the values read (a value's move may clear the way for another's; see
    `colour_check.colour_checked`)."""
    anchor_sure: float = 0.95
    """How sure of an end the half reader must be for the end's colour to stand for its value in later
    pictures of the same set (`colour_checked`'s `anchors`; ends counted by their dots always do)."""
