"""The recognizer's own tuning, in one place: what a lab script may change and a reader may look up."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from numbers import Integral, Real
from typing import Any

from ..correct import SURE_READING
from ..halfreader import SMALL_TILE_PX


class RecognizerConfigError(ValueError):
    """A configuration the recognizer cannot use: a setting it does not know, or a value of the wrong kind."""


@dataclass(frozen=True)
class RecognizerConfig:
    """How the recognizer reads a picture; the defaults are what the committed models were tuned with."""

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

    def __post_init__(self) -> None:
        """Values of the wrong kind are refused where they are given: a threshold given as text
        would otherwise fail deep inside a reading, or (a flag given as 0) pass unnoticed."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool":
                ok, kind = isinstance(value, bool), "true or false"
            elif f.type == "int":
                ok, kind = isinstance(value, Integral) and not isinstance(value, bool), "a whole number"
            else:
                ok, kind = isinstance(value, Real) and not isinstance(value, bool), "a number"
            if not ok:
                raise RecognizerConfigError(f"recognizer setting {f.name} must be {kind}, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RecognizerConfig":
        """A configuration from an object of setting names; settings not given keep their defaults.
        Unknown names are refused, not ignored: a misspelt setting left at its default would
        change nothing while seeming to."""
        if not isinstance(data, dict):
            raise RecognizerConfigError(f"a recognizer configuration must be an object, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known, key=str)
        if unknown:
            raise RecognizerConfigError(f"unknown recognizer setting {', '.join(map(repr, unknown))}; "
                                        f"known settings are {', '.join(sorted(known))}")
        return cls(**data)
