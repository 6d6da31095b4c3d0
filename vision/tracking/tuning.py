"""The tracker's tuning: how many readings make a decision, how far it looks, what it believes.

`TrackerConfig` gathers the values in one frozen dataclass, each with what it means and why it has
the value it has; a tracker is built with one (`Tracker(..., tuning=TrackerConfig())`) and its
modules read them from there. The defaults are the values the tracker is measured with.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from ..types import SECOND_READING_COST

WAITING_DOUBLE_RULES = ("chickie_unfinished", "spinner_arms_unfinished")
"""Flags raised because a double still waited for tiles: a tile the reader missed can be behind them."""

class TrackerConfigError(ValueError):
    """A tracker tuning that cannot be used (an unknown name, a value of the wrong kind)."""


@dataclass(frozen=True)
class TrackerConfig:
    """How the tracker weighs its readings; the defaults are the values it is measured with."""

    window: int = 3
    """Still observations a new tile must appear in (all but one of them) to be accepted."""
    remove_window: int = 4
    """Still observations a tile must be absent from before it counts as gone."""
    recheck_s: float = 3.0
    """Seconds between re-reads while nothing seems to change (catches slow changes)."""
    max_window: int = 8
    """Observations the window keeps, the newest (enough for a change read twice over)."""
    still_before_read: int = 2
    """Still frames in a row before the recognizer runs (after motion)."""
    adopt_size_after: int = 30
    """Frames of one new size in a row after which the tracker takes it as the stream's size."""
    fresh_reads_on_doubt: int = 2
    """Recognizer runs per still stretch when a reading leaves a board tile unexplained (not
    seen, read as another tile): a tile leaves the board only on two readings."""
    max_unsettled_reads: int = 10
    """Reads without a decision after which the tracker settles anyway (a tile it cannot make
    out must not keep the recognizer running on every frame)."""
    alternative_margin: float = 0.2
    """How much worse (tile widths) a legal place may fit than an illegal one and still be preferred."""
    close_look_reach: float = 2.0
    """How far around a tile a closer look reads (tile lengths from its centre): a double's arms
    or toes reach a little over 1.5."""
    close_looks: int = 2
    """Pictures of the still board a closer look reads (when the window holds that many)."""
    close_look_places: int = 4
    """Places around tiles touching nothing looked at closer per still stretch: on a far, flat view
    of a long double-15 layout the reader left a dozen tiles touching nothing at every play, and
    looking around each (two crops, ~0.1 s apiece) held the tracker up for seconds. (A look before
    a flag is not counted: flags are few, and each deserves its look.)"""
    overlap_same_tile: float = 1 / 3
    """Share of the smaller of two boxes that must overlap for them to be one tile boxed twice."""
    flag_runs: int = 3
    """Runs of the recognizer on fresh frames that must read a tile alike before its play is flagged."""
    flag_max_reads: int = 5
    """Readings of a still board after which a play is flagged even if fewer agreed."""
    sure_reading_cost: float = 0.3
    """A reading whose next likeliest is at least this much less likely is sure (see
    `_correct_misread_play`)."""
    unsure_reading_cost: float = 0.05
    """A reading whose next likeliest is within this is a coin toss: read closer before it is
    played, even where the rules accept it (see `_reread_from_closer_look`)."""
    short_box: float = 0.75
    """A board tile boxed shorter than this share of a later reading at its place was boxed over part
    of a tile, and one boxed longer than the later reading by as much took in part of a neighbour
    (see `_correct_misread_play`)."""
    second_reading_cost: float = SECOND_READING_COST
    """How much less likely than the first (dot score margin, or class probability) a reader's second
    reading may be and still be taken when it makes an illegal-looking play legal. (At 0.25 a clean dot
    scoring 0.72, "0.22 from the threshold", was dropped whenever that made a play legal: planted 6-5
    laid wrong way round read 6-5 sure and taken as 5-5, a planted 9-7 taken as 9-6. On the 50 seed-12
    rounds 0.2 caught one more planted play and raised no false flag.) A large tile's costs include
    how much more the half reader believes the value read (`recognition.settling.backed_costs`): a dot scoring
    0.65 that the half reader sees too is no longer "0.15 from the threshold"."""
    dense_confused: int = 12
    """Values from this up have patterns the half reader confuses with their neighbours on small tiles
    (held out, small ends of the big sets: 12-15 read right 0.88-0.89, 0-8 0.96-0.99;
    models/checkpoints/half_reader_big_gpu_summary.json); see `_dense_end_misread`."""
    dense_confused_spread: int = 2
    """How far apart two such values may be and still be taken for one another (13 for 15: two
    pips in a pattern of fifteen)."""
    loose_explained: float = 1.5
    """How much a re-reading must explain before it is believed (`_explain_loose`): each tile set
    apart that it turns into a legal play counts 1, less `GUESS_COST` for each guess it makes. One
    tile is not enough (a planted illegal play, or a phantom, that some re-reading makes legal by
    chance); two laid on from one another are the table going on."""
    explain_margin: float = 1.0
    """How much better than every other re-reading the one entered must explain: while two explain
    alike, the next tile laid usually tells them apart (a double read 15-13 across a 13 read for 15
    is a 13-13 by its parent and a 15-15 by its first toe; the second toe settles it)."""
    guess_cost: float = 0.5
    """What a guess costs a re-reading: a board tile taken as the other tile its place was read as
    (`PLACE_READS` runs at least), a tile lying across an end taken as a double of one of its values,
    or a double the reader never found taken to lie across an open end."""
    place_reads: int = 2
    """Recognizer runs that must read a board tile's place as one other tile before `_explain_loose`
    may take it for that tile."""
    straight_toe_gap: tuple[float, float] = (0.6, 1.6)
    """How far beyond a board tile's end (in tile widths) the tile laid on it may lie and yet be a toe
    of a double across that end that the reader never saw (`_straight_toe`). A tile laid on an end
    touches it (a gap near 0); a double across the end is a tile's width deep. Why: in a rendered
    double-15 round of 30-px tiles the 14-14 chickie was never read; its straight toe 14-12, a width beyond
    the 14-2, was taken as laid on the 14-2, and the other toes, with the eleven plays built on them,
    lay apart as the open end they needed was taken."""
    advice_size_change: float = 0.25
    """Change in the tiles' length (a share of it) after which advice on it is given again."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value, default = getattr(self, f.name), f.default
            if isinstance(default, tuple):
                if isinstance(value, list):  # (JSON has no tuples)
                    object.__setattr__(self, f.name, value := tuple(value))
                if not (isinstance(value, tuple) and len(value) == len(default)
                        and all(_is_number(v) for v in value)):
                    raise TrackerConfigError(f"{f.name} must be {len(default)} numbers, got {value!r}")
            elif isinstance(default, int) and not (isinstance(value, int) and not isinstance(value, bool)):
                raise TrackerConfigError(f"{f.name} must be a whole number, got {value!r}")
            elif not _is_number(value):
                raise TrackerConfigError(f"{f.name} must be a number, got {value!r}")

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TrackerConfig":
        """A tuning from an object of value names; names not given keep their defaults.

        Unknown names are refused rather than ignored: a misspelt name silently left at its
        default would change how the tracker reads without anyone noticing."""
        if not isinstance(data, dict):
            raise TrackerConfigError(f"a tracker tuning must be an object of names and values, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in set(data) - known)
        if unknown:
            raise TrackerConfigError(f"unknown tracker tuning {', '.join(unknown)}; known names are "
                                     f"{', '.join(sorted(known))}")
        return cls(**data)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


CLOSE_LOOK_PLACES = TrackerConfig.close_look_places
"""The default `TrackerConfig.close_look_places`."""
