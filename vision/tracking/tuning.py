"""The tracker's tuning: how many readings make a decision, how far it looks, what it believes.

`TrackerConfig` gathers the values in one frozen dataclass, each with what it means and why it has
the value it has; a tracker is built with one (`Tracker(..., tuning=TrackerConfig())`) and its
modules read them from there, passing them to the functions they call. Two parts have their own
frozen dataclass inside it: `PictureConfig` (how a place is compared with its settled picture),
`MotionConfig` (the thresholds of the motion gate the tracker builds) and `DetectorConfig` (what the
recognizer as the tracker's detector carries from frame to frame; its builder passes it). The
defaults are the values the tracker is measured with.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..config_values import Settings, Wording

from ..types import SECOND_READING_COST

WAITING_DOUBLE_RULES = ("chickie_unfinished", "spinner_arms_unfinished")
"""Flags raised because a double still waited for tiles: a tile the reader missed can be behind them."""

class TrackerConfigError(ValueError):
    """A tracker tuning that cannot be used (an unknown name, a value of the wrong kind)."""


def _wording(prefix: str = "") -> Wording:
    return Wording(TrackerConfigError, value="{name} must be {kind}, got {value!r}",
                   unknown="unknown tracker tuning {names}; known names are {known}",
                   not_object="a tracker tuning must be an object of names and values, got {type}", prefix=prefix)


@dataclass(frozen=True)
class MotionConfig(Settings):
    """How the motion gate (`motion.MotionGate`) compares thumbnails: what counts as a pixel changed,
    and how many must change for a frame to move or to be read. Part of `TrackerConfig` (`motion`)."""

    WORDING: ClassVar[Wording] = _wording("motion.")

    thumb_width: int = 240
    """About how wide (pixels) a frame's thumbnail is: frames are shrunk by a whole factor to it."""
    pixel_delta: float = 0.08
    """Change of a thumbnail pixel, relative to the brighter of its two values, that counts."""
    move_share: float = 0.0004
    """Share of thumbnail pixels that must change since the previous frame for the frame to move."""
    change_share: float = 0.0002
    """Share of thumbnail pixels that must differ from the reference (or from the last picture read)
    for a still frame to be read: a 40-px tile laid on a light grey table, its face hardly brighter
    than the cloth, changed 14 pixels of a 256×144 thumbnail, under the 14.7 that 0.0004 asked, so a
    planted tile lying still for ten frames was never read (in a rendered double-15 round). A
    reading too many costs one recognizer run; a reading skipped can lose a play."""
    near_white: float = 240.0
    """Thumbnail grey level from which a pixel is near white: one near white in both pictures is left
    out of the comparison (a brighter frame clips white tiles by different amounts than it
    brightens the table)."""
    grey_floor: float = 6.0
    """Smallest difference, in grey levels, that counts (sensor noise in dark areas stays below it)."""
    clip_risk: float = 150.0
    """Thumbnail grey level from which a pixel may hold clipped pixels of the frame (see `MotionGate._share`)."""
    lit_grey: float = 40.0
    """A lamp's step is measured on pixels brighter than this in both pictures when they are more
    than `lit_share` of the thumbnail; otherwise from the two medians."""
    lit_share: float = 0.02
    """Share of the thumbnail that must be lit (`lit_grey`) for a lamp's step to be measured on it."""


@dataclass(frozen=True)
class PictureConfig(Settings):
    """How a board tile's place is compared by pixels with its settled picture (`board.tile_patch`,
    `board.same_picture`): while it still looks alike, the tile has not left, whatever the reader
    makes of it. Part of `TrackerConfig` (`pictures`)."""

    WORDING: ClassVar[Wording] = _wording("pictures.")

    patch: tuple[int, int] = (12, 24)
    """A tile's picture for `same_picture`, straightened (width, length): coarse enough that a few
    pixels of pose error or a re-rendered grain barely show, fine enough to show the pips."""
    patch_inner: float = 0.7
    """Share of the box's length and width its inside covers, about its centre. A box takes in a
    strip of what lies beside its tile (boxes are a few pixels off, edges blurred), and a tile laid
    against it there (a toe against a double's side) changed the whole box's picture enough that a
    double the reader then lost was taken for gone: a fresh double-15 round lost a 15-15 with
    its toes and the plays after them (whole box 0.67 alike across the toe's laying, its inside 0.90,
    measured by correlation)."""
    same_picture: float = 0.75
    """Least structural similarity between a tile's settled picture and its place now for the tile
    to count as still lying there. On every place the tracked rendered rounds compared, places
    whose tile had gone measured at most 0.54 and places whose tile stayed at least 0.94
    (`scripts/place_similarity_study.py`)."""
    same_brightness: float = 0.25
    """Largest relative change of the place's mean brightness for the same."""


@dataclass(frozen=True)
class DetectorConfig(Settings):
    """What the recognizer as the tracker's detector (`detector.RecognizerDetector`) carries from one
    frame to the next. Part of `TrackerConfig` (`detector`); whoever builds the detector passes it, as
    the tracker is handed a detector ready made."""

    WORDING: ClassVar[Wording] = _wording("detector.")

    tiles_for_size: int = 5
    """Tiles a frame must show for their size to guide the next frame's detector."""
    colours_kept: int = 6
    """Colours kept per value (the latest: the light on the table drifts); those most of them agree
    on stand for the value (`colour_check.agreed_colours`)."""


@dataclass(frozen=True)
class TrackerConfig(Settings):
    """How the tracker weighs its readings; the defaults are the values it is measured with."""

    WORDING: ClassVar[Wording] = _wording()

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
    camera_shift: float = 0.3
    """How far (tile widths) the known tiles must have moved together, for the median tile, to
    take the camera as moved (`board.register`)."""
    drift: float = 0.08
    """Smallest consistent move (tile widths) the tracker follows silently."""
    few_tiles_shift: float = 0.4
    """With fewer than three tiles on the board, the shift (tile widths) that counts as a camera move."""
    attach_max: float = 0.5
    """Largest mismatch, in tile widths, between a new tile's near half and a place to lay it."""
    kept_hands: int = 20
    """Hands remembered within one stretch of motion (the latest; older ones cannot be the laying
    hand; `seats.Seats`)."""
    pictures: PictureConfig = field(default_factory=PictureConfig)
    """How a board tile's place is compared with its settled picture (`PictureConfig`)."""
    motion: MotionConfig = field(default_factory=MotionConfig)
    """How the motion gate the tracker builds compares thumbnails (`MotionConfig`); a gate given
    to the tracker keeps its own."""
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    """What the recognizer as the tracker's detector carries from frame to frame (`DetectorConfig`);
    read by whoever builds that detector, not by the tracker."""


CLOSE_LOOK_PLACES = TrackerConfig.close_look_places
"""The default `TrackerConfig.close_look_places`."""
