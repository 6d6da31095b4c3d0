"""The recognizer's own tuning, in one place: what a lab script may change and a reader may look up."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..config_values import Settings, Wording
from ..correct import SURE_READING
from ..halfreader import SMALL_TILE_PX
from .colour_config import ColourConfig
from .correction_config import CorrectionConfig
from .wording import RecognizerConfigError, recognizer_wording

__all__ = ["ColourConfig", "CorrectionConfig", "FaceConfig", "RecognizerConfig", "RecognizerConfigError"]


@dataclass(frozen=True)
class FaceConfig(Settings):
    """How a box is judged a face, a back or a patch of the table (`faces`): the thresholds that trade
    a back taken for a face against a face thrown away as a back. Part of `RecognizerConfig` (`faces`)."""

    WORDING: ClassVar[Wording] = recognizer_wording("faces.")

    faint_bar_contrast: int = 16
    """Contrast at which a large blank box's divider is looked for again (the reader's is 28): a
    double blank's bar is often faint (a thin grey line on a cream face); a back has nothing running
    straight across its middle (a ring or a dimple is short, a stripe slanted)."""
    bar_turns: tuple[float, ...] = (-10.0, -5.0, 5.0, 10.0)
    """Degrees a large blank box's crop is turned to look for a divider the box does not lie square
    to (`faces._turned_bar`). Why: a crosswise 112-px 0-0 chickie in a rendered double-6 round
    was boxed 8 degrees off its outline; its thin grey divider, slanted across the crop, filled no row
    of it, so the tile was taken for a back in every frame and its two toes were never followed. A
    back's stripe runs some 60 degrees off square, a ring or a dimple short."""
    same_face: float = 20.0
    """Largest Lab distance between the median colours on either side of a turned divider for both
    to be one face (`faces._turned_bar`)."""
    blank_sure: float = 0.6
    """How sure the half reader must be of a 0 on each end of a small blank box to call it the double
    blank (on rendered tables, double blanks read 0.73 or more, backs at most 0.49)."""
    groove_bar_contrast: int = 8
    """The faintest divider a large blank box may show to count as the double blank (where the half
    reader is `groove_blank_sure` of 0 on each end), or a blank-looking small box of several dots an
    end to count as that face (see `faces.looks_double_blank`, `faces.looks_a_face_by_pattern`)."""
    groove_blank_sure: float = 0.8
    """How sure of 0 the half reader must be on each end of a large blank box showing only a
    divider as faint as `groove_bar_contrast` (see `faces.looks_double_blank`)."""
    dot_count_margin: float = 0.25
    """Where the dot detector's count must agree with the half reader's (a small box called a back or
    a blank judged a face by its dots), each end may differ by this share of the larger end's value,
    rounded down: an end of 8 dots beside a blank end agrees with a count of 7 to 9 and up to 2 stray
    dots on the blank end, while ends of 0-3 dots must match exactly. Why: the dot detector's count
    of a pale pattern on a colour view moves by a dot or two between builds of the same libraries
    (an 8-0 counted 8-0 on one machine and 8-1 or 8-2 on another), and an exact match made whether a
    tile was seen at all depend on the build. A back's dimples or ring read as 0 to 2 dots an end,
    so the small counts that could be a back stay exact."""
    face_sure: float = 0.9
    """How sure the half reader must be of both ends of a small box with neither dot nor divider to
    read it as that face, not a back (a 43-px double-13 drawn in pale lilac with a pale divider showed
    no dot to the dot detector and was thrown away as a back in every frame of a rendered round,
    while the half reader read it 13-13 at 0.96)."""
    mottled_step: float = 9.0
    """Lightness levels a face's pixel must step by, to its neighbours, to count as streaked (`mottled_share`)."""
    mottled_share: float = 0.21
    """A box read with at most one dot is a patch of the table, not a tile, where more than this
    share of its face, away from the divider's band and its dot, steps by over `mottled_step`
    lightness levels a pixel (`faces.looks_mottled`). Why: such a face is plain but for its
    divider and its dot, while glossy or woven table tops are streaked all over, and their streaks can
    pass for a divider and a speck for a pip; the detector boxed such patches on copies of the real
    photos turned 45 degrees or seen at a slant (`scripts/stress_real.py`), and each was read as a 0-0
    or a 1-0 that is not there. Shares measured: such patches 0.27-0.48 on the real
    copies, and two boxes read falsely on rendered steep tables 0.26 and 0.37; tiles read with a dot
    or none at most 0.07 on the real photos and their copies, 0.16 on rendered tables and hands (a box
    loose or turned on its tile takes in the tile's edges, a dim render its sensor noise, which the
    step of 9 mostly passes over). Faces of more dots are left alone: the halos of a blurred photo's
    pips step too."""
    mottled_dot: float = 0.18
    """Radius, in crop widths, of the disc about a dot found that `faces.looks_mottled` leaves out: a
    large pip of a double-6 set with its rim and blur."""
    mottled_seen: float = 0.25
    """Share of the face that must lie inside the picture for `faces.looks_mottled` to judge it."""


@dataclass(frozen=True)
class RecognizerConfig(Settings):
    """How the recognizer reads a picture; the defaults are what the committed models were tuned with."""

    WORDING: ClassVar[Wording] = recognizer_wording()

    detector_conf: float = 0.5
    """Score below which the tile detector's boxes are left out."""
    pip_conf: float = 0.5
    """Score from which the dot detector counts a dot (below it, a dot is a cheap second reading)."""
    small_tiles: bool = True
    """Read tiles shorter than `small_tile_px` by the half reader (where the model folder has one);
    off, every tile is read by its dots."""
    small_tile_px: float = SMALL_TILE_PX
    """Tiles shorter than this (pixels of the picture read) take the half reader's values; longer
    ones are read by their dots, the half reader checking them."""
    big_set_min: int = 13
    """A picture of a set declared double-13 or more is read by the big sets' half reader
    (`BIG_HALVES_FILE`, where the model folder has one): fine-tuned on their small tiles, it reads
    13-15 better, but with no set or a small set declared it reads some pale small ends as dense 16s
    and 17s, so everywhere else the general half reader reads (models/README.md, the big reader's card)."""
    beside_a_face: float = 1.2
    """How near a face's centre (in its lengths) a small box called a back must lie to be looked
    at again as a face (`boxing.faces_among_backs`): a toe or an arm lies against its tile."""
    sure_reading: float = SURE_READING
    """A reading at least this sure may decide which set is in play (`correct.infer_set_max`)."""
    level_rounds: int = 2
    """Times a tilted photo is levelled: boxes on tiles seen steeply are nearer a domino's shape than
    the tiles are, so the first view found undoes only part of the tilt; the boxes found on the
    levelled picture, mapped back, show the rest."""
    level_more_twice: int = 2
    """Tiles read twice more in a levelled reading than in the photo as it is, above which the levelled
    reading is not taken. A set holds each tile once, so a reading full of repeats is full of misreads.
    Why: a dense 1280x720 table seen from above, blurred, with its boxes packed too tight to look like
    dominoes (a rendered double-12 table), was "levelled" as if seen from 59 degrees; the
    levelled reading found 68 faces against 53 and was taken, but read 17 tiles twice and 17 of 52
    right, against 51 of 52 as it was. On the steep rendered tables (seed 2613) every levelled reading
    taken reads no more repeats than the photo as it is, but for one with one more."""
    guess_below_faces: int = 2
    """Faces showing a divider in a photo as it is, below which, where the boxes show no angle, the
    photo is read again in a guessed steep view (`perspective.guessed_steep_view`). Why: a table seen
    from 65 degrees off straight down is boxed by the detector hardly at all (copies of the real
    photos so seen: exact tile 0.449), or its tiles' halves are boxed as tiles, which show no divider
    and whose boxes look like dominoes; a guessed view read the copies 0.876. With more such faces
    their boxes and pips show the angle, or that there is none; and a guess costs a second reading
    (1.4 s instead of 0.5 s for a 2718x2718 close-up of two tiles seen from above, where the guess
    was tried with fewer than three faces)."""
    faces: FaceConfig = field(default_factory=FaceConfig)
    """How a box is judged a face, a back or a patch of the table (`FaceConfig`)."""
    corrections: CorrectionConfig = field(default_factory=CorrectionConfig)
    """How the set's rules correct what was read: which set is in play, which boxes are no tile of
    their own, which second readings are plausible (`CorrectionConfig`)."""
    colours: ColourConfig = field(default_factory=ColourConfig)
    """How ends read alike but coloured apart are moved off their value (`ColourConfig`)."""
